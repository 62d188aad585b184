"""`gamedsl analyze`: a design report from bot games (docs/analysis.md).

elements.py finds what a file can set off and what fired; observe.py plays and watches one game;
metrics.py turns the records into figures and compares versions; command.py is the command and
its terminal output; html.py writes the report as one page.
"""
