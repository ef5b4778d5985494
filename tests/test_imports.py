"""The engine's modules import one another in one direction: no import circle, counting the
imports inside functions too (a circle hidden in a function still ties the two modules
together, and breaks as soon as someone moves the import to the top)."""

from __future__ import annotations

import ast
from pathlib import Path

from verified.claims import ROOT


def module_imports(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the modules of ``package`` (under ``root``) that it imports anywhere."""
    modules: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:  # relative: from . import x, from ..a import b
                    base = here.split(".")[: len(here.split(".")) - node.level + 1]
                    target = ".".join([*base, node.module] if node.module else base)
                else:
                    target = node.module or ""
                # `from pkg import submodule` depends on the submodule (the package is set up
                # before any of its modules anyway); `from module import name` on the module
                submodules = [f"{target}.{alias.name}" for alias in node.names]
                candidates = [m for m in submodules if m in modules] or [target]
            elif isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            else:
                continue
            # importing a module runs the packages above it first: `import verified.notebooks.x`
            # from outside the package runs verified/notebooks/__init__.py too (a module inside
            # a package needs nothing from it: its package is set up before it)
            for candidate in list(candidates):
                parts = candidate.split(".")
                for depth in range(1, len(parts)):
                    package = ".".join(parts[:depth])
                    if package in modules and not f"{name}.".startswith(f"{package}."):
                        candidates.append(package)
            found.update(c for c in candidates if c in modules and c != name)
        graph[name] = found
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_engine_has_no_import_circle():
    graph = module_imports(ROOT, "verified")
    assert "verified.notebooks.snippets" in graph, "the engine's modules were not found"
    assert "verified.notebooks.comments" in graph["verified.notebooks.snippets"]
    assert circles(graph) == [], "import circles: " + "; ".join(
        " <-> ".join(group) for group in circles(graph)
    )


def test_a_circle_is_found_even_inside_a_function(tmp_path):
    """The check can fail: two modules that import each other, one of them in a function."""
    package = tmp_path / "demo"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from demo.b import thing\n")
    (package / "b.py").write_text("def thing():\n    from . import a\n    return a\n")
    (package / "c.py").write_text("import demo.a\n")
    graph = module_imports(tmp_path, "demo")
    assert graph["demo.b"] == {"demo.a"}
    assert circles(graph) == [["demo.a", "demo.b"]]


def test_a_circle_through_a_package_init_is_found(tmp_path):
    """Importing a package's module runs the package's __init__: a circle through it counts
    (the circle mkdocs_hooks -> verified.notebooks -> notebooks.cells -> mkdocs_hooks was one)."""
    (tmp_path / "demo" / "sub").mkdir(parents=True)
    (tmp_path / "demo" / "__init__.py").write_text("")
    (tmp_path / "demo" / "sub" / "__init__.py").write_text("from demo.sub import inner\n")
    (tmp_path / "demo" / "sub" / "inner.py").write_text("from demo.sub import other\n"
                                                         "from demo import hook\n")  # fmt: skip
    (tmp_path / "demo" / "sub" / "other.py").write_text("")
    (tmp_path / "demo" / "hook.py").write_text("from demo.sub.other import x\n")
    graph = module_imports(tmp_path, "demo")
    assert "demo.sub" in graph["demo.hook"]  # through the package's __init__
    assert "demo.sub" not in graph["demo.sub.inner"]  # its own package: set up already
    assert circles(graph) == [["demo.hook", "demo.sub", "demo.sub.inner"]]
