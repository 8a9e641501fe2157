"""The games: everything the judge keeps and decides between two mails.

:mod:`store` (SQLite), :mod:`config` (:class:`~judge.game.config.JudgeConfig`), :mod:`passwords`,
:mod:`orderbook` (a power's orders, stored and read back), :mod:`deadlines`, :mod:`lifecycle`
(create, join, process a phase, end a game), :mod:`results` (the results mail of a processed
phase), :mod:`outbox` (mail queued in the same transaction as what caused it), :mod:`archive`
(``judge publish``), :mod:`eia` (Empires in Arms games). Reports are rendered by
:mod:`judge.render`; the adjudicator is :mod:`judge.engine`; mail is :mod:`judge.mail`'s.
"""
