"""A run store the app cannot open (a folder, say) is reported with where its path came from, the environment
variable or the default, never the command line's "--store"; and the app still opens where it always does (issue 29,
Why 9a)."""

from __future__ import annotations

import pytest

from bias_core.runs.run_info import StoreError
from pages.common import where_the_path_comes_from
from tests.conftest import open_app


def test_a_store_path_that_is_a_folder_names_the_variable_it_came_from_and_the_app_opens_on_overview(tmp_path,
                                                                                                   monkeypatch):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    monkeypatch.setenv("SUMMBIAS_STORE", str(folder))
    app = open_app()
    assert app.title[0].value == "Overview"
    shown = [box.value.replace("\\", "") for box in app.error]
    assert shown and all("--store" not in line for line in shown)
    assert any(f"the run store {folder} is a folder, not a file — set the environment variable SUMMBIAS_STORE, "
               "where this path comes from, to a file" in line for line in shown), shown
    for page in ("pages/audit.py", "pages/runs.py", "pages/compare.py"):
        app.switch_page(page).run()
        assert not app.exception, (page, app.exception)
        assert any("SUMMBIAS_STORE" in box.value.replace("\\", "") for box in app.error), page


@pytest.mark.parametrize("variable, expected", [
    ("/x/runs", "set the environment variable SUMMBIAS_STORE, where this path comes from, to a file"),
    ("", ("this is the default path (runs.sqlite in the user's data folder); set the environment variable "
         "SUMMBIAS_STORE to another file")),
])
def test_the_command_lines_advice_becomes_the_apps(variable, expected, monkeypatch):
    monkeypatch.setenv("SUMMBIAS_STORE", variable)
    error = StoreError("the run store /x/runs is a folder, not a file — choose a file with --store")
    told = where_the_path_comes_from(error, "--store", "SUMMBIAS_STORE", "runs.sqlite in the user's data folder")
    assert isinstance(told, StoreError)
    assert str(told) == f"the run store /x/runs is a folder, not a file — {expected}"
    damaged = StoreError("the run store /x/runs is damaged (bad) — move it aside (e.g. `mv a b`) or choose another "
                         "--store")
    assert str(where_the_path_comes_from(damaged, "--store", "SUMMBIAS_STORE", "runs.sqlite in the user's data "
                                         "folder")).endswith(expected)
