"""Uploaded and named files' bytes as text: the size limits on them (``DEFAULT_MAX_BYTES``, ``describe_limit``), the
bounded reading of a file a user names (``read_named_file``, ``gunzip``) and their decoding as UTF-8, UTF-16 or UTF-32
with binary data refused (``decode_text``, ``text_file``)."""

from __future__ import annotations

import codecs
import gzip
import io
import os
import stat
import zlib
from pathlib import Path

from bias_core.safety.errors import InputError
from bias_core.safety.operator_files import read_operator_file

# One megabyte is 1,000,000 bytes here, as in the app's upload widget (Streamlit counts so in every browser but
# Windows ones, and says "File must be 20.0MB or smaller"): the app, the command line and an audit config state one
# limit, 20 MB = 20,000,000 bytes (.streamlit/config.toml's maxUploadSize; issue 23).
BYTES_PER_MB = 1_000_000
DEFAULT_MAX_MB = 20
DEFAULT_MAX_BYTES = DEFAULT_MAX_MB * BYTES_PER_MB
# Byte-order marks, longest first: the UTF-32 LE mark begins with the UTF-16 LE one.
BYTE_ORDER_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32 text"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32 text"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8 text"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 text"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 text"),
)


def megabytes(max_mb: float) -> int:
    """The bytes of a ``max_mb`` limit (an audit config's ``max_mb``, ``--max-mb``): ``max_mb`` × 1,000,000."""
    return int(max_mb * BYTES_PER_MB)


def describe_limit(max_bytes: int) -> str:
    """'20 MB (20,000,000 bytes)': a size limit in the words every message about it uses."""
    return f"{max_bytes / BYTES_PER_MB:g} MB ({max_bytes:,} bytes)"


SIZE_HINT = ("split the corpus into smaller files, or raise the limit (max_mb in an audit config, --max-mb on the "
             "command line)")


def check_size(source: str, size: int, max_bytes: int, hint: str | None = None) -> None:
    if size > max_bytes:
        raise InputError(
            source,
            f"is {size / BYTES_PER_MB:.1f} MB ({size:,} bytes), over the {describe_limit(max_bytes)} limit",
            hint=hint or SIZE_HINT,
        )
    if size == 0:
        raise InputError(source, "is empty", hint="choose a file that contains text")


def decode_text(source: str, data: bytes) -> str:
    """Return the text of UTF-8 data, or of UTF-8, UTF-16 or UTF-32 data with a byte-order mark (which is dropped).

    UTF-16 without a byte-order mark (a NUL byte at every other position) is decoded too when it decodes cleanly.
    Other data with NUL bytes or many control characters is refused as binary; other encodings are refused with a
    message to re-save the file as UTF-8.
    """
    if not data.strip():
        raise InputError(source, "is empty", hint="choose a file that contains text")
    # FF FE 00 00 is the UTF-32 LE mark or the UTF-16 LE mark before a NUL character: try both, in that order.
    candidates = [(mark, codec, label) for mark, codec, label in BYTE_ORDER_MARKS if data.startswith(mark)]
    for position, (mark, codec, label) in enumerate(candidates):
        try:
            return _decode_checked(source, data[len(mark):], codec, label)
        except InputError:
            if position == len(candidates) - 1:
                raise
    sample = data[:8192]
    if b"\x00" in sample:
        codec = _bomless_utf16(sample)
        if codec is None:
            raise InputError(source, "looks like a binary file (an image, PDF or archive?), not text",
                             hint="upload plain UTF-8 text, .jsonl, .csv or a .zip of .txt files")
        return _decode_checked(source, data, codec, "UTF-16 text without a byte-order mark")
    if _control_share(sample) > 0.1:
        raise InputError(source, "looks like a binary file (an image, PDF or archive?), not text",
                         hint="upload plain UTF-8 text, .jsonl, .csv or a .zip of .txt files")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(source, f"is not UTF-8 text (invalid byte at offset {error.start})",
                         hint="re-save the file as UTF-8") from None


def _decode_checked(source: str, data: bytes, codec: str, label: str) -> str:
    """Decode ``data`` with ``codec``; refuse undecodable or binary-looking results with a message naming ``label``."""
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as error:
        raise InputError(source, f"looks like {label} but does not decode (invalid data at byte {error.start})",
                         hint="re-save the file as UTF-8") from None
    if "\x00" in text[:8192] or _control_share(text[:8192].encode("utf-8", "surrogatepass")) > 0.1:
        raise InputError(source, f"looks like {label} but holds binary data (NUL or control characters)",
                         hint="re-save the file as UTF-8 text")
    if not text.strip():
        raise InputError(source, "is empty", hint="choose a file that contains text")
    return text


def _bomless_utf16(sample: bytes) -> str | None:
    """The UTF-16 codec of text without a byte-order mark, judged by NUL bytes: mostly Latin-script UTF-16 has a NUL
    as the high byte of nearly every character (odd positions for little-endian, even for big-endian) and nowhere
    else; None for anything else."""
    sample = sample[: len(sample) // 2 * 2]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    even_nuls, odd_nuls = even.count(0) / len(even), odd.count(0) / len(odd)
    if odd_nuls >= 0.7 and even_nuls == 0:
        return "utf-16-le"
    if even_nuls >= 0.7 and odd_nuls == 0:
        return "utf-16-be"
    return None


def _control_share(sample: bytes) -> float:
    allowed = {9, 10, 12, 13}
    controls = sum(1 for byte in sample if byte < 32 and byte not in allowed)
    return controls / max(1, len(sample))


def read_named_file(path: str | os.PathLike, max_bytes: int = DEFAULT_MAX_BYTES, *, hint: str | None = None) -> bytes:
    """The bytes of the regular file ``path`` names (a file a user or an operator names: a records file, an option's
    CSV or JSONL, a table), read bounded (issue 30). One ``InputError`` line naming the file when it is missing or a
    folder ("no such file"), a device, named pipe or socket (refused, never read: ``read_operator_file``), or over
    ``max_bytes`` (refused before it is read, in ``check_size``'s words; ``hint`` says how to raise the limit)."""
    source = str(path)
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise InputError(source, "no such file") from None
    except (OSError, ValueError):  # read_operator_file says why, in one line
        status = None
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise InputError(source, "no such file (it is a folder)")
    if status is not None and stat.S_ISREG(status.st_mode):
        check_size(source, status.st_size, max_bytes, hint)
    return read_operator_file(path, what="file", max_bytes=max_bytes)


def gunzip(source: str, data: bytes, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The decompressed bytes of gzip ``data``, at most ``max_bytes`` of them (no more are decompressed, so a small
    file that decompresses to gigabytes is refused at the limit); one ``InputError`` line naming ``source``."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            unpacked = stream.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as error:  # gzip.BadGzipFile is an OSError
        raise InputError(source, f"is not a readable gzip file ({error})") from None
    if len(unpacked) > max_bytes:
        raise InputError(source, f"decompresses to more than {describe_limit(max_bytes)}, its limit")
    return unpacked


def text_file(path: str | Path, max_bytes: int = DEFAULT_MAX_BYTES, *, hint: str | None = None) -> io.StringIO:
    """The text of a file an option names, for ``csv`` or line reading; one ``InputError`` line naming the file when
    it is missing, not a regular file, over ``max_bytes`` (``read_named_file``) or not text ("is not UTF-8 text",
    binary, empty), decoded as corpus files are (``decode_text``)."""
    data = read_named_file(path, max_bytes, hint=hint)
    return io.StringIO(decode_text(str(path), data), newline="")
