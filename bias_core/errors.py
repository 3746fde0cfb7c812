"""Errors that reach the user as one clear line: what happened, where (file, row), and what to do."""

from __future__ import annotations


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
