"""The result pages' libraries are imported in the background only while no page is being drawn (issue 31,
Deliver 6): an import beside a page halves that page's speed."""

from __future__ import annotations

import threading

from pages.parts import warming


def test_each_step_waits_until_no_page_is_being_drawn():
    taken: list[str] = []
    drawing = threading.Event()
    drawing.set()
    worker = threading.Thread(target=warming.warm, args=((lambda: taken.append("one"), lambda: taken.append("two")),
                                                         30.0, drawing.is_set))
    worker.start()
    worker.join(0.3)
    assert taken == []  # a page is being drawn: nothing is imported beside it
    drawing.clear()
    worker.join(5)
    assert taken == ["one", "two"] and not worker.is_alive()


def test_a_page_that_never_ends_delays_the_warming_by_its_patience_only():
    taken: list[str] = []
    warming.warm((lambda: taken.append("step"),), patience=0.1, busy=lambda: True)
    assert taken == ["step"]


def test_a_step_that_fails_leaves_the_others_to_be_taken():
    taken: list[str] = []
    warming.warm(("no_such_module_in_summbias", lambda: taken.append("after")), patience=0.1, busy=lambda: False)
    assert taken == ["after"]


def test_a_page_being_drawn_is_seen_on_the_thread_streamlit_draws_it_on():
    release = threading.Event()
    page = threading.Thread(target=release.wait, name=warming.SCRIPT_THREAD)
    page.start()
    try:
        assert warming.page_being_drawn()
    finally:
        release.set()
        page.join()
    assert not warming.page_being_drawn()


def test_every_warming_step_names_a_module_that_exists_or_a_function():
    import importlib.util

    for step in warming.WARM_STEPS:
        assert callable(step) or importlib.util.find_spec(step) is not None, step
