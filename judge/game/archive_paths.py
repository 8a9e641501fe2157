"""Where ``judge publish`` puts a processed phase: its file name, and the map's address.

Read by the archive that writes the files and by the results mail that links to a map
(``SET MAP LINK``), which must not need the archive writer itself.
"""

from __future__ import annotations

import re


def phase_stem(seq: int, short: str) -> str:
    """The file name (without extension) of a processed phase in its game's folder: "003-F1901M"."""
    return f"{seq:03d}-{re.sub(r'[^A-Za-z0-9_-]', '', short)}"


def map_url(archive_url: str, game: str, seq: int, short: str) -> str:
    """Where the archive served at ``archive_url`` shows a phase's map (``SET MAP LINK``)."""
    return f"{archive_url.rstrip('/')}/{game}/{phase_stem(seq, short)}.png"
