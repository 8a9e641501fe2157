"""The judge as a user installs it: sdist -> wheel (python -m build), into a fresh venv, run from elsewhere.

A wheel once shipped without the variants and templates (`judge adjudicate` said "unknown variant
'standard' (known variants: )"), which no PYTHONPATH-based test could see. Here the venv's own copy of
the package must be the one imported, with no PYTHONPATH and the working directory outside the
checkout, so nothing can quietly fall back to the checkout's seeds/ or templates/.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parent.parent
# never copied into the build tree: VCS data, earlier build output, caches, demo and test leftovers
IGNORE = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".venv",
                                ".pytest_cache", ".hypothesis", "demo-out", "*.sqlite*")
POSITION = {"variant": "standard", "phase": "Spring 1901 Movement",
            "units": {"England": ["F Lon", "A Lvp"], "France": ["A Par", "A Mar"]}, "centers": {}}
ORDERS = "England: F Lon - Nth\nEngland: A Lvp - Yor\nFrance: A Par S A Mar - Bur\nFrance: A Mar - Bur\n"


def _data_files(folder: str) -> set[str]:
    """The checkout's files under ``folder`` as relative posix paths (what the wheel must carry)."""
    root = REPO / folder
    return {p.relative_to(root).as_posix() for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: int = 300):
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def _clean_env() -> dict[str, str]:
    """The environment without what would point Python at the checkout (or a judge database)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "JUDGE_DB")}


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> tuple[Path, Path]:
    """sdist and wheel, built as a distro would: the wheel from the unpacked sdist (python -m build)."""
    tmp = tmp_path_factory.mktemp("dist")
    # build from a copy so the checkout gets no build/ or *.egg-info while others work in it
    src = tmp / "src"
    shutil.copytree(REPO, src, ignore=IGNORE)
    _run([sys.executable, "-m", "build", "--outdir", str(tmp / "out"), str(src)], cwd=tmp, timeout=600)
    (sdist,) = (tmp / "out").glob("judge-*.tar.gz")
    (wheel,) = (tmp / "out").glob("judge-*.whl")
    return sdist, wheel


def _runtime_requirements(wheel: Path) -> list[Requirement]:
    """The wheel's own ``Requires-Dist`` lines without an extra: what an installed judge needs."""
    with zipfile.ZipFile(wheel) as whl:
        meta = next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))
        text = whl.read(meta).decode("utf-8")
    reqs = [Requirement(line.split(":", 1)[1].strip()) for line in text.splitlines()
            if line.startswith("Requires-Dist:")]
    return [r for r in reqs if r.marker is None or r.marker.evaluate({"extra": ""})]


def _dependency_dirs(reqs: list[Requirement]) -> list[str]:
    """The folders of this (the test-running) environment that hold ``reqs`` and everything they
    require in turn: the system's site-packages, a venv's, a user site, wherever pip put them."""
    dirs: list[str] = []
    todo, seen = list(reqs), set()
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = importlib.metadata.distribution(req.name)
        except importlib.metadata.PackageNotFoundError:
            if req.marker is None or req.marker.evaluate():
                raise
            continue  # only needed on other platforms or Pythons
        where = str(Path(str(dist.locate_file(""))).resolve())
        if where not in dirs:
            dirs.append(where)
        for line in dist.requires or []:
            sub = Requirement(line)
            if sub.marker is None or sub.marker.evaluate({"extra": ""}):
                todo.append(sub)
    return dirs


@pytest.fixture(scope="module")
def venv(dists, tmp_path_factory) -> Path:
    """A fresh venv (no system site-packages) with the wheel installed. It sees the dependencies
    where the environment running the tests has them (system Python, a venv, a user site): a
    ``.pth`` file lists those folders, after the venv's own, so the judge imported is the venv's and
    nothing is downloaded. The versions found there must meet the wheel's declared requirements."""
    root = tmp_path_factory.mktemp("venv") / "v"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(root)], check=True,
                       capture_output=True, text=True, timeout=300, env=_clean_env())
    except (subprocess.CalledProcessError, OSError) as exc:
        pytest.skip(f"cannot create a venv on this machine (python -m venv failed: {exc})")
    python = str(root / "bin" / "python")
    reqs = _runtime_requirements(dists[1])
    site = _run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=root,
                env=_clean_env()).stdout.strip()
    # a .pth line only adds its folder to sys.path: the .pth files inside it (an editable judge of the
    # checkout among them) are not run, so they cannot shadow the wheel
    (Path(site) / "test-environment-deps.pth").write_text("\n".join(_dependency_dirs(reqs)) + "\n")
    # --force-reinstall: a judge of the same version among those folders (an editable checkout) would
    # otherwise count as "already satisfied" and the venv would get nothing; --no-deps: they are there
    _run([python, "-m", "pip", "install", "-q", "--no-index", "--force-reinstall", "--no-deps", str(dists[1])],
         cwd=root, env=_clean_env())
    versions = json.loads(_run([python, "-c", "import importlib.metadata as m, json, sys; print(json.dumps("
                                "{n: m.version(n) for n in sys.argv[1:]}))", *(r.name for r in reqs)],
                               cwd=root, env=_clean_env()).stdout)
    for req in reqs:
        assert req.specifier.contains(versions[req.name], prereleases=True), \
            f"the wheel requires {req}, the environment has {versions[req.name]}"
    return root


@pytest.fixture()
def outside(tmp_path) -> tuple[Path, dict[str, str]]:
    """A working directory outside the checkout and an environment without PYTHONPATH."""
    env = _clean_env()
    assert not tmp_path.resolve().is_relative_to(REPO)
    return tmp_path, env


def test_wheel_carries_every_seed_and_template(dists):
    with zipfile.ZipFile(dists[1]) as whl:
        names = set(whl.namelist())
    for folder in ("seeds", "templates"):
        shipped = {n.removeprefix(f"judge/{folder}/") for n in names if n.startswith(f"judge/{folder}/")}
        assert shipped == _data_files(folder), folder
        assert not any(n.startswith(f"{folder}/") for n in names), f"a top-level {folder}/ in site-packages"
    assert {"judge/seeds/eia_afa.toml", "judge/templates/report/results.txt",
            "judge/templates/archive/index.html", "judge/templates/eia_gazette.txt"} <= names
    assert not any(n.startswith("tests/") for n in names)


def test_sdist_carries_seeds_and_templates(dists):
    with tarfile.open(dists[0]) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    for folder in ("seeds", "templates"):
        assert {f"{folder}/{f}" for f in _data_files(folder)} <= names, folder
    assert {"setup.py", "MANIFEST.in", "pyproject.toml", "LICENSE", "judge/resources.py"} <= names


def test_installed_judge_uses_its_own_files(venv, outside):
    cwd, env = outside
    code = ("import json, judge, judge.resources as r, judge.variant as v; print(json.dumps("
            "[judge.__file__, str(r.seeds_dir()), str(r.templates_dir()), v.available_variants()]))")
    r = _run([str(venv / "bin" / "python"), "-c", code], cwd=cwd, env=env)
    module, seeds, templates, variants = json.loads(r.stdout)
    for path in (module, seeds, templates):
        assert Path(path).resolve().is_relative_to(venv.resolve()), path
        assert not Path(path).resolve().is_relative_to(REPO), path
    assert {"standard", "deluge2", "1885", "coast_running", "af_standard"} <= set(variants)


def test_installed_judge_adjudicates(venv, outside):
    cwd, env = outside
    judge = str(venv / "bin" / "judge")
    (cwd / "pos.json").write_text(json.dumps(POSITION))
    (cwd / "orders.txt").write_text(ORDERS)
    r = _run([judge, "adjudicate", "--variant", "standard", "--position", "pos.json", "--orders", "orders.txt"],
             cwd=cwd, env=env)
    out = json.loads(r.stdout)
    assert {o["order"]: o["result"] for o in out["orders"]} == {
        "F Lon - Nth": "succeeds", "A Lvp - Yor": "succeeds", "A Par S A Mar - Bur": "succeeds",
        "A Mar - Bur": "succeeds"}
    assert out["next"]["phase"] == "Fall 1901 Movement"
    # the refusal names the variants the installed judge knows
    r = subprocess.run([judge, "adjudicate", "--variant", "nonesuch", "--position", "pos.json"], cwd=cwd,
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "unknown variant 'nonesuch'" in r.stderr and "standard" in r.stderr, r.stderr


def test_installed_judge_plays_the_demo_and_publishes(venv, outside):
    """The demo renders every mail template and the report; publish renders the archive's."""
    cwd, env = outside
    judge = str(venv / "bin" / "judge")
    r = _run([judge, "demo", "--out", "demo", "--quiet", "--max-years", "1"], cwd=cwd, env=env)
    assert "Demo finished" in r.stdout, r.stdout
    reports = sorted(p.name for p in (cwd / "demo" / "reports").iterdir())
    assert any(n.endswith("-Results.txt") for n in reports), reports
    results = next((cwd / "demo" / "reports").glob("*S1901M-Results.txt")).read_text(encoding="utf-8")
    assert "Spring 1901" in results or "S1901M" in results
    r = _run([judge, "publish", "--db", str(cwd / "demo" / "judge.sqlite"), "archive"], cwd=cwd, env=env)
    assert json.loads(r.stdout)["games"] == 1
    assert "<html" in (cwd / "archive" / "index.html").read_text(encoding="utf-8").lower()


def test_installed_judge_loads_the_eia_tables(venv, outside):
    cwd, env = outside
    r = _run([str(venv / "bin" / "judge"), "eia", "new", "--game", "g", "--secret", "ab" * 16], cwd=cwd, env=env)
    state = json.loads(r.stdout)
    assert state["month"] == "1805-01" and "England" in state["nations"]


def test_lowest_constraints_pin_every_declared_floor():
    """.ci/lowest.txt (what CI tests the lowest versions with) pins each runtime and test dependency
    at exactly the floor pyproject.toml declares, and nothing else."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    floors: dict[str, str] = {}
    for line in [*project["dependencies"], *project["optional-dependencies"]["test"]]:
        req = Requirement(line)
        (floor,) = [s.version for s in req.specifier if s.operator == ">="]
        floors[canonicalize_name(req.name)] = floor
    pins: dict[str, str] = {}
    for line in (REPO / ".ci" / "lowest.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            req = Requirement(line)
            (pin,) = [s.version for s in req.specifier if s.operator == "=="]
            pins[canonicalize_name(req.name)] = pin
    assert {n: Version(v) for n, v in pins.items()} == {n: Version(v) for n, v in floors.items()}
