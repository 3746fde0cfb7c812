"""Documents: reading and writing the corpus and record formats (JSONL, CSV, text folders, uploads), their limits and
decoding, and the language check. Stage 1 of the pipeline: documents → inputs → summaries → measures → verdicts."""
