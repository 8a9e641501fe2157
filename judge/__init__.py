"""A play-by-email Diplomacy judge.

Layout, read as a story: mail in (``judge.mail``) → commands (``judge.service``)
→ game → adjudicator (``judge.engine``, pure, no I/O) → report → mail out.
"""

__version__ = "0.1.0"
