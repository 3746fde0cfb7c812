"""The import rules of docs/architecture.md hold (issue 32): each stage package imports only packages below it, no
two modules import each other, bias_core never imports Streamlit, no private name crosses a package, no module of
bias_core or the app is over 500 lines, and the document's picture is the one the imports draw today."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def architecture():
    spec = importlib.util.spec_from_file_location("architecture", ROOT / "scripts" / "architecture.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["architecture"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("architecture", None)


@pytest.fixture(scope="module")
def modules(architecture):
    return architecture.read_modules()


def test_every_module_of_bias_core_sits_in_a_stage_package_or_is_one_of_the_top_modules(architecture, modules):
    top = sorted(name for name, module in modules.items() if module.layer is None)
    assert top == sorted(architecture.TOP_MODULES)


def test_no_module_imports_a_package_above_its_own(architecture, modules):
    upward = [line for line in architecture.problems(modules) if "a higher layer" in line]
    assert upward == []


def test_no_two_modules_import_each_other(architecture, modules):
    assert [line for line in architecture.problems(modules) if "each other" in line] == []


def test_bias_core_never_imports_streamlit(modules):
    assert [name for name, module in modules.items() if "streamlit" in module.external] == []


def test_no_private_name_is_imported_from_another_package(modules):
    assert [(name, module.private) for name, module in modules.items() if module.private] == []


def test_no_module_of_bias_core_or_the_app_is_over_500_lines(architecture, modules):
    sizes = [(name, module.lines) for name, module in modules.items()] + architecture.page_sizes()
    assert [(name, lines) for name, lines in sizes if lines > architecture.MAX_LINES] == []


def test_the_package_face_imports_nothing_of_the_project(modules):
    assert dict(modules["bias_core"].imports) == {}


def test_docs_architecture_is_the_picture_the_imports_draw_today(architecture, modules):
    text = architecture.DOC.read_text(encoding="utf-8")
    assert architecture.generated(modules) in text, "run .venv/bin/python scripts/architecture.py"


def _plant(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_rules_catch_every_kind_of_planted_violation(architecture, tmp_path):
    _plant(tmp_path, {
        "bias_core/__init__.py": "",
        "bias_core/safety/__init__.py": "",
        "bias_core/safety/low.py": "def f():\n    from bias_core.runs.high import thing\n",
        "bias_core/runs/__init__.py": "",
        "bias_core/runs/high.py": "thing = 1\n_secret = 2\n",
        "bias_core/runs/a.py": "from bias_core.runs import b\n",
        "bias_core/runs/b.py": "from bias_core.runs.a import x\n",
        "bias_core/views/__init__.py": "",
        "bias_core/views/ui.py": "import streamlit as st\nfrom bias_core.runs.high import _secret\n",
        "bias_core/views/big.py": "x = 1\n" * 501,
        "bias_core/stray.py": "",
    })
    found = architecture.problems(architecture.read_modules(tmp_path))
    assert any("bias_core.safety.low (line 2) imports bias_core.runs.high, a higher layer" == line for line in found)
    assert "bias_core.runs.a and bias_core.runs.b import each other" in found
    assert "bias_core.views.ui (line 1) imports streamlit" in found
    assert "bias_core.views.ui (line 2) imports the private name bias_core.runs.high._secret" in found
    assert "bias_core.views.big has 501 lines (at most 500)" in found
    assert "bias_core.stray is a module at bias_core's top: put it in a stage package" in found
    assert len(found) == 6, found


def test_a_private_name_within_its_own_package_is_allowed(architecture, tmp_path):
    _plant(tmp_path, {
        "bias_core/__init__.py": "",
        "bias_core/perturb/__init__.py": "",
        "bias_core/perturb/a.py": "_helper = 1\n",
        "bias_core/perturb/b.py": "from bias_core.perturb.a import _helper\n",
    })
    assert architecture.problems(architecture.read_modules(tmp_path)) == []
