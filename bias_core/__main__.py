"""`python -m bias_core …` runs the command line.

Ctrl-C while the command line is still being imported (its first fraction of a second) ends as one line and exit
code 130, like a Ctrl-C later on, not as a traceback of the import. A command stopped by Ctrl-C or SIGTERM has saved
what it keeps and said so by the time ``main`` returns (``bias_core.runs.stopping``); the process then exits at once
instead of waiting for work it abandoned (a model's native threads finishing the generations already queued, a
request thread's retry pause), which could take as long as the rest of a batch.
"""

import os
import sys

try:
    from bias_core.cli import main
except KeyboardInterrupt:
    print("interrupted before anything was done", file=sys.stderr)
    sys.exit(130)
try:
    code = main()
except KeyboardInterrupt:  # in the instant before main's own handler is in place or after it is gone
    print("interrupted", file=sys.stderr)
    code = 130
if code in (130, 143):
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
sys.exit(code)
