"""Empires in Arms by mail: the AFA naval supplement as the games master's clerk.

Pure code (no I/O): :mod:`judge.eia.step` takes a state and the month's commands and returns the
next state, the events, the announcements and every die rolled. The tables are data
(``seeds/eia_afa.toml``, loaded by :mod:`judge.eia.data`); the dice are verifiable
(:mod:`judge.eia.dice`).
"""
