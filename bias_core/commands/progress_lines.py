"""Progress for a log: a plain line every few seconds when the output is not a terminal (issue 31, Deliver 4).

A progress bar redraws itself with carriage returns; written to a log file or a CI console it becomes one long line
that says nothing until the end. ``ProgressLines`` writes whole lines instead — the count, the rate since the start,
the elapsed time and what remains — at most every ``every`` seconds, and always the last one.
"""

from __future__ import annotations

import time
from typing import TextIO

from bias_core.runs.estimate import format_duration


class ProgressLines:
    """Plain progress lines on ``stream``, at most one per ``every`` seconds (plus the final one)."""

    def __init__(self, stream: TextIO, unit: str = "summaries", every: float = 5.0, clock=time.monotonic):
        self.stream, self.unit, self.every, self.clock = stream, unit, every, clock
        self.started = clock()
        self.last_shown = -float("inf")
        self.last_line = ""
        self.start_done: int | None = None  # the count at the first update (summaries from the cache come at once)
        self.waiting: str | None = None
        self.last_wait = -float("inf")  # waits have their own pace: they never hold a progress line back

    def update(self, stage: str, done: int, total: int, remaining: str = "") -> None:
        """Note the progress; write a line when ``every`` seconds have passed since the last one or all is done."""
        now = self.clock()
        if self.start_done is None:
            self.start_done = done
        if now - self.last_shown < self.every and done < total:
            return
        elapsed = now - self.started
        counted = done - self.start_done
        rate = f", {counted / elapsed:.1f}/s" if elapsed > 0 and counted > 0 else ""
        line = (f"{stage}: {done}/{total} {self.unit}{rate}, {format_duration(elapsed)} elapsed"
                + (f", remaining {remaining}" if remaining else "") + (f"; waiting: {self.waiting}" if self.waiting
                                                                         else ""))
        if line != self.last_line:
            self._write(line)
            self.last_shown, self.last_line = now, line

    def wait(self, text: str | None) -> None:
        """Note what the work waits on (None: nothing more): a line at once when a wait begins, then at most one per
        ``every`` seconds while it lasts; the progress lines name it too."""
        now = self.clock()
        began = self.waiting is None
        self.waiting = text
        if text is not None and (began or now - self.last_wait >= self.every):
            self._write(f"waiting: {text}")
            self.last_wait = now

    def _write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()
