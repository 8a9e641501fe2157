"""The abuse limits and reply caps as settings of the judge (``[judge.options]`` of the daemon's
configuration, :class:`JudgeConfig`): a value set there takes effect through the real Maildir
path (``Table``), lowered or raised; nothing set keeps the defaults; a bad value stops the judge
with a message naming the setting. tests/test_mail_abuse.py runs the defaults."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge.cli import main
from judge.daemon.config import ConfigError, load_config, parse_config
from judge.daemon.service import Factory
from judge.mail import JudgeConfig
from test_service_helpers import JUDGE, Table, acquaint, flat

REPO = Path(__file__).resolve().parents[1]
DEFAULTS = {"abuse_window_minutes": 60, "reply_limit": 30, "same_body_limit": 5, "same_body_window_minutes": 10,
            "seat_failures": 5, "sender_failures": 10, "max_echo_line": 300, "max_echo_chars": 30_000,
            "max_reply_chars": 100_000, "stranger_reply_limit": 1, "max_reply_bytes": 65_536}


def answered(table: Table, sender: str, n: int) -> list[int]:
    """Mail the judge n different texts (only the quota can stop them): replies to each."""
    return [len(table.send(sender, f"HELP\nthanks {i}")) for i in range(n)]


def unanswered(table: Table, sender: str) -> list[str]:
    return [r["detail"] for r in table.rows("SELECT detail FROM inbox WHERE sender = ? AND replied IS NULL "
                                            "ORDER BY id", (sender,))]


# -- defaults -------------------------------------------------------------------------------------

def test_nothing_configured_keeps_the_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert {k: getattr(JudgeConfig(), k) for k in DEFAULTS} == DEFAULTS
    # the example configuration sets none of them (they are shown commented out); its passwords
    # are systemd credentials
    (tmp_path / "imap_password").write_text("x\n")
    (tmp_path / "smtp_password").write_text("y\n")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path))
    section = load_config(REPO / "deploy" / "judge.toml").judge
    assert not set(DEFAULTS) & set(section.options)
    cfg = JudgeConfig(address=section.address, **section.options)
    assert {k: getattr(cfg, k) for k in DEFAULTS} == DEFAULTS
    assert (cfg.abuse_window, cfg.same_body_window) == (timedelta(hours=1), timedelta(minutes=10))


def test_every_setting_is_documented() -> None:
    """Each setting is in the example configuration (commented out, with its default) and in the docs."""
    example = (REPO / "deploy" / "judge.toml").read_text()
    docs = (REPO / "docs" / "mail-door.md").read_text()
    for key, value in DEFAULTS.items():
        assert re.search(rf"^# {key} = {value}\b", example, re.M), key
        assert f"`{key}`" in docs, key


# -- answers to mail that does not sign on ---------------------------------------------------------

def test_a_lowered_reply_limit_silences_the_fourth_answer(tmp_path: Path) -> None:
    table = Table(tmp_path, reply_limit=3)
    sender = "chatty@example.test"
    acquaint(table, sender)
    got = []
    for i in range(5):
        got.append(table.send(sender, f"HELP\nthanks {i}"))
    assert [len(g) for g in got] == [1, 1, 1, 0, 0]
    assert "This is the 3rd answer to you within the last hour" in flat(got[2][0].body)
    assert "answered only if it signs on" not in flat(got[1][0].body)
    assert unanswered(table, sender) == ["not answered: 3 answers within the last hour"] * 2
    table.now += timedelta(hours=1)
    assert len(table.send(sender, "LIST")) == 1
    table.close()


def test_a_raised_reply_limit_answers_beyond_thirty(tmp_path: Path) -> None:
    table = Table(tmp_path, reply_limit=40)
    acquaint(table, "chatty@example.test")
    assert answered(table, "chatty@example.test", 42) == [1] * 40 + [0, 0]
    assert unanswered(table, "chatty@example.test") == ["not answered: 40 answers within the last hour"] * 2
    table.close()


def test_a_shorter_window_frees_the_sender_sooner(tmp_path: Path) -> None:
    table = Table(tmp_path, reply_limit=2, abuse_window_minutes=15)
    sender = "chatty@example.test"
    acquaint(table, sender)
    assert answered(table, sender, 3) == [1, 1, 0]
    assert unanswered(table, sender) == ["not answered: 2 answers within the last 15m"]
    table.now += timedelta(minutes=14)
    assert len(table.send(sender, "LIST")) == 0
    table.now += timedelta(minutes=1)
    assert len(table.send(sender, "LIST")) == 1
    table.close()


def test_the_same_text_limit_and_window(tmp_path: Path) -> None:
    table = Table(tmp_path, same_body_limit=2, same_body_window_minutes=30)
    bot = "away@example.test"
    acquaint(table, bot)
    text = "Thank you for your message. I am out of the office until Monday."
    assert [len(table.send(bot, text)) for _ in range(3)] == [1, 0, 0]
    assert unanswered(table, bot) == ["not answered: the same text 2 times in a row within the last 30m"] * 2
    table.now += timedelta(minutes=20)  # past the default 10 minutes, within the 30 set
    assert table.send(bot, text) == []
    table.now += timedelta(minutes=30)
    assert len(table.send(bot, text)) == 1
    table.close()


def test_a_raised_same_text_limit(tmp_path: Path) -> None:
    table = Table(tmp_path, same_body_limit=8)
    acquaint(table, "away@example.test")
    text = "Thank you for your message. I am out of the office until Monday."
    assert [len(table.send("away@example.test", text)) for _ in range(9)] == [1] * 7 + [0, 0]
    table.close()


# -- wrong passwords ------------------------------------------------------------------------------

def test_a_lowered_seat_limit_and_window(tmp_path: Path) -> None:
    table = Table(tmp_path, seat_failures=2, abuse_window_minutes=30)
    table.start_game()
    eng, evil = table.powers["England"], "guesser@example.test"
    acquaint(table, evil)
    out = table.send(evil, "SIGNON Etg guess0") + table.send(evil, "SIGNON Etg guess1")
    notices = [m for m in table.to(eng, out) if "Wrong passwords: England" in m.subject]
    assert len(notices) == 1 and "2 wrong passwords for England in 'tg' within the last 30m" in flat(notices[0].body)
    out = table.send(evil, table.signon("England"))
    assert "Too many wrong passwords" in table.reply_to(evil, out).body
    table.now += timedelta(minutes=30)
    out = table.send(evil, table.signon("England"))
    assert "Signed on as England" in table.reply_to(evil, out).body
    table.close()


def test_a_raised_seat_limit(tmp_path: Path) -> None:
    table = Table(tmp_path, seat_failures=8)
    table.start_game()
    eng, evil = table.powers["England"], "guesser@example.test"
    acquaint(table, evil)
    out = []
    for i in range(7):  # more than the default 5
        out += table.send(evil, f"SIGNON Etg guess{i}")
    assert not [m for m in table.to(eng, out) if "Wrong passwords" in m.subject]
    out = table.send(evil, table.signon("England"))
    assert "Signed on as England" in table.reply_to(evil, out).body
    out = table.send(evil, "SIGNON Etg guess7")
    assert [m for m in table.to(eng, out) if "Wrong passwords: England" in m.subject]
    table.close()


def test_a_lowered_sender_limit(tmp_path: Path) -> None:
    table = Table(tmp_path, sender_failures=3)
    table.start_game()
    evil = "spray@example.test"
    acquaint(table, evil)
    for i, seat in enumerate("EFG"):  # one guess a seat: no seat reaches its limit
        table.send(evil, f"SIGNON {seat}tg guess{i}")
    out = table.send(evil, "SIGNON Mtg masterpw")
    assert "Too many wrong passwords" in table.reply_to(evil, out).body
    table.close()


# -- reply sizes ----------------------------------------------------------------------------------

def test_lowered_reply_caps(tmp_path: Path) -> None:
    table = Table(tmp_path, max_echo_line=40, max_echo_chars=2_000, max_reply_chars=3_000)
    table.start_game()
    eng = table.powers["England"]
    out = table.send(eng, table.signon("England") + "\nA " + "x" * 100)
    body = table.reply_to(eng, out).body
    assert "> A " + "x" * 38 + " [...]\n" in body and "> A " + "x" * 39 not in body
    junk = "\n".join(f"zz{i} qq" for i in range(200))
    out = table.send(eng, table.signon("England") + "\nF Lon - Nth\n" + junk)
    body = table.reply_to(eng, out).body
    assert "This reply was cut here" in body and "error lines" in body
    assert body.count("*** Error") < 60  # the default 30 000 would show all 200
    out = table.send("p@example.test", "HELP\n" * 20)
    body = table.reply_to("p@example.test", out).body
    assert "This reply was cut here" in body and len(body) < 3_000 + 1_000
    table.close()


def test_raised_reply_caps(tmp_path: Path) -> None:
    junk = "\n".join(f"zz{i} qq" for i in range(2_000))  # ~90 000 characters of errors in the reply
    bodies = []
    for folder, settings in (("default", {}), ("raised", {"max_echo_chars": 200_000, "max_reply_chars": 300_000,
                                                          "max_reply_bytes": 2_000_000})):
        table = Table(tmp_path / folder, **settings)
        table.start_game()
        eng = table.powers["England"]
        out = table.send(eng, table.signon("England") + "\nF Lon - Nth\n" + junk)
        bodies.append(table.reply_to(eng, out).body)
        table.close()
    default, raised = bodies
    assert "This reply was cut here" in default and "zz1999" not in default
    assert "This reply was cut here" not in raised and "zz1999" in raised and len(raised) > 60_000


# -- from the configuration file ------------------------------------------------------------------

def write_config(path: Path, options: str) -> Path:
    path.write_text(f"""[judge]
address = "{JUDGE}"
db_path = "judge.sqlite"

[judge.options]
code = "TEST"
{options}

[imap]
host = "127.0.0.1"
user = "judge"
password = "pw"

[smtp]
host = "127.0.0.1"
""", encoding="utf-8")
    return path


def test_a_limit_from_the_configuration_file_reaches_the_mail_path(tmp_path: Path) -> None:
    """The daemon's way: TOML, load_config, the service Factory; then mail through Maildir."""
    path = write_config(tmp_path / "judge.toml", "reply_limit = 3\nsame_body_window_minutes = 2.5")
    judge = Factory(load_config(path).judge)()
    assert (judge.cfg.reply_limit, judge.cfg.same_body_window) == (3, timedelta(minutes=2.5))
    table = Table(tmp_path)  # its store is the file's db_path
    table.judge.close()
    table.judge = judge
    acquaint(table, "chatty@example.test")
    assert answered(table, "chatty@example.test", 5) == [1, 1, 1, 0, 0]
    table.close()


@pytest.mark.parametrize("options, message", [
    ("reply_limit = 0", "judge.options.reply_limit = 0: must be a whole number of at least 1"),
    ("seat_failures = -5", "judge.options.seat_failures = -5: must be a whole number of at least 1"),
    ('sender_failures = "10"', "judge.options.sender_failures = '10': must be a whole number of at least 1"),
    ("max_echo_chars = 2.5", "judge.options.max_echo_chars = 2.5: must be a whole number of at least 1"),
    ("max_reply_chars = true", "judge.options.max_reply_chars = True: must be a whole number of at least 1"),
    ("same_body_limit = 1", "judge.options.same_body_limit = 1: must be a whole number of at least 2"),
    ("abuse_window_minutes = 0", "judge.options.abuse_window_minutes = 0: must be a number of minutes greater than 0"),
    ("same_body_window_minutes = -1.5",
     "judge.options.same_body_window_minutes = -1.5: must be a number of minutes greater than 0"),
    ("same_body_window_minutes = inf",
     "judge.options.same_body_window_minutes = inf: must be a number of minutes greater than 0"),
])
def test_a_bad_value_names_the_setting(tmp_path: Path, options: str, message: str) -> None:
    with pytest.raises(ConfigError) as exc:
        load_config(write_config(tmp_path / "judge.toml", options))
    assert str(exc.value) == message


def test_the_judge_refuses_to_start_with_a_bad_value(tmp_path: Path) -> None:
    path = write_config(tmp_path / "judge.toml", "reply_limit = 0")
    runner = CliRunner()
    r = runner.invoke(main, ["serve", "--config", str(path)])  # the mail daemon
    assert r.exit_code == 2 and "judge.options.reply_limit = 0" in r.output
    for cmd in (["init", "--config", str(path)], ["deliver", "--config", str(path)]):
        r = runner.invoke(main, cmd, input="")
        assert r.exit_code != 0 and "reply_limit = 0: must be a whole number" in r.output, cmd
    assert not (tmp_path / "judge.sqlite").exists()


def test_a_bad_value_given_directly_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^reply_limit = 0: must be a whole number of at least 1$"):
        JudgeConfig(reply_limit=0)
    with pytest.raises(ValueError, match="abuse_window_minutes"):
        JudgeConfig(abuse_window_minutes=-60)


def test_the_daemon_section_accepts_good_values() -> None:
    t = {"judge": {"address": "judge@example.test", "options": {k: v * 2 for k, v in DEFAULTS.items()}},
         "imap": {"host": "h", "user": "u", "password": "p"}, "smtp": {"host": "h"}}
    section = parse_config(t).judge
    cfg = JudgeConfig(address=section.address, db_path=":memory:", **section.options)
    assert cfg.reply_limit == 60 and cfg.abuse_window == timedelta(hours=2)
