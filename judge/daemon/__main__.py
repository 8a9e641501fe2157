"""``python -m judge.daemon --config judge.toml``: the daemon without the rest of the CLI."""

from judge.daemon.cli import daemon_command

daemon_command(prog_name="python -m judge.daemon")
