"""`python -m gamedsl`: the gamedsl command line."""
import sys

from .tools.cli import main

sys.exit(main())
