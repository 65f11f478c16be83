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


def _printed_from_marker(path: Path) -> list[str]:
    """What ``path`` prints for its lines after its ``# same from here`` comment."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index("# same from here")
    printing = [ln for ln in lines[start:] if ln.strip() and not ln.startswith("#")]
    out = subprocess.run(
        [sys.executable, "-m", "engine.replay", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    ).stdout.splitlines()
    return out[len(out) - len(printing) :]


def test_the_same_answers_in_two_orders_print_the_same_from_the_reveal_on() -> None:
    a, b = (_printed_from_marker(OWN / f"stage_order_{x}.gouji") for x in "ab")
    assert a == b and "declared 1 5" in a


@pytest.mark.parametrize(
    "setup, line",
    [
        ("stage\nhand 0 5\nhand 1 6\nhand 2 7\nhand 3 8\nhand 4 9\nhand 5 T\nlead 0\nout 1\n? asked\n", 10),
        ("hand 0 5\nhand 1 6\nhand 2 7\nhand 3 8\nhand 4 9\nhand 5 T\nlead 0\nreturns 0>3:1\n? turn\n", 9),
        (
            "stage\nhand 0 5\nhand 1 6\nhand 2 7\nhand 3 8\nhand 4 9\nhand 5 T\nlead 0\nreturns 0>2:1\n? turn\n",
            10,
        ),
        ("stage\nhand 0 5\nhand 1 6\nhand 2 7\nhand 3 8\nhand 4 9\nhand 5 T\nreturns 0-3\n", 8),
        ("hand 0 5\nhand 1 6\nhand 2 7\nhand 3 8\nhand 4 9\nhand 5 T\nlead 0\n0 revolt\n", 8),
    ],
    ids=[
        "out-before-the-first-lead",
        "returns-without-stage",
        "return-to-a-teammate",
        "bad-return",
        "no-stage-verbs",
    ],
)
def test_stage_set_up_errors_exit_2_with_the_line(tmp_path: Path, setup: str, line: int) -> None:
    bad = tmp_path / "bad.gouji"
    bad.write_text(setup)
    result = subprocess.run(
        [sys.executable, "-m", "engine.replay", str(bad)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 2 and f"line {line}" in result.stderr, result.stderr
