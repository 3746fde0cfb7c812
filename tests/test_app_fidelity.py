"""The Metrics page links docs/fidelity.md (issue 10): an expander that renders it, with or without a run."""

from __future__ import annotations

from tests.conftest import REPO, open_app
from tests.test_app_compare import open_page


def fidelity_expander(at):
    return [e for e in at.expander if e.label == "How to read these results against the papers: where summbias departs "
            "from them"]


def test_metrics_page_renders_docs_fidelity_in_an_expander(audited_store, tmp_path, monkeypatch):
    at = open_page("pages/metrics.py", audited_store, tmp_path, monkeypatch)
    (expander,) = fidelity_expander(at)
    text = " ".join(block.value for block in expander.markdown)
    first_heading = next(line for line in (REPO / "docs" / "fidelity.md").read_text().splitlines()
                         if line.startswith("# "))
    assert first_heading in text and "authors' code" in text


def test_fidelity_expander_is_there_before_any_run_exists():
    at = open_app("pages/metrics.py")
    assert fidelity_expander(at)
    assert "No runs yet" in at.info[0].value
