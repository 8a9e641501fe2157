"""A seed's parsed TOML kept beside it (``__pycache__/<name>.toml.marshal``): used only for the very
text it was read from, written only where Python writes byte code, never in the way."""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from judge import variant as variant_module
from judge.variant import SEEDS_DIR, VariantError, available_variants, load_variant


@pytest.fixture
def seeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(SEEDS_DIR / "standard.toml", tmp_path / "standard.toml")
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return tmp_path


def fresh(seeds: Path, name: str = "standard"):
    variant_module.forget_loaded_variants()
    return load_variant(name, seeds)


def no_toml(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(text: str):
        raise AssertionError("the seed was parsed again")
    monkeypatch.setattr(tomllib, "loads", refuse)


def test_the_second_process_reads_the_cache(seeds: Path, monkeypatch: pytest.MonkeyPatch):
    first = fresh(seeds)
    cache = seeds / "__pycache__" / "standard.toml.marshal"
    assert cache.is_file() and not list(cache.parent.glob("*.marshal.*"))  # no part file left
    with monkeypatch.context() as m:
        no_toml(m)
        again = fresh(seeds)
        assert available_variants(seeds) == ["standard"]
    assert again.rules == first.rules and again.powers == first.powers
    assert again.map.provinces == first.map.provinces and again.map.army_adj == first.map.army_adj
    assert again.raw == first.raw and again.start_position() == first.start_position()


def test_a_changed_seed_is_read_again(seeds: Path, monkeypatch: pytest.MonkeyPatch):
    fresh(seeds)
    text = (seeds / "standard.toml").read_text(encoding="utf-8")
    (seeds / "standard.toml").write_text(text.replace("[variant]", "[variant]\n# edited", 1), encoding="utf-8")
    parsed = []
    real = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda t: parsed.append(t) or real(t))
    fresh(seeds)
    assert parsed and parsed[-1].count("# edited") == 1
    parsed.clear()
    fresh(seeds)  # the cache now holds the edited text
    assert not parsed


def test_a_broken_seed_is_still_an_error_and_a_broken_cache_is_ignored(seeds: Path):
    fresh(seeds)
    cache = seeds / "__pycache__" / "standard.toml.marshal"
    cache.write_bytes(b"\x00garbage")
    assert fresh(seeds).name == "standard"
    (seeds / "standard.toml").write_text("[variant\nname = 'standard'\n", encoding="utf-8")
    with pytest.raises(VariantError, match="cannot read"):
        fresh(seeds)


def test_nothing_written_where_python_writes_no_byte_code(seeds: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    fresh(seeds)
    assert not (seeds / "__pycache__").exists()
