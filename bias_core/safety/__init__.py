"""Safety: the one error type and its one-line messages, credential redaction, the limits every input and option is
checked against, and the endpoint allowlist. The bottom of bias_core: it imports nothing else of it."""
