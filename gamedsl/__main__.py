"""`python -m gamedsl`: the gamedsl command line."""
from .tools.cli import run

run()
