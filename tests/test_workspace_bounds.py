"""Workspaces are bounded by bytes, not kept documents (issue 23): an upload is kept as its file on disk, in a folder
only the server's user may read, and parsed again on a refresh; no workspace holds parsed documents in memory; the
upload files of all workspaces stay under MAX_UPLOAD_BYTES, the least recently used forgotten first."""

from __future__ import annotations

import gc
import stat
import types

from streamlit.testing.v1 import AppTest

from bias_core.common.records import Document
from pages.parts import workspace
from tests.conftest import REPO, open_app

ARTICLE = b"Mayor Robert Moore said he will resign. His wife, Mary Moore, agreed."


def upload(at: AppTest, name: str, data: bytes) -> str:
    at.radio(key="corpus_choice").set_value("Upload a file").run()
    at.file_uploader(key="corpus_upload").upload(name, data, "text/plain").run()
    assert not at.exception, at.exception
    token = at.query_params["ws"]
    return token[0] if isinstance(token, list) else token


def refresh(token: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["ws"] = token
    at.run()
    assert not at.exception, at.exception
    return at


def reaches_a_document(root) -> bool:
    """Whether any object reachable from ``root`` through data (not classes, modules or functions) is a Document."""
    seen, todo = set(), [root]
    while todo:
        item = todo.pop()
        if id(item) in seen or isinstance(item, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(item))
        if isinstance(item, Document):
            return True
        todo.extend(gc.get_referents(item))
    return False


def test_an_upload_is_kept_on_disk_not_as_documents_and_comes_back_on_a_refresh(monkeypatch):
    monkeypatch.setattr(workspace, "browser_cookie", lambda: "one-browser-" + "a" * 24)
    at = open_app("pages/corpus.py")
    token = upload(at, "council.txt", ARTICLE)
    spaces, _ = workspace._workspaces()
    assert not reaches_a_document(spaces)  # the server keeps bytes on disk for the tab, no parsed documents
    folder = workspace._upload_folder()
    (kept,) = list(folder.iterdir())
    assert kept.read_bytes() == ARTICLE
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    refreshed = refresh(token)
    assert [d.id for d in refreshed.session_state["documents"]] == ["council"]
    assert refreshed.session_state["corpus_name"] == "council.txt"


def test_upload_files_stay_under_the_byte_bound_the_oldest_workspace_forgotten_first(monkeypatch):
    monkeypatch.setattr(workspace, "browser_cookie", lambda: "one-browser-" + "a" * 24)
    size = 4000
    monkeypatch.setattr(workspace, "MAX_UPLOAD_BYTES", 2 * size + 100)  # room for two uploads
    tokens = []
    for index in range(3):
        at = open_app("pages/corpus.py") if index == 0 else AppTest.from_file(str(REPO / "app.py"),
                                                                                default_timeout=120)
        if index:
            at.run()
            at.switch_page("pages/corpus.py").run()
        text = (f"Article {index}. Mayor Robert Moore said he will resign. " * 100)[:size].encode()
        tokens.append(upload(at, f"article-{index}.txt", text))
    files = list(workspace._upload_folder().iterdir())
    assert len(files) == 2 and sum(path.stat().st_size for path in files) <= workspace.MAX_UPLOAD_BYTES
    first, *_, last = tokens
    assert refresh(first).session_state.get("corpus_name") != "article-0.txt"  # forgotten: no corpus comes back
    assert refresh(last).session_state["corpus_name"] == "article-2.txt"
