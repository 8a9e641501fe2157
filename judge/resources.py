"""Where the judge's data lives: the variants (``seeds/``) and the mail and page templates (``templates/``).

In a source checkout both are top-level folders beside ``judge/``. In a wheel (``pip install .``,
``pipx``, a distro package) they ship inside the package as ``judge/seeds/`` and ``judge/templates/``
(``setup.py`` maps them there), found through :mod:`importlib.resources`. The packaged copy wins when
it exists, so an installed judge never reads a stray checkout; an editable install (``pip install -e .``)
and ``PYTHONPATH=checkout`` have no packaged copy and use the checkout's folders.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


@cache
def data_dir(name: str) -> Path:
    """The directory ``name`` (``"seeds"`` or ``"templates"``), packaged copy first, then the checkout's."""
    packaged = files("judge") / name
    # the users glob it, pass it to Jinja's FileSystemLoader and name files in error messages, so it
    # must be a real directory: a zipped install (zipimport) is not supported
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged.resolve()
    checkout = _CHECKOUT / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"the judge's {name}/ folder is missing: neither {packaged} (an installed "
                            f"wheel) nor {checkout} (a source checkout) exists; reinstall the judge")


def seeds_dir() -> Path:
    """The variants: one ``<name>.toml`` per variant (``docs/variant-format.md``)."""
    return data_dir("seeds")


def templates_dir() -> Path:
    """The Jinja templates of the mails (``*.txt``/``*.html``), the report (``report/``) and the archive."""
    return data_dir("templates")
