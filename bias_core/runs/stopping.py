"""Stopping a command on Ctrl-C (SIGINT) or SIGTERM: both end the work the same way, at once, as one line.

Inside ``stop_signals()`` the first SIGINT or SIGTERM raises ``Stopped`` (a ``KeyboardInterrupt``) in the main
thread, so every ``except KeyboardInterrupt`` that saves finished work and records why a run stopped runs for
SIGTERM too (Python's default SIGTERM ends the process with no message and no cleanup). A second signal during
that cleanup ends the process at once. The exit code is the shell's: 128 + the signal number (130, 143).
An audit so stopped (or failed) is recorded in its run (``mark_stopped``) and ends as ``AuditStopped``, with the
summaries it saved.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from bias_core.runs.store import RunStore
from bias_core.safety.errors import BiasCoreError

logger = logging.getLogger(__name__)

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(KeyboardInterrupt):
    """Raised in the main thread by the first SIGINT or SIGTERM inside ``stop_signals()``."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_code(interrupt: BaseException) -> int:
    """The shell's exit code for a stop: 143 for SIGTERM, 130 for Ctrl-C (a plain ``KeyboardInterrupt``)."""
    return 128 + interrupt.signum if isinstance(interrupt, Stopped) else 128 + signal.SIGINT


@contextmanager
def stop_signals() -> Iterator[None]:
    """Turn SIGINT and SIGTERM into ``Stopped`` while the block runs (main thread only; elsewhere, a no-op), and
    restore the previous handlers after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def handle(signum: int, _frame: object) -> None:
        if received:  # a second signal while the first one's cleanup runs: stop now
            sys.stderr.flush()
            os._exit(128 + signum)
        received.append(signum)
        raise Stopped(signum)

    previous = {signum: signal.signal(signum, handle) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


class AuditStopped(KeyboardInterrupt):
    """An audit stopped by Ctrl-C or SIGTERM, after its run was marked interrupted: how many summaries are saved."""

    def __init__(self, run_id: str, saved: int | None, total: int | None, done: int | None, code: int):
        super().__init__(run_id)
        self.run_id, self.saved, self.total, self.exit_code = run_id, saved, total, code
        self.done = done  # stored summaries and failures: the run's progress as it stopped

    @classmethod
    def read(cls, store: RunStore, run_id: str, code: int) -> AuditStopped:
        """The counts as the store holds them (unknown where it cannot be read)."""
        try:
            summaries, failures = store.saved_count(run_id)
            return cls(run_id, summaries, store.get_run(run_id).progress_total, summaries + failures, code)
        except BiasCoreError:
            return cls(run_id, None, None, None, code)

    def describe(self, how_to_resume: str) -> str:
        """``stopped: 7 of 15 summaries saved; <how_to_resume>``."""
        if self.saved is None:
            return f"stopped; {how_to_resume}"
        return f"stopped: {self.saved}{f' of {self.total}' if self.total else ''} summaries saved; {how_to_resume}"


def mark_stopped(store: RunStore, run_id: str, status: str, message: str, done: int | None = None) -> None:
    """Record why a run stopped (and its final ``done`` count); if even that write fails (a full disk), log it: the
    worker's liveness check then shows the run as stopped."""
    try:
        store.update_run(run_id, status=status, message=message, done=done)
    except Exception:
        logger.exception("could not record that run %s %s: %s", run_id, status, message)
