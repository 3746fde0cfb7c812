"""URLs without their credentials: what summbias stores, logs, shows and exports of an endpoint (issue 23).

A base URL can carry a password (``http://user:secret@host/v1``) or a key in its query or fragment
(``…/v1?api-key=…``). Only the summarizer's HTTP client ever sees such a URL whole; everything else goes through
``redact_url``: the summarizer's recorded parameters and its failure messages, the run config kept in the store (so
the Runs page, the exports and the HTML report), every one-line error (``errors.one_line``) and the command line's
log (``RedactingFilter``). Redaction works on the text, so a malformed URL (``http://[::1``) is redacted too.
"""

from __future__ import annotations

import logging
import re

MASK = "***"
# A query or fragment parameter whose name contains one of these carries a secret: api-key, api_key, key,
# access_token, token, client_secret, password, passwd, pwd, auth, sig, signature, credential, session.
SECRET_PARAMETER = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session", re.IGNORECASE)
# "scheme://" and everything up to the last "@" before the path: the userinfo (user, user:password or a token), also
# when it holds an unescaped "?" or "#".
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://)[^/]*@")
# One name=value parameter of a query or fragment.
_PARAMETER = re.compile(r"(^|[?&;#])([^=&;#]*)=([^&;#]*)")
# A URL inside free text: a scheme, "://" and everything up to white space or a quote.
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s<>\"'`]+")


def redact_url(url: str) -> str:
    """``url`` with its userinfo and the values of secret-looking query and fragment parameters replaced by
    ``***``; a URL without credentials comes back unchanged, character for character."""
    redacted = _USERINFO.sub(lambda match: match.group(1) + MASK + "@", url, count=1)
    start = min((index for index in (redacted.find("?"), redacted.find("#")) if index >= 0), default=-1)
    if start < 0:
        return redacted

    def mask(match: re.Match[str]) -> str:
        lead, name, value = match.groups()
        return f"{lead}{name}={MASK}" if value and SECRET_PARAMETER.search(name) else match.group(0)

    return redacted[:start] + _PARAMETER.sub(mask, redacted[start:])


def redact_urls(text: str) -> str:
    """``text`` with every URL in it passed through ``redact_url``."""
    return _URL_IN_TEXT.sub(lambda match: redact_url(match.group(0)), text) if "://" in text else text


class RedactingFilter(logging.Filter):
    """A handler filter that redacts URLs in each record's message and traceback before it is written."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_urls(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact_urls(logging.Formatter().formatException(record.exc_info))
        return True


def redact_log_handlers(logger: logging.Logger | None = None) -> None:
    """Add a ``RedactingFilter`` to each handler of ``logger`` (the root logger by default) that has none."""
    for handler in (logger or logging.getLogger()).handlers:
        if not any(isinstance(existing, RedactingFilter) for existing in handler.filters):
            handler.addFilter(RedactingFilter())
