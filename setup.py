"""Packaging beyond what pyproject.toml can say: the variants and templates ride in the wheel.

The top-level ``seeds/`` and ``templates/`` folders (where the layout keeps them, beside ``judge/``) are
mapped into the package as ``judge/seeds/`` and ``judge/templates/`` (with their subfolders), so an
installed judge finds them through importlib.resources (``judge/resources.py``). pyproject.toml's
``packages.find`` cannot map a folder outside ``judge/``, hence this file; all metadata stays there.
"""

from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
DATA = {"judge.seeds": "seeds", "judge.templates": "templates"}


def data_packages() -> dict[str, list[str]]:
    """Every data folder and subfolder as a package whose files (of every kind) are package data."""
    found: dict[str, list[str]] = {}
    for package, folder in DATA.items():
        for sub in sorted(p for p in [HERE / folder, *(HERE / folder).rglob("*")] if p.is_dir()):
            if sub.name != "__pycache__":
                rel = sub.relative_to(HERE / folder).parts
                found[".".join((package, *rel))] = ["*"]
    return found


PACKAGE_DATA = data_packages()

setup(
    packages=find_packages(include=["judge", "judge.*"]) + list(PACKAGE_DATA),
    package_dir=DATA,
    package_data=PACKAGE_DATA,
)
