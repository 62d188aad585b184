"""What the longest games, and the games won from behind, have in common: the rules that fired
and the kinds of card played in them, against the other games (issue 41: every Law game over 209
moves used A♦'s "discard 2 to draw 1", found by a trace written by hand).

The longest games are the tenth of the games that ended with the most moves (at least `LEAST`),
and every game as long as the shortest of them; the others are the shorter games. The games won
from behind are those whose one winner was not the leader half-way through (by the standings of
tension, standing.py); the others are those the leader then went on to win.
For each rule (an action, trigger, modifier, `steps` block or `say` line: a statement is its
rule's) and each kind of card, the share of the long games it fired (was played) in is set
against the share of the others with Fisher's exact test, Benjamini-Hochberg over them all; the
significant ones, the strongest evidence first, are what the long games have in common.
"""
from __future__ import annotations

from ..stats import fdr, two_rates
from .standing import FRACTIONS

TAIL = 0.1  # the share of the games (by moves) that are the longest
LEAST = 5  # long games at least


def long_games(records: list, context, elements: list[dict]) -> dict:
    """The rules and cards over-represented in the longest games (elements: coverage's rows)."""
    finished = sorted((r for r in records if not r["limit_hit"]), key=lambda r: r["moves"])
    tail = max(LEAST, round(TAIL * len(finished)))
    threshold = finished[-tail]["moves"] if len(finished) >= tail else 0
    longest = [r for r in finished if r["moves"] >= threshold]  # (those as long as the tenth's shortest too)
    rest = [r for r in finished if r["moves"] < threshold]
    if len(finished) < 2 * LEAST or len(rest) < LEAST:
        return {"measured": False, "why": f"too few games that ended, or of other lengths ({len(finished)} ended, "
                                          f"{len(rest)} shorter than the longest tenth)"}
    return {**in_common(longest, rest, context, elements), "moves_over": threshold,
            "group": f"the longest games ({len(longest)}, of {threshold:,} moves or more)"}


def comebacks(records: list, context, elements: list[dict], unit: str, half: str) -> dict:
    """The rules and cards over-represented in the games won from behind: the one winner was not
    the leader at the middle of the game (`unit`: the tension's turn or round; `half`: its words)."""
    mid = FRACTIONS.index(0.5)
    behind, ahead = [], []
    for r in records:
        t = r["tension"][unit]
        if r["limit_hit"] or t["winner"] < 0 or t["leader_at"][mid] < 0:
            continue
        (ahead if t["leader_at"][mid] == t["winner"] else behind).append(r)
    if len(behind) < LEAST or len(ahead) < LEAST:
        return {"measured": False, "why": f"too few games won from behind, or by the leader ({len(behind)} and "
                                          f"{len(ahead)})"}
    return {**in_common(behind, ahead, context, elements),
            "group": f"the games won from behind ({len(behind)}, whose winner did not lead {half})"}


def in_common(group: list, rest: list, context, elements: list[dict]) -> dict:
    """Each rule and kind of card: the share of `group` it fired (was played) in against the share of
    `rest`; the significant ones (Fisher, Benjamini-Hochberg) more frequent in the group, the strongest
    evidence first."""
    rows = []
    rules = [e for e in elements if e["parent"] is None]
    for e in rules:
        rows.append(_row(f"the {e['kind']} at {e['where']}", e["text"],
                         [e["index"] in r["fired"] for r in group], [e["index"] in r["fired"] for r in rest]))
    kinds = context.kinds
    for k, name in enumerate(context.kind_names):
        def played(r, k=k):
            return any(kinds[c] == k for cards in r["played"] for c in cards)
        rows.append(_row(f"{name} played", name, [played(r) for r in group], [played(r) for r in rest]))
    rows = [row for row in rows if row["p"] is not None]
    fdr(rows)
    # the strongest evidence first: a rule that fires in most long games and almost no others (Law's
    # A♦, 85% against 3%) before one that fires in every long game because it is long (the draw
    # pile rebuilt, 100% against 12%)
    found = sorted((row for row in rows if row["significant"] and row["diff"] > 0),
                   key=lambda row: (row["p"], -row["diff"]))
    return {"measured": True, "games": len(group), "rows": found}


def _row(what: str, text: str, in_long: list, in_rest: list) -> dict:
    test = two_rates(sum(in_rest), len(in_rest), sum(in_long), len(in_long))
    return {"what": what, "text": text, "long": sum(in_long) / len(in_long), "rest": sum(in_rest) / len(in_rest),
            "diff": test["diff"], "p": test["p"]}


def finding(found: dict) -> tuple[str, bool] | None:
    """The findings line: the most over-represented rule or card of the group, or None."""
    if not found["measured"] or not found["rows"]:
        return None
    top, *others = found["rows"]
    rule = next((row for row in others if not row["what"].endswith(" played")), None)  # the next rule, if any
    more = len(others) - (rule is not None)
    also = f"; and {_what(rule)}: in {100 * rule['long']:.0f}% against {100 * rule['rest']:.0f}%" if rule else ""
    return (f"{found['group']} have {_what(top)} in common: in {100 * top['long']:.0f}% of them, against "
            f"{100 * top['rest']:.0f}% of the others ({_q(top)}){also}"
            + (f" (and {more} more)" if more else ""), True)


def _what(row: dict) -> str:
    return row["what"] if row["what"].endswith(" played") else f"{row['what']} ({row['text'][:60]})"


def _q(row: dict) -> str:
    return "q < 0.001" if row["q"] < 0.001 else f"q = {row['q']:.3f}"
