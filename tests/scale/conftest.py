"""The scale tests drive tables with the scripted players of the end-to-end tests."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "bot"))

from emulator.pytest_fixtures import emulator

__all__ = ["emulator"]
