"""bias_core: the headless library behind summbias — perturb documents, summarize them, measure bias.

The app and the command line are thin views over this package; it never imports Streamlit.
"""

__version__ = "0.1.0"
