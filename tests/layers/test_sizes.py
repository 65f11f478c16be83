"""The house stays easy to change (issue 21): no module of the table layer or the bot over 600 lines, no class
of the table layer with more than 15 public methods (one class of 40 use cases was what made every change of
a use case a change of everything)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 600
MAX_PUBLIC_METHODS = 15


def _modules(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def _public_methods(cls: ast.ClassDef) -> list[str]:
    return [
        node.name
        for node in cls.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and not node.name.startswith("_")
        and not any(
            isinstance(d, ast.Name) and d.id in ("property", "staticmethod") for d in node.decorator_list
        )
    ]


def _too_long(paths: list[Path], root: Path = ROOT) -> list[str]:
    return [
        f"{p.relative_to(root)}: {n} lines"
        for p in paths
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    ]


def _too_wide(paths: list[Path], root: Path = ROOT) -> list[str]:
    wide = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and len(methods := _public_methods(node)) > MAX_PUBLIC_METHODS:
                wide.append(f"{path.relative_to(root)}: {node.name} has {len(methods)} public methods")
    return wide


def test_no_module_of_the_table_layer_or_the_bot_is_over_600_lines() -> None:
    assert _too_long(_modules("table", "bot")) == []


def test_no_class_of_the_table_layer_has_more_than_15_public_methods() -> None:
    assert _too_wide(_modules("table")) == []


def test_the_checks_see_a_long_module_and_a_wide_class(tmp_path: Path) -> None:
    wide = tmp_path / "wide.py"
    wide.write_text(
        "class C:\n"
        + "".join(f"    def m{i}(self): ...\n" for i in range(16))
        + "    def _private(self): ...\n    @property\n    def p(self): ...\n"
        + "\n" * MAX_LINES
    )
    assert len(_public_methods(ast.parse(wide.read_text()).body[0])) == 16  # type: ignore[arg-type]
    assert _too_wide([wide], tmp_path) == ["wide.py: C has 16 public methods"]
    assert _too_long([wide], tmp_path) == [f"wide.py: {MAX_LINES + 20} lines"]
