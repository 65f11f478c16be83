"""The layering holds (README "The parts"): every import statement of every module is read, and one that
crosses a boundary fails here with its file and line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Package -> the top-level names its modules may not import.
FORBIDDEN = {
    # The rules as a pure library: no I/O, no event loop, no Telegram, no SQL, no layer above it.
    "engine": {
        "storage",
        "table",
        "bot",
        "emulator",
        "playground",
        "benches",
        "telegram",
        "sqlalchemy",
        "asyncio",
        "aiohttp",
        "aiosqlite",
        "asyncpg",
        "socket",
        "sqlite3",
    },
    # Persistence knows rows and the engine's Match; not the table's rules, nor who shows them.
    "storage": {"table", "bot", "emulator", "playground", "benches", "telegram"},
    # The table layer knows no Telegram and no SQL (storage is reached through table/ports.py).
    "table": {"bot", "emulator", "playground", "benches", "telegram", "sqlalchemy"},
    # The product: the emulator only where the playground starts (bot/main.py, below).
    "bot": {"emulator", "playground", "benches"},
}
# (file, imported name): the one place the product reaches the playground, inside `gouji-bot --playground`.
ALLOWED = {("bot/main.py", "playground")}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def _crossings(package: str) -> list[str]:
    bad = []
    for path in sorted((ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for line, name in _imports(path):
            if name in FORBIDDEN[package] and (rel, name) not in ALLOWED:
                bad.append(f"{rel}:{line} imports {name}")
    return bad


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_import_crosses_a_layer(package: str) -> None:
    assert _crossings(package) == []


def test_the_check_sees_a_crossing(tmp_path: Path) -> None:
    """The reader of imports finds each form a crossing can take (so an empty list above means something)."""
    module = tmp_path / "m.py"
    module.write_text("import bot.app\nfrom storage.db import x\ndef f():\n    from emulator import E\n")
    assert _imports(module) == [(1, "bot"), (2, "storage"), (4, "emulator")]
