"""A play-by-email Diplomacy judge.

Layout, read as a story: mail in and commands (``judge.mail``) → game (``judge.game``) →
orders and adjudicator (``judge.orders``, ``judge.engine``: pure, no I/O) → report
(``judge.render``) → mail out (``judge.game.outbox``, sent by ``judge.mail`` or ``judge.daemon``).
``judge.demo`` plays games with robot players; ``tests/test_layout.py`` holds the arrows.
"""

__version__ = "0.1.0"
