"""Where an exception came from, for a log line: file, line and function, never a value (a value could hold a
hand, and hands stay out of the logs)."""

from __future__ import annotations

import traceback


def where(err: BaseException | None) -> str:
    if err is None or err.__traceback__ is None:
        return "?"
    frame = traceback.extract_tb(err.__traceback__)[-1]
    return f"{frame.filename.rsplit('/', 2)[-1]}:{frame.lineno} {frame.name}"
