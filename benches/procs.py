"""A process's descendants and whether they still live, read from /proc (Linux; psutil is not a dependency):
the crash bench and the pool's tests check that no process of the bot outlives it."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Proc:
    pid: int
    started: int  # clock ticks after boot: with the pid, this process and no later one given the same pid
    command: str


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a process, None if there is none."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), fields[0], int(fields[19])


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def descendants(pid: int) -> list[Proc]:
    """Every process below ``pid`` now: its children, theirs, and so on."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = _stat(int(name))
            if stat is not None:
                children.setdefault(stat[0], []).append(int(name))
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        stat = _stat(child)
        if stat is not None:
            found.append(Proc(child, stat[2], _command(child)))
        todo += children.get(child, [])
    return found


def alive(proc: Proc) -> bool:
    """The process still runs: a zombie has ended (nobody may be left to reap it: PID 1 of a container)."""
    stat = _stat(proc.pid)
    return stat is not None and stat[2] == proc.started and stat[1] not in ("Z", "X")


def outliving(procs: list[Proc], within: float) -> list[Proc]:
    """Those of ``procs`` still alive after waiting up to ``within`` seconds for them all to end."""
    give_up = time.monotonic() + within
    left = [p for p in procs if alive(p)]
    while left and time.monotonic() < give_up:
        time.sleep(0.05)
        left = [p for p in left if alive(p)]
    return left
