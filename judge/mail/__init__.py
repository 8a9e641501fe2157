"""The judge by mail: mail in, commands, answers out, independent of how mail arrives.

:mod:`incoming` reads a message (MIME, charsets, :mod:`newtext` strips quotes and signatures);
:mod:`language` splits it into commands; :mod:`handler` (with :mod:`eia` for Empires in Arms
and :mod:`abuse` for loops, floods and password guessing) carries them out on the game
(:mod:`judge.game`); :mod:`receive` (:class:`Judge`) ties it together, one transaction a mail.
Transports: :mod:`maildir` (embedded default), :mod:`pipe` (``judge deliver``); the IMAP/SMTP
daemon (:mod:`judge.daemon`) drives :class:`Judge` the same way. :mod:`cli` holds the mail
side's console commands.
"""

from judge.game.config import JudgeConfig
from judge.game.outbox import OutboxItem
from judge.mail.receive import Judge

__all__ = ["Judge", "JudgeConfig", "OutboxItem"]
