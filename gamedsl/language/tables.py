"""Tables of every card: a condition that reads nothing of a card but its fixed properties (its
attributes and values), besides values that do not depend on the card, is a function of the
card and of those values alone. It is then answered by looking the card up in a table built
once per set of those values, instead of by running it card by card.

Two places use them: the legal-move loops (Actions.table: the table of the candidates) and
`any` and `all` over a zone (Builtins.card_set: the set of the cards that pass). This
module says which code qualifies; the tables are built and kept by the generated module.
"""
from __future__ import annotations

import re

# What a condition answered by a table may name besides the card and the values it is keyed by:
# card tables and Python's words for logic.
_IDENT = re.compile(r"[A-Za-z_]\w*")
_WORDS = {"and", "or", "not", "if", "else", "in", "is", "True", "False", "None"}
_CARD_TABLE = re.compile(r"(?:A|V)_\w+")
_TABLE_READ = re.compile(r"\b(?:A|V)_\w+\[")
KEPT = 4096  # tables kept per place; past them, the condition runs as written


def table_safe(code: str, card: str, key: re.Pattern) -> bool:
    """Whether `code` names nothing but the card (`card`), card tables, names matching `key` (the
    values the table is keyed by) and Python's words."""
    return "'" not in code and '"' not in code and all(
        w == card or w in _WORDS or _CARD_TABLE.fullmatch(w) or key.fullmatch(w) for w in _IDENT.findall(code))


def table_reads(code: str) -> int:
    """How many card tables the code reads (a table of the candidates of a legal-move loop pays
    only where it replaces two or more)."""
    return len(_TABLE_READ.findall(code))
