"""The one place mail is made, and the one Jinja2 setup: templates in ``templates/``.

``render(template_name, **context) -> (subject, body)`` renders a whole mail: the template's first
line is ``Subject: …``, then a blank line, then the body. ``render_part(template_name, **context)``
renders a piece (an order list, a LIST answer) that other mails include.

Every body is a :class:`MailText`: the plain text (over-long lines wrapped at 72 columns) with the
HTML part riding along, so the service passes it around as a string and :mod:`judge.game.outbox` makes a
``multipart/alternative`` mail of it. The HTML part comes from the sibling template
``templates/X.html`` when there is one (Jinja2 with autoescape), else from the text laid out
block by block (:func:`text_to_html`). Results mails carry the zine report of
:func:`judge.render.zine.render_results` and its map pictures (:func:`results_mail`), whose
templates (``templates/report/``) render through :func:`render_report`.
"""

from __future__ import annotations

import re
import textwrap
from functools import lru_cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Iterable

import jinja2
import jinja2.ext
from markupsafe import Markup, escape

from judge.resources import templates_dir

if TYPE_CHECKING:
    from judge.render.zine import Attachment, Report

TEMPLATES_DIR = templates_dir()
_TEMPLATES = str(TEMPLATES_DIR)  # (the key of the remembered templates: not made afresh for every mail)
WIDTH = 72
#: joins the words of one province name so that wrapping never splits "North Sea"
NBSP = "\xa0"


def nb(text: object) -> str:
    """``text`` with its words joined by :data:`NBSP`: :func:`wrap_text` never breaks it."""
    return str(text).replace(" ", NBSP)


#: inline styles shared by the generic layout and the ``*.html`` templates (mail clients drop <style>)
CSS = {
    "body": "margin:0;padding:14px;background:#efeadf;",
    "page": ("max-width:780px;margin:0 auto;background:#fffdf7;border:1px solid #d9d0bb;padding:18px 24px;"
             "font-family:Georgia,'Times New Roman',serif;font-size:15px;line-height:1.5;color:#222;"),
    "meta": "margin:0 0 12px;font-size:12px;letter-spacing:0.04em;color:#7a6f5a;",
    "p": "margin:8px 0;",
    "pre": ("margin:8px 0;font-family:'Courier New',Courier,monospace;font-size:13px;line-height:1.35;"
            "white-space:pre-wrap;"),
    "echo": ("margin:8px 0;padding:4px 8px;background:#f3eee0;border-left:3px solid #c9bd9f;"
             "font-family:'Courier New',Courier,monospace;font-size:13px;white-space:pre-wrap;"),
    "error": "margin:8px 0;color:#b3261e;font-weight:bold;",
    "hr": "border:0;border-top:1px solid #d9d0bb;margin:14px 0;",
    "h2": ("font-size:15px;letter-spacing:0.06em;text-transform:uppercase;border-bottom:1px solid #d9d0bb;"
           "margin:22px 0 8px;padding-bottom:2px;color:#5a4f3a;"),
    "table": "border-collapse:collapse;font-size:14px;",
    "th": "padding:3px 10px 3px 0;text-align:left;border-bottom:1px solid #d9d0bb;vertical-align:bottom;",
    "td": "padding:3px 10px 3px 0;vertical-align:top;",
    "num": "padding:3px 0 3px 10px;text-align:right;vertical-align:top;",
    "press": ("margin:10px 0;padding:6px 10px;border-left:3px solid #c9bd9f;background:#faf6ea;"
              "font-family:'Courier New',Courier,monospace;font-size:14px;white-space:pre-wrap;overflow-wrap:anywhere;"),
}


class MailText(str):
    """A mail body: the plain text, with its HTML part and attachments (``judge.render.zine.Attachment``)."""

    html: str | None
    attachments: tuple["Attachment", ...]

    def __new__(cls, text: str, html: str | None = None, attachments: Iterable["Attachment"] = ()) -> "MailText":
        obj = super().__new__(cls, text)
        obj.html = html
        obj.attachments = tuple(attachments)
        return obj


# -- environments --------------------------------------------------------------------------------
@lru_cache(maxsize=4)
def _env(directory: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(directory),
        autoescape=False,  # plain text
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        auto_reload=False,  # templates ship with the package: no stat of the file at every use
    )
    env.filters["plural"] = _plural
    env.filters["ljust"] = lambda s, width: str(s).ljust(int(width))
    env.filters["rjust"] = lambda s, width: str(s).rjust(int(width))
    env.filters["whole"] = nb  # (a date, a phase's name: kept on one line by wrap_text)
    return env


_CSS_FIELD = re.compile(r"\{\{\s*css\.([a-z0-9_]+)\s*\}\}")


class _InlineCss(jinja2.ext.Extension):
    """Writes each ``{{ css.name }}`` of an HTML template as its text, escaped as autoescape
    would escape it at every render: the styles never change, and a reply's two HTML templates
    asked for and escaped a score of them in every mail. A name :data:`CSS` does not hold is
    left to the render (an error there, as before)."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return _CSS_FIELD.sub(lambda m: str(escape(CSS[m[1]])) if m[1] in CSS else m[0], source)


@lru_cache(maxsize=4)
def _html_env(directory: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(directory),
        autoescape=True,  # everything a player wrote is escaped
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        auto_reload=False,  # templates ship with the package: no stat of the file at every use
        extensions=[_InlineCss],
    )
    env.filters["plural"] = _plural
    env.filters["text_html"] = text_to_html
    env.filters["part"] = part_html
    env.filters["parts"] = parts_html
    # as attributes: templates write ``css.p``, which Jinja tries as an attribute first (on the
    # dict, an AttributeError raised and caught each time)
    env.globals["css"] = SimpleNamespace(**CSS)
    return env


@lru_cache(maxsize=4)
def _report_env(directory: str) -> jinja2.Environment:
    """The zine report's templates: one ``.txt`` and one ``.html`` (autoescaped) for each report."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(directory),
        autoescape=jinja2.select_autoescape(["html"], default_for_string=False, default=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        auto_reload=False,  # templates ship with the package: no stat of the file at every use
    )
    env.filters["wrap"] = wrap
    env.filters["wrap_lines"] = wrap_lines
    return env


def _plural(n: int, word: str, many: str | None = None) -> str:
    return word if n == 1 else (many or word + "s")


@lru_cache(maxsize=None)
def _html_template(template_name: str) -> str | None:
    # remembered: the templates ship with the package (auto_reload is off), so no stat a mail
    name = re.sub(r"\.txt$", ".html", template_name)
    return name if name != template_name and (TEMPLATES_DIR / name).is_file() else None


@lru_cache(maxsize=256)
def _template(directory: str, name: str, html: bool = False) -> jinja2.Template:
    # a mail's templates without Jinja's look-up each time (its loader cache is checked per call);
    # the templates ship with the package (auto_reload is off), so a Template once loaded stays
    template = (_html_env if html else _env)(directory).get_template(name)
    # its globals as a plain dict, not Jinja's ChainMap over the environment's: every render copies
    # them twice (into the context and its key set), a ChainMap key by key in Python. The
    # environment's globals are all set where it is made, before any template is loaded.
    template.globals = dict(template.globals)
    return template


# -- rendering -----------------------------------------------------------------------------------
def render_part(template_name: str, /, **context: Any) -> MailText:
    """Render ``templates/<template_name>`` to text (no subject line), with its HTML sibling if any."""
    text = tidy(_template(_TEMPLATES, template_name).render(**context))
    sibling = _html_template(template_name)
    html = _template(_TEMPLATES, sibling, html=True).render(**context) if sibling else None
    return MailText(text, html)


def render(template_name: str, /, *, width: int = WIDTH, **context: Any) -> tuple[str, MailText]:
    """Render a whole mail; returns ``(subject, body)``. Lines longer than ``width`` are wrapped
    (a mail carrying press passes :data:`PRESS_KEEP`: its press is laid out by :func:`press_text`)."""
    text = _template(_TEMPLATES, template_name).render(**context)
    first, _, body = text.partition("\n")
    if not first.startswith("Subject:"):
        raise ValueError(f"template {template_name} must start with a 'Subject:' line")
    subject = " ".join(first[len("Subject:"):].split())
    body = tidy(body.lstrip("\n"))
    sibling = _html_template(template_name)
    if sibling:
        html = _template(_TEMPLATES, sibling, html=True).render(page_title=subject, **context)
    else:
        html = page(subject, text_to_html(body))
    return subject, MailText(wrap_text(body, width), html)


def page(subject: str, content: str) -> str:
    """A whole HTML document around ``content`` (already HTML)."""
    return _template(_TEMPLATES, "_page.html", html=True).render(page_title=subject, content=Markup(content))


def render_page(template_name: str, /, **context: Any) -> str:
    """An HTML page that is not a mail (``judge publish``): ``templates/<template_name>``, autoescaped."""
    return _html_env(str(TEMPLATES_DIR)).get_template(template_name).render(**context)


def results_mail(report: "Report", **context: Any) -> tuple[str, MailText]:
    """A results mail: ``templates/results.txt`` (its njudge ``::`` lines, then the zine text of
    ``report``); the HTML part and the map pictures are the report's own."""
    subject, text = render("results.txt", width=PRESS_KEEP, body=report.text, **context)  # its press as written
    return subject, MailText(text, report.html, report.attachments)


def render_report(template_name: str, /, **context: Any) -> str:
    """Render ``templates/report/<template_name>`` (a part of the zine report)."""
    return _report_env(str(TEMPLATES_DIR / "report")).get_template(template_name).render(**context)


_BLANK_RUN = re.compile(r"\n{3,}")


def tidy(text: str) -> str:
    """No trailing spaces, at most one blank line in a row, one final newline."""
    lines = [line if line == "-- " else line.rstrip() for line in text.splitlines()]  # keep a signature separator
    # (blank lines are empty now: a run of them is a run of line ends)
    return _BLANK_RUN.sub("\n\n", "\n".join(lines)).strip("\n") + "\n"


# -- the text part: 72 columns -------------------------------------------------------------------
def wrap_line(line: str, width: int = WIDTH) -> list[str]:
    """One line, wrapped if longer than ``width``. Continuation lines keep its indent (two more
    after an echoed command ``> …`` or an error ``*** …``), or line up under its last column
    (``SET NAME x      what it does``). ``::`` header lines are left alone (mappers read them),
    and so is a single word longer than the line (a URL)."""
    if len(line) <= width or line.startswith("::"):
        return [line]
    # (only lines of a reply's size are remembered: a junk mail's huge line would only crowd them)
    return list(_wrapped(line, width) if len(line) <= 1000 else _wrapped.__wrapped__(line, width))


@lru_cache(maxsize=512)
def _wrapped(line: str, width: int) -> tuple[str, ...]:
    """:func:`wrap_line` of a long line, remembered: the long lines of replies are mostly the
    judge's own (a phase's deadline and status lines, alike in every reply of the phase), and
    textwrap was a tenth of a reply's rendering."""
    lead = line[:len(line) - len(line.lstrip(" "))]
    more = lead + ("  " if line.lstrip().startswith((">", "***")) else "")
    columns = [m.end() for m in re.finditer(r"\S {2,}(?=\S)", line[:width // 2 + 4])]
    if columns and not line.lstrip().startswith((">", "***")):
        more = " " * columns[-1]
    return tuple(textwrap.wrap(line, width, initial_indent="", subsequent_indent=more, break_long_words=False,
                               break_on_hyphens=False, drop_whitespace=True) or [line])


def wrap(text: str, indent: int = 4) -> str:
    """One paragraph, wrapped at 72 columns with a hanging indent; names stay whole."""
    flat = re.sub(r"[ \t\r\n]+", " ", text).strip()
    out = textwrap.fill(flat, WIDTH, subsequent_indent=" " * indent, break_long_words=False,
                        break_on_hyphens=False)
    return out.replace(NBSP, " ")


#: press lines up to this long are left as their writer (or the writer's mail program) broke them:
#: RFC 5322's recommended line length, which hard-wrapping clients stay within (76-78 columns)
PRESS_KEEP = 78


def press_line(line: str, width: int = WIDTH, keep: int = PRESS_KEEP) -> list[str]:
    """One line of press as its reader gets it: kept whole up to ``keep`` columns; a longer one (a
    paragraph its mail program sent as one line) wrapped at ``width`` at spaces only (a word
    longer than the line, a URL, stays whole), its indent kept, and never ending on a lone word
    when a slightly narrower wrap keeps two words together."""
    line = line.rstrip()
    if len(line) <= keep:
        return [line]
    lead = line[:len(line) - len(line.lstrip(" "))]
    words = line.split()
    out: list[str] = []
    for w in range(width, max(width - 16, len(lead) + 20) - 1, -1):
        out = textwrap.wrap(line, w, initial_indent="", subsequent_indent=lead, break_long_words=False,
                            break_on_hyphens=False)
        if len(out) < 2 or len(out[-1].split()) > 1 or len(words) < 4:
            break
    return out or [line]


def press_text(text: str, indent: int = 0, keep: int = PRESS_KEEP) -> str:
    """Press as written: the writer's own line breaks and blank lines kept, only lines longer than
    ``keep`` wrapped (:func:`press_line`); every line indented by ``indent``. ``keep=WIDTH`` for
    a mail whose other lines are wrapped at :data:`WIDTH` (a notice quoting diaries)."""
    pad = " " * indent
    lines: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        lines += [pad + part if part else "" for part in press_line(line, WIDTH - indent, keep - indent)]
    return "\n".join(lines).strip("\n")


def wrap_lines(text: str, indent: int = 2) -> str:
    """Free text (press) in the zine report: :func:`press_text`, every line indented."""
    return press_text(text, indent)


def wrap_text(text: str, width: int = WIDTH) -> str:
    """Every line wrapped at ``width``; words joined by :data:`NBSP` stay on one line, and the
    joins become spaces again."""
    lines = text.split("\n")
    if max(map(len, lines)) <= width:  # (most replies: no line to wrap)
        return text.replace(NBSP, " ")
    out: list[str] = []
    for line in lines:
        if len(line) <= width:  # (wrap_line's own first test: most lines, without the call)
            out.append(line)
        else:
            out.extend(wrap_line(line, width))
    return "\n".join(out).replace(NBSP, " ")


# -- the HTML part of a text -----------------------------------------------------------------------
def _kind(line: str) -> str:
    s = line.strip()
    if line.startswith("::"):
        return "meta"
    if line.startswith(">"):
        return "echo"
    if s.startswith("***"):
        return "error"
    if s and set(s) <= set("-=#*") and len(s) >= 4:
        return "rule"
    if line.startswith((" ", "\t")) or "  " in s:
        return "pre"  # indented or laid out in columns
    return "p"


def text_to_html(text: str) -> Markup:
    """Plain text as HTML with its structure: header lines, echoed commands, errors, column
    layouts kept monospaced, paragraphs with their line breaks. Everything is escaped."""
    text = str(text).replace("\r\n", "\n")
    if "\n" not in text:  # one line (most of a reply's sections): one group, or nothing
        return Markup(_html_group(_kind(text), [text]) if text.strip() else "")
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        kind = _kind(lines[i])
        j = i + 1
        if kind == "pre":  # a column layout runs on through its short prose lines
            while j < len(lines) and lines[j].strip() and _kind(lines[j]) in ("pre", "p"):
                j += 1
        elif kind not in ("rule",):
            while j < len(lines) and lines[j].strip() and _kind(lines[j]) == kind:
                j += 1
        out.append(_html_group(kind, lines[i:j]))
        i = j
    return Markup("\n".join(out))


def _html_group(kind: str, group: list[str]) -> str:
    """One group of lines of one kind (:func:`_kind`), as HTML."""
    esc = str(escape("\n".join(group))).split("\n")  # one escape a group (it leaves line ends alone)
    if kind == "meta":
        return f'<p style="{CSS["meta"]}">' + "<br />".join(e.lstrip(":").strip() for e in esc) + "</p>"
    if kind == "echo":
        return f'<div style="{CSS["echo"]}">' + "\n".join(esc) + "</div>"
    if kind == "error":
        return f'<p style="{CSS["error"]}">' + "<br />".join(esc) + "</p>"
    if kind == "rule":
        return f'<hr style="{CSS["hr"]}" />'
    if kind == "pre":
        return f'<div style="{CSS["pre"]}">' + "\n".join(esc) + "</div>"
    return f'<p style="{CSS["p"]}">' + "<br />".join(esc) + "</p>"


def part_html(section: Any) -> Markup:
    """A piece of a mail: its own HTML if it was rendered from a template with an HTML sibling."""
    html = getattr(section, "html", None)
    if html:
        return Markup(html)
    return text_to_html(str(section))


def parts_html(sections: Iterable[Any]) -> Markup:
    """The pieces of a mail as HTML, one line apart: one filter call a reply, not a template loop
    (a reply has a dozen sections, most of them blank lines, each a few Jinja calls)."""
    return Markup("\n".join([part_html(s) if s or getattr(s, "html", None) else "" for s in sections]))


def mail_html(subject: str, text: str) -> str:
    """The HTML part of a mail that was not rendered here (its text laid out)."""
    return page(subject, text_to_html(text))
