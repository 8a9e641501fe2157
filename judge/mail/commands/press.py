"""Press: messages between the powers, through the judge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.mail.commands import CommandError, command
from judge.mail.language import Command

if TYPE_CHECKING:
    from judge.mail.handler import Handler


@command("PRESS", who="player", syntax="PRESS TO <powers> ... ENDPRESS",
         summary="e.g. PRESS TO FG (letters, names, M, O, ALL, ALL BUT R); add GREY for no name")
def press(h: Handler, cmd: Command) -> None:
    h.send_press(cmd, broadcast=False)


@command("BROADCAST", who="player", syntax="BROADCAST ... ENDPRESS",
         summary="to everyone")
def broadcast(h: Handler, cmd: Command) -> None:
    h.send_press(cmd, broadcast=True)


@command("ENDPRESS", who="player", syntax="ENDPRESS",
         summary="ends a PRESS or BROADCAST (so does the end of the message)",
         aliases=("END PRESS", "ENDBROADCAST", "END BROADCAST"))
def endpress(h: Handler, cmd: Command) -> None:
    raise CommandError("ENDPRESS without PRESS or BROADCAST")
