"""Progress written to a log is plain lines, not one line of carriage returns (issue 31, Deliver 4)."""

from __future__ import annotations

import io

from bias_core.commands.progress_lines import ProgressLines
from tests.test_cli import cli


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_line_at_most_every_few_seconds_with_count_rate_elapsed_and_remaining_and_always_the_last():
    stream, clock = io.StringIO(), Clock()
    lines = ProgressLines(stream, every=5.0, clock=clock)
    lines.update("summarize", 10, 100)  # the first call: the count so far (cache hits) does not make a rate
    for second, done in ((1, 12), (2, 14), (6, 30), (7, 32), (12, 60), (13, 100)):
        clock.now = second
        lines.update("summarize", done, 100, remaining="1–2 min")
    written = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert written == [
        "summarize: 10/100 summaries, under 1 s elapsed",
        "summarize: 30/100 summaries, 3.3/s, 6 s elapsed, remaining 1–2 min",
        "summarize: 60/100 summaries, 4.2/s, 12 s elapsed, remaining 1–2 min",
        "summarize: 100/100 summaries, 6.9/s, 13 s elapsed, remaining 1–2 min",
    ]


def test_the_summarize_command_writes_plain_progress_lines_when_its_output_is_no_terminal(tmp_path):
    result = cli("summarize", "--summarizer", "lead-3", "--inputs", "data/demo/news.jsonl", "--out",
                 str(tmp_path / "s.jsonl"))
    assert result.returncode == 0, result.stderr
    assert "\r" not in result.stderr
    assert "lead-3: 16/16 inputs" in result.stderr.splitlines()[-2]  # the last progress line, then "wrote …"
    assert result.stderr.splitlines()[-1].startswith("wrote 16 summaries")



def test_a_wait_is_written_when_it_begins_and_every_few_seconds_while_it_lasts_without_holding_progress_back():
    stream, clock = io.StringIO(), Clock()
    lines = ProgressLines(stream, every=5.0, clock=clock)
    lines.update("summarize", 0, 100)
    clock.now = 1
    lines.wait("HTTP 429: waiting 4 s")  # a wait begins: written at once
    clock.now = 2
    lines.wait("HTTP 429: waiting 3 s")  # the same wait, a second later: not yet
    clock.now = 5
    lines.update("summarize", 20, 100)  # progress keeps its own pace
    clock.now = 7
    lines.wait("HTTP 429: waiting 9 s")  # five seconds after the first wait line
    lines.wait(None)
    clock.now = 8
    lines.wait("HTTP 503: waiting 1 s")  # a new wait after one ended: at once
    assert stream.getvalue().splitlines() == [
        "summarize: 0/100 summaries, under 1 s elapsed",
        "waiting: HTTP 429: waiting 4 s",
        "summarize: 20/100 summaries, 4.0/s, 5 s elapsed; waiting: HTTP 429: waiting 3 s",
        "waiting: HTTP 429: waiting 9 s",
        "waiting: HTTP 503: waiting 1 s",
    ]
