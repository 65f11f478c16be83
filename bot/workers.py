"""What runs in a worker process of the strong computers' pool (bot/computers.py): its set-up, and the timed
decision it is handed.

A worker is started with the 'spawn' method: a fresh interpreter, not a fork of a bot that has an event
loop, sockets to Telegram and the database, threads and signal handlers. A forked worker kept the bot's
handlers: SIGTERM did nothing to it (asyncio's handler only writes the signal into the bot loop's wakeup
socket, which the fork shares, so the signal is the bot's news, not the worker's), and after the bot was
SIGKILLed one lived on, an orphan of 100 MB, 44 minutes later. The set-up here makes a worker die with
the bot, whatever killed the bot; leave Ctrl+C to the bot; and yield the CPU to it.

Only the standard library and the engine are imported here: the worker loads little besides what the
spawn method itself imports (the bot's main module).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence

from engine import Action
from engine.ai.search import SearchOptions, decide
from engine.match import SeatView

# The workers run at this much lower priority than the bot. Linux's scheduler weighs a nice-0 task 1024 and a
# nice-10 task 110, so where the bot and a searching worker share a core the bot gets 90% of it whenever it
# has work: a move, a tap's answer, the outbox. The search is anytime and its budget is wall time, so it
# only sees fewer worlds in those moments; a 200 ms search stalls no table.
NICENESS = 10

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
WATCH_EVERY_S = 1.0  # how often a worker without prctl looks whether its parent is still there


def start(parent: int, niceness: int = NICENESS) -> None:
    """The pool's initializer (it runs in the worker before its first decision). ``parent`` is the bot's
    pid, recorded in the bot before the worker was started."""
    keep_signals_sane()
    die_with(parent)
    os.nice(niceness)


def keep_signals_sane() -> None:
    """SIGTERM ends a worker (its default: a worker holds nothing to clean up). SIGINT is ignored: a
    terminal's Ctrl+C goes to the bot and its workers alike, and the bot stops its pool itself; a worker
    that took it would hand a KeyboardInterrupt back as a decision, or die and break the pool for the
    decisions still queued while the bot finishes its stop."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(ValueError):  # a fork of a bot would share its loop's wakeup socket
        signal.set_wakeup_fd(-1)


def die_with(
    parent: int,
    *,
    platform: str = sys.platform,
    getppid: Callable[[], int] = os.getppid,
    exit: Callable[[int], object] = os._exit,
) -> str:
    """Make this process end when ``parent`` does, whatever ends it (SIGKILL, the OOM killer): on Linux the
    kernel sends SIGKILL when the parent exits (prctl's PR_SET_PDEATHSIG); elsewhere, or if prctl fails, a
    daemon thread looks every second. If the parent is gone already (it died before the prctl took
    effect: this process was then given to another parent), end now. Returns how it watches."""
    how = "watch"
    if platform.startswith("linux") and _pdeathsig(signal.SIGKILL):
        how = "prctl"
    if getppid() != parent:
        exit(0)
        return "gone"
    if how == "watch":
        threading.Thread(target=watch, args=(parent,), name="parent-watch", daemon=True).start()
    return how


def _pdeathsig(sig: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def watch(
    parent: int,
    *,
    getppid: Callable[[], int] = os.getppid,
    exit: Callable[[int], object] = os._exit,
    sleep: Callable[[float], object] = time.sleep,
    every: float = WATCH_EVERY_S,
) -> None:
    """Until the parent is gone (this process is given to another parent), then end the process."""
    while getppid() == parent:
        sleep(every)
    exit(0)


def decide_timed(
    view: SeatView, legal: Sequence[Action], options: SearchOptions, seed: int
) -> tuple[Action, float]:
    """The strong player's action and the seconds the worker spent on it (the bot's figures: bot/computers.py)."""
    began = time.perf_counter()
    action = decide(view, legal, options, seed)
    return action, time.perf_counter() - began


__all__ = ["NICENESS", "decide_timed", "die_with", "keep_signals_sane", "start", "watch"]
