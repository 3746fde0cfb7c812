"""An endpoint's answer within one deadline and one size (issue 23), for the ``openai:`` summarizer's HTTP client.

httpx's timeouts hold for each read, so a server that sends one byte a second keeps a request open for as long as it
likes, and nothing limits how much it sends. ``RequestLimits`` gives the client two event hooks (httpx's public
``event_hooks``) that bound each request as a whole:

* a deadline from the moment the request is sent to the last byte of the answer: a timer shuts the request's socket
  down when it passes (the socket is taken from httpcore's documented ``trace`` extension as the connection opens;
  connections are not kept alive, so every request opens its own), whether the server is slow to send its headers
  or its body;
* an answer of at most ``max_bytes``, refused as soon as it is larger (by its Content-Length, or while it arrives),
  asked for without compression (``Accept-Encoding: identity``) and refused if it comes compressed anyway, so its
  size on the wire is its size in memory.

``RequestLimits.abandon()`` (the process is stopping: Ctrl-C, SIGTERM) shuts down the sockets of every request in
flight and makes every later request of that client raise ``RequestAbandoned`` before it is sent. A request in flight
ends with ``RequestAbandoned`` too (raised from the ``trace`` callback as its read fails), so it is not retried.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx2

# A chat completion with a summary of the longest allowed max_tokens (32,768 tokens, about 130 KB of text) is well
# under this; anything larger is not a summary.
MAX_ANSWER_BYTES = 2**20
HEADERS = {"Accept-Encoding": "identity"}
_KEY = "summbias_limits"


class AnswerRefused(httpx2.TransportError):
    """The answer was larger than allowed, or compressed although it was asked for uncompressed."""


class DeadlinePassed(httpx2.ReadTimeout):
    """The whole request took longer than its deadline."""


class RequestAbandoned(BaseException):
    """A request of a client whose requests were abandoned. Not an ``Exception``, so the openai client's retry loop
    lets it through instead of sending the request again."""


@dataclass(eq=False)
class _Watch:
    """One request's deadline: the sockets it opened and whether the timer has fired."""

    sockets: list[socket.socket] = field(default_factory=list)
    expired: threading.Event = field(default_factory=threading.Event)
    timer: threading.Timer | None = None
    abandoned: bool = False

    def expire(self) -> None:
        self.expired.set()
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()


class _BoundedStream(httpx2.SyncByteStream):
    """The answer's body, refused beyond ``max_bytes`` or once the deadline has passed; the timer stops at its end."""

    def __init__(self, stream: httpx2.SyncByteStream, watch: _Watch, max_bytes: int, seconds: float):
        self._stream, self._watch, self._max_bytes, self._seconds = stream, watch, max_bytes, seconds

    def __iter__(self) -> Iterator[bytes]:
        received = 0
        try:
            for chunk in self._stream:
                received += len(chunk)
                if received > self._max_bytes:
                    raise AnswerRefused(f"answered more than {describe_bytes(self._max_bytes)}")
                if self._watch.expired.is_set():
                    raise DeadlinePassed(f"no complete answer within {self._seconds:g} s")
                yield chunk
        except httpx2.TransportError as error:
            if self._watch.abandoned:
                raise RequestAbandoned("the request was abandoned") from error
            if self._watch.expired.is_set() and not isinstance(error, DeadlinePassed):
                raise DeadlinePassed(f"no complete answer within {self._seconds:g} s") from error
            raise
        finally:
            self._watch.stop()

    def close(self) -> None:
        self._watch.stop()
        self._stream.close()


def describe_bytes(count: int) -> str:
    return f"{count / 2**20:g} MiB" if count >= 2**20 else f"{count:,} bytes"


class RequestLimits:
    """Event hooks and client settings that give every request a total deadline and a bounded answer."""

    def __init__(self, seconds: float, max_bytes: int = MAX_ANSWER_BYTES):
        self.seconds = seconds
        self.max_bytes = max_bytes
        self._in_flight: weakref.WeakSet[_Watch] = weakref.WeakSet()
        self._abandoned = threading.Event()
        self._lock = threading.Lock()

    def abandon(self) -> None:
        """Stop every request at once: those in flight lose their sockets, later ones are never sent."""
        self._abandoned.set()
        with self._lock:
            in_flight = list(self._in_flight)
        for watch in in_flight:
            watch.abandoned = True
            watch.expire()

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments for an ``httpx2.Client`` (e.g. openai's ``DefaultHttpxClient``)."""
        return {"event_hooks": {"request": [self._start], "response": [self._bound]}, "headers": HEADERS,
                "limits": httpx2.Limits(max_keepalive_connections=0)}

    def _start(self, request: httpx2.Request) -> None:
        watch = _Watch()
        with self._lock:  # added before the check: abandon() either sees this watch or this check sees abandon()
            self._in_flight.add(watch)
        if self._abandoned.is_set():
            raise RequestAbandoned("the requests of this client were abandoned")
        traced = request.extensions.get("trace")

        def trace(event: str, info: dict[str, Any]) -> None:
            if watch.abandoned and event.endswith(".failed"):  # its socket was shut down by abandon()
                raise RequestAbandoned("the request was abandoned")
            if event == "connection.connect_tcp.complete" and info.get("return_value") is not None:
                sock = info["return_value"].get_extra_info("socket")
                if sock is not None:
                    watch.sockets.append(sock)
                    if watch.expired.is_set():  # expired while connecting
                        watch.expire()
            if traced is not None:
                traced(event, info)

        request.extensions["trace"] = trace
        request.extensions[_KEY] = watch
        watch.timer = threading.Timer(self.seconds, watch.expire)
        watch.timer.daemon = True
        watch.timer.start()

    def _bound(self, response: httpx2.Response) -> None:
        watch = response.request.extensions.get(_KEY)
        if watch is None:
            return
        encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
        length = response.headers.get("Content-Length", "")
        problem = None
        if encoding not in ("", "identity"):
            problem = f"answered compressed ({encoding}) although it was asked for an uncompressed answer"
        elif length.isdigit() and int(length) > self.max_bytes:
            problem = f"answered more than {describe_bytes(self.max_bytes)} ({int(length):,} bytes)"
        if problem is not None:
            watch.stop()
            response.close()
            raise AnswerRefused(problem)
        response.stream = _BoundedStream(response.stream, watch, self.max_bytes, self.seconds)

    @staticmethod
    def timed_out(request: httpx2.Request | None) -> bool:
        """Whether ``request`` ran past its deadline (its connection was then shut down)."""
        watch = None if request is None else request.extensions.get(_KEY)
        return watch is not None and watch.expired.is_set()
