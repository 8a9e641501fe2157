"""The real game service with one bug on demand, for the daemon's poison-mail tests (run in the
daemon's own process, named in its config as ``buggy_service:Judge``): a message whose text holds
TRIGGER-BUG makes the command handler raise, as a real bug would."""

from judge.mail import Judge, JudgeConfig  # noqa: F401  (the daemon's Factory looks for both)
from judge.mail import handler

_real_run = handler.Handler.run


def _run(self: handler.Handler) -> None:
    if "TRIGGER-BUG" in self.mail.text:
        raise ZeroDivisionError("a bug met by this message")
    _real_run(self)


handler.Handler.run = _run  # type: ignore[method-assign]
