"""Architecture checks of the package: a private name never crosses modules.

A ``_name`` used by another module is a missing public (or shared-internal) function. Shared internal
*modules* (``auditad._format``, ``auditad._io``, ``auditad._validation``, ...) may be imported; their
public names may be used; private *names* of any module may not be imported from elsewhere, neither with
``from .x import _y`` nor as ``x._y``.
"""

from pathlib import Path


def _package_modules():
    import auditad

    root = Path(auditad.__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, path, path.name == "__init__.py"


def _module_exists(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _private_imports(name: str, path, is_package: bool) -> list[str]:
    """``from .x import _y`` and ``x._y`` where ``_y`` is a private name (not a module) of another auditad module."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if is_package else name.rpartition(".")[0]
    found, aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source != "auditad" and not source.startswith("auditad."):
                continue
            for a in node.names:
                if _module_exists(f"{source}.{a.name}"):
                    aliases[a.asname or a.name] = f"{source}.{a.name}"
                    continue
                if a.name.startswith("_") and not a.name.startswith("__") and source != name:
                    found.append(f"{name}: from {source} import {a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("auditad"):
                    aliases[a.asname or a.name] = a.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            attr, target = node.attr, aliases[node.value.id]
            if attr.startswith("_") and not attr.startswith("__") and target != name \
                    and not _module_exists(f"{target}.{attr}"):
                found.append(f"{name}: {node.value.id}.{attr} ({target})")
    return found


def test_no_module_imports_a_private_name_of_another_module():
    # shared internal *modules* (auditad._format, auditad._io, ...) may be imported; private *names* may not
    found = [hit for name, path, pkg in _package_modules() for hit in _private_imports(name, path, pkg)]
    assert found == []


def test_the_private_import_check_finds_what_it_should(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from .landscapes import _check_result\nfrom . import _format, nulls\n"
                   "x = nulls._resolve_q\ny = _format.stat\nfrom ._format import _check_target\n")
    hits = _private_imports("auditad.bad", bad, False)
    assert hits == ["auditad.bad: from auditad.landscapes import _check_result",
                    "auditad.bad: from auditad._format import _check_target",
                    "auditad.bad: nulls._resolve_q (auditad.nulls)"]
