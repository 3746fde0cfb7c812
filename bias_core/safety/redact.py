"""URLs without their credentials: what summbias stores, logs, shows and exports of an endpoint (issues 23 and 30).

A base URL can carry a password (``http://user:secret@host/v1``) or a key in its query, its fragment or a path
parameter (``…/v1?api-key=…``, ``…/v1;jsessionid=…/``). Only the summarizer's HTTP client ever sees such a URL whole;
everything else goes through ``redact_url``: the summarizer's recorded parameters and its failure messages, the run
config kept in the store (so the Runs page, the exports and the HTML report), every one-line error
(``errors.one_line``) and the command line's log (``RedactingFilter``). Redaction works on the text, so a malformed
URL (``http://[::1``) is redacted too, and it errs towards masking: a parameter's name is read as the server reads it
(percent-decoded, however many times it was encoded), and a URL in free text keeps its userinfo whole across white
space and control characters (an HTTP client percent-encodes a space in a password; Python's urllib and browsers drop
a tab or a line break), so nothing of a password is left beside the mask.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote_plus

MASK = "***"
# A query, fragment or path parameter whose name contains one of these carries a secret: api-key, api_key, key,
# access_token, token, client_secret, password, passwd, pwd, auth, sig, signature, credential, session (jsessionid).
SECRET_PARAMETER = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session", re.IGNORECASE)
# A URL's scheme and "://", starting where a run of scheme characters starts (so a long run of letters is scanned
# once, not once per letter).
_SCHEME = r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*://"
# "scheme://" and everything up to the last "@" before the path: the userinfo (user, user:password or a token), also
# when it holds an unescaped "?", "#", white space or a control character. Every URL in the text, one inside another's
# query (``?next=http://user:pw@other/``) included.
_USERINFO = re.compile(f"({_SCHEME})[^/]*@")
_SCHEME_AT_START = re.compile(f"^{_SCHEME}")
# A URL inside free text: a scheme, "://", its userinfo (up to the last "@" before a "/", across anything, as above),
# then everything up to white space or a quote; a control character (a tab, a line break) does not end it.
_URL_IN_TEXT = re.compile(f"{_SCHEME}(?:[^/]*@)?(?:[^\\s<>\"'`]|[\\x00-\\x1f\\x7f])*")
# "=" as written, or percent-encoded once or more (%3D, %253D …): a name "key%3Dsecret" is read as key = secret.
_ENCODED_EQUALS = re.compile(r"%(?:25)*3[dD]")
# IIS's %uXXXX escape.
_U_ESCAPE = re.compile(r"%[uU]([0-9a-fA-F]{4})")
# Decodings of a name: more than any server applies (a name encoded 100,000 times would take as many passes).
_DECODINGS = 8


def redact_url(url: str) -> str:
    """``url`` with its userinfo and the values of secret-looking query, fragment and path parameters replaced by
    ``***``; a URL without credentials comes back unchanged, character for character."""
    redacted = _USERINFO.sub(lambda match: match.group(1) + MASK + "@", url)
    redacted = _mask_slash_in_password(redacted)
    start = min((index for index in (redacted.find("?"), redacted.find("#")) if index >= 0), default=len(redacted))
    scheme = _SCHEME_AT_START.match(redacted)
    path_start = redacted.find("/", scheme.end()) if scheme else 0
    if path_start < 0 or path_start > start:
        path_start = start
    path = re.split(r"([/;])", redacted[path_start:start])
    # A path parameter (";name=value", up to the next "/" or ";") follows a ";"; a segment after "/" is no parameter.
    path = [_mask_parameter(part) if index > 1 and path[index - 1] == ";" else part
            for index, part in enumerate(path)]
    query = re.split(r"([?&;#])", redacted[start:])
    query = [part if index % 2 else _mask_parameter(part) for index, part in enumerate(query)]
    return redacted[:path_start] + "".join(path) + "".join(query)


def _mask_slash_in_password(url: str) -> str:
    """``url`` with a userinfo that holds an unescaped "/" (``http://user:pa/ss@host``) masked up to its last "@":
    what stands before that "/" is no host and port (the port is not a number), so it can only be a userinfo."""
    scheme = _SCHEME_AT_START.match(url)
    if not scheme or "@" not in url[scheme.end():]:
        return url
    authority = url[scheme.end():].split("/", 1)[0]
    port = authority.rpartition(":")[2] if ":" in authority else ""
    if "@" in authority or "[" in authority or not port or port.isdigit():
        return url
    return scheme.group(0) + MASK + url[url.rindex("@"):]


def _mask_parameter(parameter: str) -> str:
    """``name=***`` for a ``name=value`` whose name, read as the server reads it, looks secret; else as given."""
    name, equals, value = parameter.partition("=")
    if not equals:
        encoded = _ENCODED_EQUALS.search(parameter)
        if encoded is None:
            return parameter
        name, equals, value = parameter[:encoded.start()], encoded.group(0), parameter[encoded.end():]
    return f"{name}{equals}{MASK}" if value and SECRET_PARAMETER.search(_decoded_name(name)) else parameter


def _decoded_name(name: str) -> str:
    """A parameter name percent-decoded (%XX, IIS's %uXXXX, "+") until nothing changes, at most ``_DECODINGS``
    times, so %6Bey, %256Bey and %u006Bey all read "key"; white space and control characters inside it are dropped
    ("k ey" reads "key")."""
    for _ in range(_DECODINGS):
        decoded = _U_ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), unquote_plus(name))
        if decoded == name:
            break
        name = decoded
    return "".join(character for character in name if character.isprintable() and not character.isspace())


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
