"""Errors that reach the user as one clear line: what happened, where (file, row), and what to do."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from bias_core.safety.redact import redact_urls


class BiasCoreError(Exception):
    """Base class of every error the CLI and the app turn into a plain message instead of a traceback."""


class InputError(BiasCoreError):
    """Bad user input: names the file and, where known, the row or entry, the problem and what to do next."""

    def __init__(self, source: str, problem: str, *, row: int | str | None = None, hint: str | None = None):
        self.source = str(source)
        self.problem = problem
        self.row = row
        self.hint = hint
        where = self.source if row is None else f"{self.source}, {_row_label(row)}"
        message = f"{where}: {problem}"
        if hint:
            message += f" — {hint}"
        super().__init__(message)


def _row_label(row: int | str) -> str:
    return f"line {row}" if isinstance(row, int) else str(row)


class SummarizerError(BiasCoreError):
    """A summarizer could not be built, loaded or called (missing model, endpoint down, bad parameters)."""


class StageError(BiasCoreError):
    """An unexpected exception (a bug, a full disk, a library error) in a named stage, as one line; the original
    exception is its ``__cause__``, so ``--debug`` and the log still show the traceback."""


def one_line(error: BaseException, limit: int = 300) -> str:
    """``Type: message`` on one line, cut to ``limit`` characters (a BiasCoreError's message without the type), with
    the credentials of any URL in it redacted (``bias_core.safety.redact``)."""
    # Redacted before the lines are joined: a line break inside a URL is part of it (a client drops it).
    text = " ".join(line.strip() for line in redact_urls(str(error)).splitlines() if line.strip())
    if not isinstance(error, BiasCoreError):
        text = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Turn any unexpected exception raised inside into a ``StageError`` "name: Type: message"; a BiasCoreError
    (already one clear line) passes through unchanged."""
    try:
        yield
    except BiasCoreError:
        raise
    except Exception as error:
        raise StageError(f"{name}: {one_line(error)}") from error
