"""The choice of a Hugging Face model on the Audit and "Summarize one document" pages: only the models the operator
listed as ``[[models]]`` in the endpoints file (``bias_core.safety.endpoints``, the file ``$SUMMBIAS_ENDPOINTS``
names), never a Hub id or a server path typed in the browser (issue 30). The browser picks a name; the model, and the
variable of the only token its loading may send, come from the operator's file on the server."""

from __future__ import annotations

import streamlit as st

from bias_core.safety.endpoints import ENV, Model, browser_models
from bias_core.safety.errors import BiasCoreError
from pages.render import md_escape

NONE_LISTED = (f"No Hugging Face model is open to the browser. The operator lists the models the app may load as "
               f"[[models]] entries of the TOML file named in {ENV} (see the README); the command line can load "
               "any model.")


def configured_models(report_errors: bool = True) -> list[Model]:
    """The operator's models; a broken file gets one line (unless ``report_errors`` is False, where the page shows
    the same file's error elsewhere) and no model."""
    try:
        return browser_models()
    except BiasCoreError as error:
        if report_errors:
            st.error(md_escape(f"The endpoints file could not be used. {error}"))
        return []


def model_choice(key: str, *, optional: bool = False, report_errors: bool = True
                 ) -> tuple[str, dict[str, object]] | None:
    """The model picked under the widget key ``key``: the ``hf:`` summarizer's name and its parameters (the token's
    variable from the operator's file), or None while none is picked. ``optional``: nothing is picked at first."""
    models = {model.name: model for model in configured_models(report_errors)}
    if not models:
        st.caption(NONE_LISTED)
        return None
    if key in st.session_state and st.session_state[key] not in models:  # a choice the file no longer lists
        st.session_state.pop(key)
    name = st.selectbox("Hugging Face model", list(models), index=None if optional else 0, key=key,
                        placeholder="None" if optional else "Choose a model",
                        help="The Hugging Face models the operator of this app has opened to the browser.")
    if name is None:
        return None
    model = models[name]
    st.caption(md_escape(("a model folder on the server" if model.model.startswith(("/", ".", "~"))
                          else f"{model.model} from the Hugging Face Hub") + " · token: "
                         + (f"from the server's {model.token_env}" if model.token_env else "none")))
    return model.summarizer_name, model.summarizer_params()
