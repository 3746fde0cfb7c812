"""Runs: the audit configuration, the pipeline that runs an audit stage by stage, progress and time estimates,
launching a worker, executors (local, Ray), stopping on a signal, and the SQLite run store."""
