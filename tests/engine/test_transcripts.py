"""Every rules transcript prints exactly its expected output: the shared conformance examples and our own
per-rule transcripts under tests/transcripts/, run through the installed ``gouji-replay`` command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

# This file sits below tests/engine/ rather than tests/ itself: pytest puts the first folder without an
# __init__.py on sys.path, and tests/ would make tests/storage, tests/bot… shadow the real packages in every
# subprocess that inherits that path.
ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "conformance"
OWN = ROOT / "tests" / "transcripts"


def _cases() -> list[Path]:
    return sorted(SHARED.glob("*.gouji")) + sorted(OWN.glob("*.gouji"))


# A clone of the repository alone has no ../shared: the shared examples are then skipped, saying why, and the
# project's own transcripts still run.
_NO_SHARED = pytest.mark.skipif(
    not SHARED.is_dir(), reason=f"{SHARED} is absent (the repository was cloned without ../shared)"
)


@_NO_SHARED
def test_shared_conformance_examples_are_present() -> None:
    assert sorted(SHARED.glob("*.gouji")), f"no transcripts found in {SHARED}"


@pytest.mark.parametrize("path", _cases(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_transcript_prints_expected_output(path: Path) -> None:
    expected = path.with_suffix(".out").read_text(encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "engine.replay", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == expected.splitlines()


def test_unreadable_line_exits_2_with_line_number(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gouji"
    bad.write_text(
        "hand 0 5\nhand 1 6\nhand 2 7\nhand 3 8\nhand 4 9\nhand 5 T\nlead 0\n? turn\n0 play XZ\n? turn\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "engine.replay", str(bad)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 2
    assert "line 9" in result.stderr
    assert result.stdout.splitlines() == ["turn 0"]
