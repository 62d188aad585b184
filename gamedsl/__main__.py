"""`python -m gamedsl`: the gamedsl command line."""
import sys

from .cli import main

sys.exit(main())
