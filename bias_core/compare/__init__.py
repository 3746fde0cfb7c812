"""What differs between two summaries: the word diff that tells swaps from model changes (``diff``) and, for
sentiment splits, which units a summary draws from (``units``). Read by the verdicts (evidence pairs) and the views."""
