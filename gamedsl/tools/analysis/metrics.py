"""The design report's figures, from the records of watched games (observe.py): one version's
metrics, and two versions side by side. docs/analysis.md says what each one means."""
from __future__ import annotations

import statistics

from ..stats import ALPHA, binomial_p, chi_square_p, mean_ci, two_means, two_rates, wilson


def pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def p_text(p: float | None) -> str:
    if p is None:
        return "p n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def rate(wins: int, n: int) -> dict:
    ci = wilson(wins, n)
    return {"count": wins, "n": n, "rate": wins / n if n else None, "ci": list(ci) if ci else None}


def rate_text(r: dict) -> str:
    if r["rate"] is None:
        return "n/a"
    return f"{pct(r['rate'])} ({pct(r['ci'][0])}–{pct(r['ci'][1])})"


def spread(values: list) -> dict:
    mean, ci = mean_ci(values)
    return {"mean": mean, "ci": list(ci) if ci else None, "median": statistics.median(values) if values else None,
            "min": min(values) if values else None, "max": max(values) if values else None}


def _win(record: dict, p: int) -> bool:
    return not record["limit_hit"] and record["results"][p] == "win"


# ---- one version

def fairness(records: list, n: int) -> dict:
    """Win share and mean place per seat (95% intervals), the chi-square test of equal seats, each
    seat's exact binomial test against the expected share, and the same for the player who decided first."""
    games = len(records)
    wins = [sum(_win(r, p) for r in records) for p in range(n)]
    expected = sum(wins) / (games * n) if games else 0.0
    seats = []
    for p in range(n):
        place, place_ci = mean_ci([r["places"][p] for r in records if r["places"][p] is not None])
        seats.append({"seat": p + 1, **rate(wins[p], games), "mean_place": place,
                      "mean_place_ci": list(place_ci) if place_ci else None,
                      "p": binomial_p(wins[p], games, expected)})
    first_wins = sum(_win(r, r["first"]) for r in records)
    first = {**rate(first_wins, games), "p": binomial_p(first_wins, games, expected)}
    chi2 = chi_square_p(wins, [expected * games] * n) if sum(wins) else None
    return {"expected": expected, "per_seat": seats, "seats_p": chi2, "first_player": first,
            "findings": _fairness_findings(seats, first, expected, chi2)}


def _fairness_findings(seats: list, first: dict, expected: float, chi2) -> list[str]:
    out = []
    for s in seats:
        if s["p"] < ALPHA:
            kind = "an advantage" if s["rate"] > expected else "a disadvantage"
            out.append(f"seat {s['seat']} wins {rate_text(s)}, expected {pct(expected)}: {kind} for seat "
                       f"{s['seat']}, {p_text(s['p'])}")
    if first["n"] and first["p"] < ALPHA:
        kind = "a first-player advantage" if first["rate"] > expected else "a first-player disadvantage"
        out.append(f"the player who decides first wins {rate_text(first)}, expected {pct(expected)}: {kind}, "
                   f"{p_text(first['p'])}")
    if not out:
        out.append(f"no seat wins significantly more or less often than expected ({pct(expected)}; "
                   f"seats equal: {p_text(chi2)}; first player {rate_text(first)})")
    return out


def skill(records: list, bot: str, against: str, n: int) -> dict:
    """How often one `bot` wins at a table of `against` bots (its seat rotated), against the fair share."""
    games = len(records)
    wins = 0
    total = 0
    for r in records:
        wins += _win(r, r["seats"].index(bot))
        total += sum(_win(r, p) for p in range(n))
    fair = total / (games * n) if games else 0.0
    out = {"bot": bot, "against": against, "fair": fair, **rate(wins, games), "p": binomial_p(wins, games, fair)}
    if out["p"] < ALPHA:
        verdict = "skill matters" if out["rate"] > fair else f"{bot} does worse than {against}"
    else:
        verdict = "no significant skill gap"
    out["finding"] = (f"{bot} wins {rate_text(out)} against {against}, fair share {pct(fair)}: {verdict}, "
                      f"{p_text(out['p'])}")
    return out


def length(records: list, n: int) -> dict:
    moves = [r["moves"] for r in records]
    decisions = sum(r["decisions"] for r in records)
    return {"moves": spread(moves), "moves_list": moves,
            "turns_per_player": spread([r["moves_by"][p] for r in records for p in range(n)]),
            "rounds": spread([r["rounds"] for r in records]),
            "forced_share": sum(r["forced"] for r in records) / decisions if decisions else None,
            "mean_choices": sum(r["choices"] for r in records) / decisions if decisions else None,
            "limit_hit": sum(r["limit_hit"] for r in records)}


def tension(records: list, heuristic: bool) -> dict:
    if not heuristic:
        return {"measured": False, "why": "the game declares no heuristic to tell who leads"}
    leads = [r["lead"] for r in records if r["lead"] is not None]
    single = [x for x in leads if x["behind"] is not None]
    decided = [x["decided_at"] for x in single]
    return {"measured": True, "lead_changes": spread([x["changes"] for x in leads]),
            "winner_behind": rate(sum(x["behind"] for x in single), len(single)),
            "winner_behind_share": spread([x["behind_share"] for x in single]),
            "decided_at": spread(decided), "decided_list": decided, "games_with_one_winner": len(single)}


def coverage(records: list, elements) -> dict:
    games = len(records)
    counts = [0] * len(elements.elements)
    for r in records:
        for e in r["fired"]:
            counts[e] += 1
    rows = [{"kind": el.kind, "name": el.name, "where": el.where(elements.filename), "line": el.line,
             "column": el.column, "text": el.text, "games": c, "share": c / games if games else 0.0}
            for el, c in zip(elements.elements, counts)]
    rows.sort(key=lambda row: (row["line"], row["column"]))  # in the file's order
    return {"elements": rows, "never": [row for row in rows if row["games"] == 0]}


def card_impact(records: list, game, n: int) -> dict:
    """Per card, the win rate of the players who played it (held it at the end) against the others',
    with intervals and a two-proportion test; significant after Bonferroni over the cards."""
    finished = [r for r in records if not r["limit_hit"]]
    cards = game.prog.card_count()
    out = {}
    for key in ("played", "held"):
        with_n, with_w = [0] * cards, [0] * cards
        for r in finished:
            for p in range(n):
                won = r["results"][p] == "win"
                for c in r[key][p]:
                    with_n[c] += 1
                    with_w[c] += won
        pairs = len(finished) * n
        wins = sum(r["results"][p] == "win" for r in finished for p in range(n))
        tested = [c for c in range(cards) if 0 < with_n[c] < pairs]
        rows = []
        for c in tested:
            test = two_rates(wins - with_w[c], pairs - with_n[c], with_w[c], with_n[c])
            rows.append({"card": game.card_name(c), "with": rate(with_w[c], with_n[c]),
                         "without": rate(wins - with_w[c], pairs - with_n[c]), "diff": test["diff"],
                         "p": test["p"], "significant": test["p"] is not None and test["p"] < ALPHA / len(tested)})
        rows.sort(key=lambda row: -row["diff"])
        out[key] = rows
    return out


def version_metrics(context, records: dict, bot: str) -> dict:
    """Every metric of one version from its records by set: 'main' (the fairness games) and
    'skill:OTHER' (bot against OTHER)."""
    n, main = context.players, records["main"]
    return {
        "games": len(main),
        "fairness": fairness(main, n),
        "skill": [skill(rs, bot, name.partition(":")[2], n) for name, rs in records.items() if name != "main"],
        "length": length(main, n),
        "tension": tension(main, context.game.prog.heuristic is not None),
        "coverage": coverage(main, context.elements),
        "cards": card_impact(main, context.game, n),
    }


# ---- two versions

def compare(base: dict, other: dict, base_records: dict, other_records: dict, same_file: bool, n: int) -> dict:
    """The second version against the first: each headline metric's difference, interval and test."""
    b, o = base_records["main"], other_records["main"]
    rows = []

    def add_rate(name, x1, n1, x2, n2):
        rows.append({"metric": name, "base": x1 / n1 if n1 else None, "other": x2 / n2 if n2 else None,
                     **two_rates(x1, n1, x2, n2)})

    def add_mean(name, v1, v2):
        rows.append({"metric": name, "base": statistics.fmean(v1) if v1 else None,
                     "other": statistics.fmean(v2) if v2 else None, **two_means(v1, v2)})

    for p in range(n):
        add_rate(f"seat {p + 1} win rate", sum(_win(r, p) for r in b), len(b), sum(_win(r, p) for r in o), len(o))
    add_rate("first player's win rate", sum(_win(r, r["first"]) for r in b), len(b),
             sum(_win(r, r["first"]) for r in o), len(o))
    for sb, so in zip(base["skill"], other["skill"]):
        add_rate(f"{sb['bot']}'s win rate against {sb['against']}", sb["count"], sb["n"], so["count"], so["n"])
    add_mean("moves per game", [r["moves"] for r in b], [r["moves"] for r in o])
    add_mean("rounds per game", [r["rounds"] for r in b], [r["rounds"] for r in o])
    add_rate("decisions with one legal move", sum(r["forced"] for r in b), sum(r["decisions"] for r in b),
             sum(r["forced"] for r in o), sum(r["decisions"] for r in o))
    add_rate("games that hit the move limit", sum(r["limit_hit"] for r in b), len(b),
             sum(r["limit_hit"] for r in o), len(o))
    if base["tension"]["measured"] and other["tension"]["measured"]:
        lb = [r["lead"] for r in b if r["lead"]]
        lo = [r["lead"] for r in o if r["lead"]]
        add_mean("lead changes", [x["changes"] for x in lb], [x["changes"] for x in lo])
        add_mean("winner decided at (share of the game)", [x["decided_at"] for x in lb if x["decided_at"] is not None],
                 [x["decided_at"] for x in lo if x["decided_at"] is not None])
        sb = [x for x in lb if x["behind"] is not None]
        so = [x for x in lo if x["behind"] is not None]
        add_rate("the winner was behind at some point", sum(x["behind"] for x in sb), len(sb),
                 sum(x["behind"] for x in so), len(so))
    never_b, never_o = len(base["coverage"]["never"]), len(other["coverage"]["never"])
    rows.append({"metric": "elements that never fired", "base": never_b, "other": never_o,
                 "diff": never_o - never_b, "ci": None, "p": None, "significant": False})
    changed = []
    if same_file:
        for eb, eo in zip(base["coverage"]["elements"], other["coverage"]["elements"]):
            test = two_rates(eb["games"], len(b), eo["games"], len(o))
            if test["significant"]:
                changed.append({"where": eb["where"], "kind": eb["kind"], "text": eb["text"],
                                "base": eb["share"], "other": eo["share"], **test})
    return {"rows": rows, "coverage_changes": changed}
