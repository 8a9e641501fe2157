"""The layout tells the story (issue 15): imports go one way, and no two modules need each other.

mail in → commands → game → adjudicator → report → mail out, as packages::

    engine ← orders ← game ← mail ← demo
    engine ← render ← game, mail

The adjudicator (``engine``) is pure; ``variant`` and ``rules`` are the data every layer reads;
entry points (``cli`` modules) and the daemon sit on top. Each module is read with :mod:`ast`
(lazy imports inside functions count too: a cycle that only bites at run time is still a cycle;
imports under ``if TYPE_CHECKING:`` do not, they run only in a type checker).
A short list of known exceptions names the step of the layout work that removes each one; the
test fails when an exception is no longer needed, so the list only shrinks.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "judge"

#: layer -> the layers its modules may import (besides their own)
ALLOWED: dict[str, set[str]] = {
    "base": set(),  # judge/__init__, variant, rules, resources: the data everything reads (and where it lies)
    "engine": {"base"},
    "eia": {"base", "engine"},  # Empires in Arms rules: pure, like the engine
    "orders": {"base", "engine"},
    "mapdraw": {"base", "engine"},
    "adjudicate": {"base", "engine", "orders"},
    "render": {"base", "engine", "mapdraw", "eia"},
    "game": {"base", "engine", "orders", "mapdraw", "render", "eia"},
    "mail": {"base", "engine", "orders", "render", "game", "eia"},
    "demo": {"base", "engine", "orders", "render", "game", "mail", "eia"},
    "daemon": {"base", "game", "mail"},
    "cli": {"base", "engine", "eia", "orders", "mapdraw", "adjudicate", "render", "game", "mail",
            "demo", "daemon"},
}

#: (importer, imported) arrows against the story that are still there, each with the step that removes it
KNOWN_ARROWS: set[tuple[str, str]] = set()

#: module cycles still there, as sorted tuples of modules, each with the step that removes it
KNOWN_CYCLES: set[tuple[str, ...]] = set()

BASE = {"judge", "judge.variant", "judge.rules", "judge.resources"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in ROOT.rglob("*.py")}


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The judge modules ``name`` imports, anywhere in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If) and _is_type_checking(block.test)
                   for stmt in block.body for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue  # ``if TYPE_CHECKING:`` names types for the reader, it imports nothing
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from judge.x import y`` imports the module judge.x.y when there is one
            targets = [f"{target}.{a.name}" if f"{target}.{a.name}" in known else target
                       for a in node.names]
        else:
            continue
        found.update(t for t in targets if t == "judge" or t.startswith("judge."))
    found.discard(name)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def layer(name: str) -> str:
    if name in BASE:
        return "base"
    parts = name.split(".")
    if parts[-1] in ("cli", "__main__"):
        return "cli"  # entry points: they wire the layers together
    if parts[1] == "adjudicate":
        return "adjudicate"
    assert parts[1] in ALLOWED, f"{name}: which layer does judge.{parts[1]} belong to? (tests/test_layout.py)"
    return parts[1]


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_allowed_layers_go_one_way():
    def visit(node: str, stack: tuple[str, ...]) -> None:
        assert node not in stack, f"ALLOWED has a cycle: {' → '.join(stack + (node,))}"
        for nxt in ALLOWED[node]:
            visit(nxt, stack + (node,))

    for node in ALLOWED:
        visit(node, ())


def test_every_module_has_a_layer():
    for name in modules():
        assert layer(name) in ALLOWED


def test_imports_follow_the_arrows():
    wrong = set()
    for name, targets in graph().items():
        for target in targets:
            a, b = layer(name), layer(target)
            if a != b and b not in ALLOWED[a]:
                wrong.add((name, target))
    unexpected = sorted(wrong - KNOWN_ARROWS)
    assert not unexpected, "imports against the story:\n" + "\n".join(
        f"  {a} ({layer(a)}) → {b} ({layer(b)})" for a, b in unexpected)
    gone = sorted(KNOWN_ARROWS - wrong)
    assert not gone, f"no longer needed in KNOWN_ARROWS (remove them): {gone}"


def strongly_connected(edges: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative; only components of two or more nodes."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[set[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
    return found


def test_no_cycles_between_layers():
    edges: dict[str, set[str]] = defaultdict(set)
    for name, targets in graph().items():
        for target in targets:
            if (name, target) not in KNOWN_ARROWS and layer(name) != layer(target):
                edges[layer(name)].add(layer(target))
    assert not strongly_connected(edges)


def test_no_cycles_between_modules():
    edges = graph()
    # a package's __init__ re-exporting its own modules is not a cycle of meaning
    for name in edges:
        edges[name] = {t for t in edges[name] if not (name.startswith(t + ".") or t.startswith(name + "."))}
    cycles = {tuple(sorted(c)) for c in strongly_connected(edges)}
    unexpected = sorted(cycles - KNOWN_CYCLES)
    assert not unexpected, "modules that import each other:\n" + "\n".join(
        "  " + " ↔ ".join(c) for c in unexpected)
    gone = sorted(KNOWN_CYCLES - cycles)
    assert not gone, f"no longer needed in KNOWN_CYCLES (remove them): {gone}"


def test_the_test_sees_a_wrong_arrow():
    # the checker itself: an engine module importing the mail layer is caught
    assert layer("judge.engine.movement") == "engine"
    assert "mail" not in ALLOWED["engine"]
    assert strongly_connected({"a": {"b"}, "b": {"a"}}) == [{"a", "b"}]


def test_the_engine_imports_at_the_top():
    # an import inside a function is how a cycle hides from the reader (and from the order the
    # modules can be read in): the engine's modules form a plain tree of top-level imports
    hidden = []
    for name, path in modules().items():
        if layer(name) != "engine":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                hidden += [f"{name}:{n.lineno}" for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert not hidden, f"imports inside functions: {hidden}"
