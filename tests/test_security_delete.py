"""Delete means delete (issue 23): after "Delete run" no file under the store's folder holds the run's text — not
the store (zeroed with secure_delete), not its write-ahead log (checkpointed and truncated), not the corpus file,
the config or the worker's log the launcher wrote."""

from __future__ import annotations

from pathlib import Path

from bias_core.runs.store import RunStore
from tests.conftest import launch_small_audit, open_app

TEXT = b"Quaxwellington Brimble, the harbour master, said the Zorblatt ferry will stop on Monday."


def files_holding(folder: Path, needle: bytes) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*")
                  if path.is_file() and needle in path.read_bytes())


def audit_an_upload(name: str, text: bytes):
    app = open_app("pages/corpus.py")
    app.radio(key="corpus_choice").set_value("Upload a file").run()
    app.file_uploader(key="corpus_upload").upload(name, text, "text/plain").run()
    app.switch_page("pages/audit.py").run()
    app.multiselect(key="audit_perturbations").set_value([]).run()
    store, info = launch_small_audit(app)
    assert info.status == "completed", info.message
    return app, store, info


def delete_on_the_runs_page(app, run_id: str) -> None:
    app.switch_page("pages/runs.py").run()
    app.selectbox(key="runs_selected").set_value(run_id).run()
    app.checkbox(key="runs_confirm_delete").check().run()
    app.button(key="runs_delete").click().run()
    assert not app.exception and not app.error


def test_a_deleted_run_leaves_its_text_in_no_file_of_the_store_folder(tmp_path, monkeypatch):
    folder = tmp_path / "store"
    monkeypatch.setenv("SUMMBIAS_STORE", str(folder / "runs.sqlite"))  # the summary cache stays outside it
    app, store, info = audit_an_upload("harbour.txt", TEXT)
    holding = files_holding(folder, b"Quaxwellington")
    assert "runs.sqlite" in holding or "runs.sqlite-wal" in holding
    assert any(name.startswith("corpora/") for name in holding)
    assert (folder / "configs" / f"{info.id}.json").exists() and (folder / "logs" / f"{info.id}.log").exists()
    store.close()
    delete_on_the_runs_page(app, info.id)
    assert files_holding(folder, b"Quaxwellington") == []
    assert files_holding(folder, b"harbour.txt") == []  # the run's name and config are gone too
    assert not (folder / "configs" / f"{info.id}.json").exists() and not (folder / "logs" / f"{info.id}.log").exists()
    assert not RunStore().has_run(info.id)


def test_a_corpus_file_another_run_uses_is_kept(tmp_path, monkeypatch):
    folder = tmp_path / "store"
    monkeypatch.setenv("SUMMBIAS_STORE", str(folder / "runs.sqlite"))
    app, store, first = audit_an_upload("harbour.txt", TEXT)
    app.select_slider(key="audit_bootstrap").set_value(500).run()  # another config, the same corpus
    app.button(key="audit_run").click().run()
    second = app.session_state["run_id"]
    assert second != first.id
    corpus = Path(store.get_run(second).config["corpus"]["path"])
    assert corpus == Path(first.config["corpus"]["path"])
    delete_on_the_runs_page(app, first.id)
    assert corpus.exists()  # the second run still reads it
    assert not (folder / "configs" / f"{first.id}.json").exists()
