"""An evidence link opens Compare on its pair with each side labelled by what it is, and without Streamlit's warning
for a widget given both a default and a session-state value (issue 29, Why 7 and Why 9g)."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from urllib.parse import parse_qs

import pytest

from bias_core.reference.demo import ensure_demo_run
from bias_core.runs.store import RunStore
from bias_core.views.sides import side_label
from tests.conftest import open_app

WARNING = "was created with a default value but also had its value set via the Session State API"


@pytest.fixture
def live_policy_check(monkeypatch):
    """Streamlit checks a widget's default against its state only with a runtime, and warns once per process: make
    the check run under AppTest and collect what it logs."""
    from streamlit.elements.lib import policies

    monkeypatch.setattr(policies, "runtime", SimpleNamespace(exists=lambda: True))
    logged: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            logged.append(record.getMessage())

    handler = Collect()
    policies._LOGGER.addHandler(handler)
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    yield logged
    policies._LOGGER.removeHandler(handler)


def test_every_evidence_link_opens_compare_on_its_pair_without_a_widget_default_warning(live_policy_check):
    store = RunStore()
    run_id = ensure_demo_run(store)
    inputs = {item.id: item for item in store.inputs(run_id)}
    app = open_app("pages/overview.py")
    links = app.get("page_link")
    assert links
    for link in links[:3]:  # the first visit and the ones that come back to Compare with remembered choices
        params = {key: values[0] for key, values in parse_qs(link.proto.query_string).items()}
        app.query_params.update(params)
        app.switch_page("pages/compare.py").run()
        assert not app.exception, app.exception
        side_a, side_b = app.selectbox(key="compare_a"), app.selectbox(key="compare_b")
        assert (side_a.value, side_b.value) == (params["evidence_a"], params["evidence_b"])
        for side, input_id in ((side_a, params["evidence_a"]), (side_b, params["evidence_b"])):
            label = side.format_func(input_id)
            assert label == side_label(inputs[input_id])
            assert (label == "original") == (inputs[input_id].perturbation == "identity")
        app.switch_page("pages/overview.py").run()
    assert not [message for message in live_policy_check if WARNING in message]


def test_side_b_of_another_original_starts_at_the_variant_that_differs_most():
    store = RunStore()
    ensure_demo_run(store)
    app = open_app("pages/compare.py")
    originals = app.selectbox(key="compare_original").options
    app.selectbox(key="compare_original").set_value(app.selectbox(key="compare_original").value).run()
    first_b = app.selectbox(key="compare_b").value
    other = next(option for option in originals if option != app.selectbox(key="compare_original").value)
    app.selectbox(key="compare_original").set_value(other).run()
    assert not app.exception
    side_b = app.selectbox(key="compare_b")
    assert side_b.value != first_b and side_b.value.startswith(other)
    assert side_b.value != app.selectbox(key="compare_a").value
