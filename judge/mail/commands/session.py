"""The reading of one message."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.mail.commands import Stop, command
from judge.mail.language import Command

if TYPE_CHECKING:
    from judge.mail.handler import Handler


@command("SIGNOFF", who="anyone", syntax="SIGNOFF",
         summary="stop reading here",
         aliases=("SIGN OFF", "LOGOUT"), example="SIGNOFF")
def signoff(h: Handler, cmd: Command) -> None:
    raise Stop
