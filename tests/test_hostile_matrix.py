"""The hostile-input matrix through the command line and through the app: every bad file gets one clear message
(what, where, what to do), exit code 2 on the CLI, an error box in the app, and never a traceback."""

from __future__ import annotations

import io
import zipfile

import pytest

from bias_core.cli import main
from tests.conftest import open_app


def zip_of(entries: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


HOSTILE = {
    "empty file": ("empty.txt", b"", "is empty"),
    "image renamed .txt": ("photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "looks like a binary file"),
    "non-UTF-8 text": ("latin1.txt", "Café Müller said he would resign.".encode("latin-1"), "is not UTF-8 text"),
    "malformed JSONL line": ("docs.jsonl", b'{"id": "a", "text": "ok"}\n{"id": "b", "text": \n', "line 2"),
    "CSV without the text column": ("docs.csv", b"id,body\n1,hello\n", "has no column 'text'"),
    "duplicate ids": ("docs.jsonl", b'{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n', "appears more than once"),
    "zip bomb": ("bomb.zip", zip_of({"a.txt": b"0" * 5_000_000}), "looks like a zip bomb"),
    "nested zip": ("nested.zip", zip_of({"inner.zip": zip_of({"a.txt": b"hello"})}), "nested zip"),
    "entry outside the archive": ("evil.zip", zip_of({"../evil.txt": b"hello"}), "points outside the archive"),
    "absolute entry path": ("abs.zip", zip_of({"/etc/evil.txt": b"hello"}), "points outside the archive"),
    "unsupported type": ("report.pdf", b"%PDF-1.4", "unsupported file type"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_the_cli_refuses_hostile_files_with_one_line(case, tmp_path, capsys):
    name, data, expected = HOSTILE[case]
    path = tmp_path / name
    path.write_bytes(data)
    code = main(["summarize", "--summarizer", "lead-3", "--inputs", str(path), "--out", str(tmp_path / "s.jsonl")])
    error = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(error) == 1 and error[0].startswith(f"error: {path}")
    assert expected in error[0] and "Traceback" not in error[0]
    assert not (tmp_path / "s.jsonl").exists()


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_the_app_refuses_hostile_uploads_with_a_message(case):
    name, data, expected = HOSTILE[case]
    app = open_app()
    app.radio(key="corpus_choice").set_value("Upload a file").run()
    app.file_uploader(key="corpus_upload").upload(name, data, "application/octet-stream").run()
    assert not app.exception
    if name.endswith(".csv"):  # the app asks for the column instead: the only one offered is not text
        app.selectbox(key="csv_text").set_value("body").run()
        assert app.session_state["documents"][0].text == "hello"
        return
    assert app.error and app.error[0].value.startswith(f"Could not load the file. {name}")
    assert expected in app.error[0].value
    assert "documents" not in app.session_state or not app.session_state["documents"]


def test_streamlit_and_bias_core_enforce_the_same_upload_limit():
    import tomllib

    from bias_core.documents.decoding import DEFAULT_MAX_BYTES
    from tests.conftest import REPO

    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] * 10**6 == DEFAULT_MAX_BYTES  # Streamlit counts 1 MB as 10**6 bytes
