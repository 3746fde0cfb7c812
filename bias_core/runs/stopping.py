"""Stopping a command on Ctrl-C (SIGINT) or SIGTERM: both end the work the same way, at once, as one line.

Inside ``stop_signals()`` the first SIGINT or SIGTERM raises ``Stopped`` (a ``KeyboardInterrupt``) in the main
thread, so every ``except KeyboardInterrupt`` that saves finished work and records why a run stopped runs for
SIGTERM too (Python's default SIGTERM ends the process with no message and no cleanup). A second signal during
that cleanup ends the process at once. The exit code is the shell's: 128 + the signal number (130, 143).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

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
