"""The shared pieces every stage uses: the records that flow between stages, statistics, the spaCy and
sentence-transformers loader, word lists, number words, SQLite file opening and where the shipped data lives.
Imports only ``safety``."""
