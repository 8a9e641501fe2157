"""Shared test fixtures."""

from __future__ import annotations

import logging
import os

import pytest
from hypothesis import settings

# CI draws the property tests' examples from a fixed seed: a red CI stops a landing, so whether it
# passes must not depend on the draw. On a developer's machine they explore anew on every run
# (and a failure found there becomes a named test).
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _restore_judge_logging():
    """Give back the "judge" logger as it was: the daemon's setup_logging (run in-process by the
    mail tests) replaces its handlers and stops propagation, which would hide later tests' logs
    from pytest's capture."""
    logger = logging.getLogger("judge")
    saved = (list(logger.handlers), logger.propagate, logger.level)
    yield
    logger.handlers[:], logger.propagate, logger.level = saved[0], saved[1], saved[2]


@pytest.fixture
def table(tmp_path):
    """A judge with its own store and mail folders (tests/test_service_helpers.py), closed after.
    A test file that needs a game started or another kind of table defines its own."""
    from test_service_helpers import Table

    t = Table(tmp_path)
    yield t
    t.close()
