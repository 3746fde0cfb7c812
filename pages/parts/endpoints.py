"""The choice of an OpenAI-compatible endpoint on the Audit and "Summarize one document" pages: only the endpoints
the operator listed (``bias_core.safety.endpoints``, the file ``$SUMMBIAS_ENDPOINTS`` names), never a URL or a variable
name typed in the browser (issue 23)."""

from __future__ import annotations

import streamlit as st

from bias_core.safety.endpoints import ENV, Endpoint, browser_endpoints
from bias_core.safety.errors import BiasCoreError
from pages.render import md_escape

NONE_CONFIGURED = (f"No endpoint is open to the browser. The operator lists the endpoints the app may use in a TOML "
                   f"file and names it in {ENV} (see the README); the command line can use any endpoint.")


def configured_endpoints() -> list[Endpoint]:
    """The operator's endpoints; a broken file gets one line and no endpoint."""
    try:
        return browser_endpoints()
    except BiasCoreError as error:
        st.error(md_escape(f"The endpoints file could not be used. {error}"))
        return []


def endpoint_choice(key: str) -> tuple[str, dict[str, object]] | None:
    """The endpoint and model picked under widget keys starting with ``key``: the ``openai:`` summarizer's name and
    its parameters (base URL and key variable from the operator's file), or None while none is picked."""
    endpoints = {endpoint.name: endpoint for endpoint in configured_endpoints()}
    if not endpoints:
        st.caption(NONE_CONFIGURED)
        return None
    if st.session_state.get(f"{key}_endpoint") not in endpoints:  # a remembered choice the file no longer lists
        st.session_state.pop(f"{key}_endpoint", None)
    name = st.selectbox("Endpoint", list(endpoints), key=f"{key}_endpoint",
                        help="The endpoints the operator of this app has opened to the browser.")
    endpoint = endpoints[name]
    st.caption(md_escape(f"{endpoint.base_url} · key: "
                         + (f"from the server's {endpoint.api_key_env}" if endpoint.api_key_env else "none")))
    if endpoint.models:
        if st.session_state.get(f"{key}_model_choice") not in endpoint.models:
            st.session_state.pop(f"{key}_model_choice", None)
        model = st.selectbox("Model", endpoint.models, index=None, placeholder="Choose a model",
                             key=f"{key}_model_choice") or ""
    else:
        model = st.text_input("Model name", key=f"{key}_model", placeholder="llama3").strip()
    if not endpoint.allows_model(model):
        return None
    return f"openai:{model}", endpoint.summarizer_params()
