"""`python -m bias_core …` runs the command line.

Ctrl-C while the command line is still being imported (its first fraction of a second) ends as one line and exit
code 130, like a Ctrl-C later on, not as a traceback of the import.
"""

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
sys.exit(code)
