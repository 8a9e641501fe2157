"""Structured logging: every record is an event name plus key/value fields.

``log(logger, "imap.handled", uid=7, status="handled")`` writes, in JSON mode, one line
``{"ts": ..., "level": "INFO", "logger": ..., "event": "imap.handled", "uid": 7, "status": "handled"}``
so journald, grep and log shippers all get the same facts without parsing prose.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

_FIELDS = "judge_fields"


def log(logger: logging.Logger, event: str, level: int = logging.INFO, exc_info: bool = False,
        **fields: Any) -> None:
    if logger.isEnabledFor(level):
        logger.log(level, event, exc_info=exc_info, extra={_FIELDS: fields})


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "event": record.getMessage(),
        }
        out.update(getattr(record, _FIELDS, {}))
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        kv = " ".join(f"{k}={v!r}" for k, v in getattr(record, _FIELDS, {}).items())
        line = f"{self.formatTime(record)} {record.levelname} {record.name} {record.getMessage()} {kv}".rstrip()
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def setup_logging(level: str = "INFO", fmt: str = "json", file: str = "") -> None:
    handler: logging.Handler = logging.FileHandler(file, encoding="utf-8") if file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger("judge")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False
    # aioimaplib logs every ignored untagged line at INFO and protocol errors at ERROR; keep the errors
    lib = logging.getLogger("aioimaplib")
    lib.handlers[:] = [handler]
    lib.setLevel(logging.WARNING)
    lib.propagate = False
