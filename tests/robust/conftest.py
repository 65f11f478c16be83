"""The robustness tests use the scripted players of tests/bot (players.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bot"))

from bot.emulator.pytest_fixtures import emulator  # noqa: E402

__all__ = ["emulator"]
