"""An endpoint's rate limits (issue 31, Deliver 2): how long a refused request waits, and how many requests may be in
flight while the endpoint refuses some.

A server under load answers HTTP 429 (too many requests) or 503 (unavailable), often with ``Retry-After``. The
``openai:`` summarizer then waits as the server asks — every request of the pool, since the server asked the client —
or, without the header, backs off exponentially with full jitter (AWS's "Exponential Backoff And Jitter", 2015), and
sends the same request again: a refused request was never answered, so it is sent again, and never one whose summary
was stored. ``AdaptiveConcurrency`` keeps the number of requests in flight as TCP's congestion control does (additive
increase, multiplicative decrease): halved once per window of requests that met a refusal, raised by one per window
that met none, never above the configured ``concurrency``. A library such as ``tenacity`` retries one call; none of the
well-kept ones share a limit across a pool of calls, so this is written here.
"""

from __future__ import annotations

import email.utils
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

# The statuses of a server that refuses for now and may answer later.
REFUSED_FOR_NOW = frozenset({429, 503})
# Exponential backoff without Retry-After: the n-th wait is drawn from [0, min(CAP, BASE × 2ⁿ)] seconds.
BACKOFF_BASE = 0.5
BACKOFF_CAP = 30.0
# A Retry-After longer than this is taken as this (a server asking for an hour would stall an audit silently).
LONGEST_WAIT = 300.0
# A wait is shown at most this often while it lasts (and the answers are collected at least this often).
WAIT_NOTICE_SECONDS = 1.0


def refusal_reason(status: int) -> str:
    """What a refusal for now says: "too many requests" (429) or "unavailable" (503)."""
    return "too many requests" if status == 429 else "unavailable"


class Abandoned(BaseException):
    """The process is stopping while a request waits: like ``bounded_http.RequestAbandoned``, not an ``Exception``."""


def retry_after(headers: Mapping[str, str] | None, now: Callable[[], float] = time.time) -> float | None:
    """The seconds a server asks the client to wait: ``retry-after-ms`` (OpenAI, Azure), else ``Retry-After`` as
    seconds or an HTTP date (RFC 9110 §10.2.3); None without either or when unreadable, at most ``LONGEST_WAIT``."""
    if not headers:
        return None
    value = headers.get("retry-after-ms")
    try:
        if value is not None:
            return min(LONGEST_WAIT, max(0.0, float(value) / 1000))
    except ValueError:
        pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return min(LONGEST_WAIT, max(0.0, float(value)))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return min(LONGEST_WAIT, max(0.0, when.timestamp() - now()))


def backoff(attempt: int, rng: random.Random) -> float:
    """The wait before the ``attempt``-th resend (0 first) without Retry-After: full jitter, so refused requests do not
    come back together."""
    return rng.uniform(0.0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** attempt))


@dataclass(frozen=True)
class Wait:
    """What the pool waits on now, for a progress line: the refusal that caused it and the pool's state."""

    status: int
    seconds: float  # left of the longest wait of a request now waiting (the pool's pause, or a backoff)
    limit: int
    ceiling: int
    refusals: int

    def describe(self) -> str:
        """"the endpoint answered HTTP 429 (too many requests): waiting 4 s; 8 of 16 requests at a time; 12
        refusals so far"."""
        refusals = f"{self.refusals:,} refusal{'s' if self.refusals != 1 else ''}"
        return (f"the endpoint answered HTTP {self.status} ({refusal_reason(self.status)}): waiting "
                f"{max(1.0, self.seconds):.0f} s; {self.limit} of {self.ceiling} requests at a time; {refusals} so far")


class AdaptiveConcurrency:
    """At most ``limit`` requests in flight (``slot``), with the limit adapted to the endpoint's refusals (``refused``,
    ``answered``) and every new request held while the server has asked the client to wait."""

    def __init__(self, ceiling: int, *, clock: Callable[[], float] = time.monotonic, seed: int = 0):
        self.ceiling = max(1, ceiling)
        self.limit = float(self.ceiling)
        self.clock = clock
        self.refusals = 0
        self.in_flight = 0
        self.paused_until = 0.0
        self._window = 0  # incremented at each decrease: a request sent before it says nothing of the new limit
        self._waits: dict[int, tuple[float, int]] = {}  # waiting request -> (until, status)
        self._last_status = 429
        self.last_wait: Wait | None = None  # the wait begun last, for a listener that looks after it has ended
        self._rng = random.Random(seed)
        self._condition = threading.Condition()
        self._stopping = threading.Event()

    @contextmanager
    def slot(self) -> Iterator[int]:
        """Hold one of ``limit`` places for a request (waiting while the pool is paused); yields the window the
        request is sent in, for ``refused``."""
        with self._condition:
            while True:
                self._check()
                pause = self.paused_until - self.clock()
                if pause > 0:
                    self._condition.wait(min(pause, 1.0))
                elif self.in_flight < int(self.limit):
                    break
                else:
                    self._condition.wait(1.0)
            self.in_flight += 1
            window = self._window
        try:
            yield window
        finally:
            with self._condition:
                self.in_flight -= 1
                self._condition.notify_all()

    def answered(self) -> None:
        """A request was answered (not refused): one more place per window of answers, up to ``ceiling``."""
        with self._condition:
            if self.limit < self.ceiling:
                self.limit = min(float(self.ceiling), self.limit + 1.0 / self.limit)
                self._condition.notify_all()

    def refused(self, status: int, asked: float | None, window: int, attempt: int) -> float:
        """A request sent in ``window`` was refused with ``status``; ``asked`` is the server's Retry-After (seconds)
        or None. Returns the seconds this request waits before it is sent again: the server's wait, which holds the
        whole pool, or its own backoff. The limit is halved once per window."""
        with self._condition:
            self.refusals += 1
            self._last_status = status
            if window == self._window:
                self.limit = max(1.0, self.limit / 2)
                self._window += 1
            if asked is not None:
                self.paused_until = max(self.paused_until, self.clock() + asked)
                return asked
            return backoff(attempt, self._rng)

    def wait(self, seconds: float, status: int) -> None:
        """Sleep ``seconds`` before a resend, shown as a ``Wait`` while it lasts; ``Abandoned`` if ``abandon`` is
        called meanwhile."""
        key = threading.get_ident()
        with self._condition:
            self._waits[key] = (self.clock() + seconds, status)
            self.last_wait = Wait(status, seconds, int(self.limit), self.ceiling, self.refusals)
        try:
            if self._stopping.wait(seconds):
                raise Abandoned("the requests were abandoned")
        finally:
            with self._condition:
                self._waits.pop(key, None)

    def current_wait(self) -> Wait | None:
        """What the pool waits on now (None when nothing waits)."""
        with self._condition:
            now = self.clock()
            ends = [(until, status) for until, status in self._waits.values() if until > now]
            if self.paused_until > now:
                ends.append((self.paused_until, self._last_status))
            if not ends:
                return None
            until, status = max(ends)
            return Wait(status, until - now, int(self.limit), self.ceiling, self.refusals)

    def abandon(self) -> None:
        """Wake every waiting request with ``Abandoned`` (the process is stopping)."""
        self._stopping.set()
        with self._condition:
            self._condition.notify_all()

    def _check(self) -> None:
        if self._stopping.is_set():
            raise Abandoned("the requests were abandoned")


class WaitNotices:
    """Tells ``listener`` what ``gate`` waits on, from the thread that collects the answers: at once when a wait
    begins or ends, and at most once per ``WAIT_NOTICE_SECONDS`` while it lasts (the seconds count down)."""

    def __init__(self, gate: AdaptiveConcurrency, listener: Callable[[str | None], None] | None,
                 clock: Callable[[], float] = time.monotonic):
        self.gate, self.listener, self.clock = gate, listener, clock
        self.shown: str | None = None
        self.last = -float("inf")
        self.seen: Wait | None = None

    def update(self) -> None:
        if self.listener is None:
            return
        current = self.gate.current_wait()
        latest = self.gate.last_wait
        if current is None and latest is not self.seen and latest is not None and self.shown is None:
            # A wait began and ended between two looks (a 1 s Retry-After while no answer came): it is still told.
            self.listener(latest.describe())
            self.shown = latest.describe()
        self.seen = latest
        text = None if current is None else current.describe()
        now = self.clock()
        if text == self.shown or ((text is None) == (self.shown is None) and now - self.last < WAIT_NOTICE_SECONDS):
            return
        self.shown, self.last = text, now
        self.listener(text)
