"""`python -m bias_core …` runs the command line."""

import sys

from bias_core.cli import main

sys.exit(main())
