"""A date in a mail's text is never split over two lines when its line wraps at 72 columns (the
Game Starting mail, the orders status): a reader on a phone sees "Tue Jan 08 2030 12:00:00
+0000" whole, and no no-break space (what keeps it whole for the wrapper) reaches the mail."""

from __future__ import annotations

import re
from pathlib import Path

from test_service_helpers import Table

DATE = r"\w{3} \w{3} \d\d \d{4} \d\d:\d\d:\d\d [+-]\d{4}"


def test_the_game_starting_mail_keeps_its_deadline_whole(tmp_path: Path) -> None:
    t = Table(tmp_path)
    try:
        t.start_game()
        for power in ("France", "Russia"):
            (start,) = [m for m in t.to(t.powers[power]) if "Starting" in m.subject]
            body = start.body
            assert "\xa0" not in body
            assert re.search(rf"The deadline for orders is\s+{DATE}\.", body), body
            assert all(len(line) <= 72 for line in body.split("\n") if not line.startswith("::")), body
            assert re.search(rf"^{DATE}\.$|is {DATE}\.$", body, re.M), body  # (the date on one line)
    finally:
        t.close()
