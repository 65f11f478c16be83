"""The crash bench reads the bot's log: a traceback of the bot is a problem; a pool worker that its bot, killed
while starting it, never sent its work (it ends on an empty pipe, before any of the bot's code runs in it:
found by the first crash run with strong computers) is counted apart."""

from __future__ import annotations

import pytest

from benches.crash import _orphaned_start, _tracebacks

pytestmark = pytest.mark.unit

ORPHANED_START = """Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 122, in spawn_main
    exitcode = _main(fd, parent_sentinel)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 130, in _main
    preparation_data = reduction.pickle.load(from_parent)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
EOFError: Ran out of input"""

THE_BOTS = """Traceback (most recent call last):
  File "/srv/bot/desk.py", line 80, in fire
    await self.service.clock.fire_due(table_id)
EOFError: Ran out of input"""


def test_a_worker_orphaned_while_starting_is_told_apart_from_the_bots_own_tracebacks() -> None:
    log = "\n".join(
        [
            "2026-12-06 02:08:12,057 INFO bot.computers: the strong computers' pool: 2 workers",
            ORPHANED_START,
            "2026-12-06 02:08:12,294 INFO alembic.runtime.migration: Context impl SQLiteImpl.",
            THE_BOTS,
            "2026-12-06 02:08:13,001 INFO telegram.ext.Application: Application started",
        ]
    )
    found = _tracebacks(log)
    assert found == [ORPHANED_START, THE_BOTS]
    assert [_orphaned_start(t) for t in found] == [True, False]
