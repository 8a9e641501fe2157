"""The one place mail text is made: Jinja2 templates in ``templates/``.

``render(template_name, **context) -> (subject, text)`` renders a whole mail: the template's first line is
``Subject: …``, then a blank line, then the body. ``render_part(template_name, **context)`` renders a
piece (an order list, a LIST answer) that other mails include. Report pictures and HTML parts
(a later issue) are to be added here, without touching the service logic.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES_DIR = Path(__file__).resolve().parent.parent.parent / "templates"


@lru_cache(maxsize=4)
def _env(directory: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(directory),
        autoescape=False,  # plain text
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["plural"] = lambda n, word, many=None: word if n == 1 else (many or word + "s")
    env.filters["ljust"] = lambda s, width: str(s).ljust(int(width))
    env.filters["rjust"] = lambda s, width: str(s).rjust(int(width))
    return env


def render_part(template_name: str, /, **context: Any) -> str:
    """Render ``templates/<template_name>`` to text (no subject line)."""
    text = _env(str(TEMPLATES_DIR)).get_template(template_name).render(**context)
    return _tidy(text)


def render(template_name: str, /, **context: Any) -> tuple[str, str]:
    """Render a whole mail; returns ``(subject, body)``."""
    text = _env(str(TEMPLATES_DIR)).get_template(template_name).render(**context)
    first, _, body = text.partition("\n")
    if not first.startswith("Subject:"):
        raise ValueError(f"template {template_name} must start with a 'Subject:' line")
    subject = " ".join(first[len("Subject:"):].split())
    return subject, _tidy(body.lstrip("\n"))


def _tidy(text: str) -> str:
    """No trailing spaces, at most one blank line in a row, one final newline."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.rstrip()
        if not line and out and not out[-1]:
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return "\n".join(out) + "\n"
