"""The layering holds (README "The parts"): every import statement of every module is read, and one that
crosses a boundary fails here with its file and line. Boundaries are modules, not only packages: the table
layer reaches storage's records and errors, never its adapters; importing it loads no SQLAlchemy."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

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
    # The table layer knows no Telegram and no SQL (storage is reached through table/ports.py): of storage
    # it reads the frozen records and the two errors, never the adapters that load SQLAlchemy.
    "table": {
        "bot",
        "emulator",
        "playground",
        "benches",
        "telegram",
        "sqlalchemy",
        "alembic",
        "aiosqlite",
        "asyncpg",
        "storage",
        "storage.db",
        "storage.uow",
        "storage.models",
        "storage.repositories",
        "storage.migrate",
    },
    # The product: the emulator only where the playground starts (bot/main.py, below).
    "bot": {"emulator", "playground", "benches"},
}
# (file, imported name): the one place the product reaches the playground, inside `gouji-bot --playground`.
ALLOWED = {("bot/main.py", "playground")}
# A name is forbidden as itself and as the package of what it names ("storage.db" forbids "storage.db.x"),
# but "storage" alone forbids only ``import storage`` / ``from storage import ...``, the package's front.
EXACT = {"storage"}


def _imports(path: Path) -> list[tuple[int, str]]:
    """Each imported module's full dotted name, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def _forbidden(name: str, forbidden: set[str]) -> str | None:
    """The forbidden name that ``name`` falls under, if any."""
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        prefix = ".".join(parts[:i])
        if prefix in forbidden and (prefix not in EXACT or i == len(parts)):
            return prefix
    return None


def _crossings(package: str) -> list[str]:
    bad = []
    for path in sorted((ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for line, name in _imports(path):
            hit = _forbidden(name, FORBIDDEN[package])
            if hit is not None and (rel, hit) not in ALLOWED:
                bad.append(f"{rel}:{line} imports {name}")
    return bad


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_import_crosses_a_layer(package: str) -> None:
    assert _crossings(package) == []


def test_the_check_sees_a_crossing(tmp_path: Path) -> None:
    """The reader of imports finds each form a crossing can take (so an empty list above means something)."""
    module = tmp_path / "m.py"
    module.write_text("import bot.app\nfrom storage.db import x\ndef f():\n    from emulator import E\n")
    assert _imports(module) == [(1, "bot.app"), (2, "storage.db"), (4, "emulator")]
    table = FORBIDDEN["table"]
    assert [_forbidden(n, table) for n in ("storage.db", "storage.uow.x", "storage", "sqlalchemy.ext")] == [
        "storage.db",
        "storage.uow",
        "storage",
        "sqlalchemy",
    ]
    assert [_forbidden(n, table) for n in ("storage.records", "storage.errors", "engine.match")] == [None] * 3


@pytest.mark.parametrize("package", ["engine", "table"])
def test_importing_a_layer_loads_no_sql(package: str) -> None:
    """What the module graph does, not only what the import lines say: a package of storage imported for its
    records must not pull in its adapters (through its ``__init__``, say)."""
    probe = f"import sys, {package}; print(sorted(m for m in ('sqlalchemy', 'alembic', 'aiosqlite', 'telegram') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
