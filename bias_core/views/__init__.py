"""Views the app and the command line share: exports (CSV, JSON, the HTML report), charts and labels of arms and
variants. Nothing here computes a number the verdicts do not."""
