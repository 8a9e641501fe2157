"""The game service: the judge as players and masters know it, independent of how mail arrives.

mail in (``mailparse``) → commands (``commands``, ``handler``) → game (``game``, ``orderbook``,
``deadlines``) → adjudicator (``judge.engine``) → report (``report``, ``render``) → mail out
(``outbox``). Transports: ``maildir`` (embedded default), ``pipe`` (``judge deliver``); the
IMAP/SMTP daemon drives :class:`Judge` the same way.
"""

from judge.service.config import JudgeConfig
from judge.service.judge import Judge
from judge.service.outbox import OutboxItem

__all__ = ["Judge", "JudgeConfig", "OutboxItem"]
