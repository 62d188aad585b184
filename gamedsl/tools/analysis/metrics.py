"""The design report's figures, from the records of watched games (observe.py): one version's
metrics and the findings in words (two versions side by side: versions.py). docs/analysis.md says
what each one means and how it is tested.

The unit of every test is the game: a quantity read per decision or per move is first averaged
within each game. Versions played on the same seeds are compared pair by pair (McNemar's exact
test for outcomes, the signed-rank test for quantities); games of different seeds (the halves of
an A/A test) with Fisher's exact test and the rank-sum test. Every family of tests (the seats,
the rows of a comparison, the rules, the cards) is corrected with Benjamini-Hochberg at 5%.
Where nothing is significant, the finding says so as "can't tell yet", with the effect seen, its
interval and about how many games would settle it.
"""
from __future__ import annotations

import math
import statistics

from ..stats import (ALPHA, binomial_p, chi_square_p, fdr, games_to_settle, mean_ci, median_ci, paired_rates,
                     paired_test, two_rates, wilson)
from .causes import comebacks, finding as causes_finding, long_games
from .reach import where_text
from .standing import FRACTIONS

DECIDED = 0.9  # the leader "has it" once they go on to win this often
MEANINGFUL = 0.05  # a choice matters when its best and worst moves differ by this share of the heuristic's range
STAGES = (0.25, 0.5, 0.75)  # where the standings are compared with the outcome


def pct(x: float | None, digits: int = 0) -> str:
    return "—" if x is None else f"{100 * x:.{digits}f}%"


def pp(x: float | None) -> str:
    """A difference of two rates, in percentage points."""
    return "—" if x is None else f"{100 * x:+.0f} points"


def p_text(p: float | None, name: str = "p") -> str:
    if p is None:
        return f"{name} n/a"
    return f"{name} < 0.001" if p < 0.001 else f"{name} = {p:.3f}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def rate(wins: int, n: int) -> dict:
    ci = wilson(wins, n)
    return {"count": wins, "n": n, "rate": wins / n if n else None, "ci": list(ci) if ci else None}


def rate_text(r: dict) -> str:
    if r["rate"] is None:
        return "n/a"
    return f"{pct(r['rate'])} ({pct(r['ci'][0])}–{pct(r['ci'][1])})"


def spread(values: list, heavy: bool = False) -> dict:
    """Mean (95% interval), median (a bootstrap interval where the tail is heavy), range, 95th percentile."""
    values = [v for v in values if v is not None]
    mean, ci = mean_ci(values)
    out = {"n": len(values), "mean": mean, "ci": list(ci) if ci else None,
           "median": statistics.median(values) if values else None,
           "min": min(values) if values else None, "max": max(values) if values else None,
           "p95": _quantile(values, 0.95)}
    if heavy:
        _, mci = median_ci(values)
        out["median_ci"] = list(mci) if mci else None
    return out


def _quantile(values: list, q: float):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def mean_text(s: dict, unit: str = "", digits: int = 1) -> str:
    if s["mean"] is None:
        return "n/a"
    ci = f" ({s['ci'][0]:.{digits}f}–{s['ci'][1]:.{digits}f})" if s["ci"] else ""
    return f"{s['mean']:.{digits}f}{unit}{ci}"


def _win(record: dict, p: int) -> bool:
    return not record["limit_hit"] and record["results"][p] == "win"


def _settle_text(n: int | None, what: str = "games") -> str:
    if n is None:
        return ""
    return f"; about {n:,} {what} would settle a difference this size"


# ---- one version: fairness

def fairness(records: list, n: int) -> dict:
    """Win share per seat and for the player who decided first (95% intervals), each seat's exact
    binomial test against the expected share (Benjamini-Hochberg over the seats and the first
    player), the chi-square test of equal seats, and how many players win a game."""
    games = len(records)
    finished = [r for r in records if not r["limit_hit"]]
    wins = [sum(_win(r, p) for r in records) for p in range(n)]
    expected = sum(wins) / (games * n) if games else 0.0
    seats = []
    for p in range(n):
        place = spread([r["places"][p] for r in records if r["places"][p] is not None])
        seats.append({"seat": p + 1, **rate(wins[p], games), "mean_place": place["mean"],
                      "mean_place_ci": place["ci"], "p": binomial_p(wins[p], games, expected),
                      "effect": wins[p] / games - expected if games else None})
    first_wins = sum(_win(r, r["first"]) for r in records)
    first = {**rate(first_wins, games), "p": binomial_p(first_wins, games, expected),
             "effect": first_wins / games - expected if games else None}
    fdr(seats + [first])
    chi2 = chi_square_p(wins, [expected * games] * n) if sum(wins) else None
    winners = spread([sum(1 for x in r["results"] if x == "win") for r in finished])
    shared = sum(1 for r in finished if sum(1 for x in r["results"] if x == "win") > 1)
    out = {"expected": expected, "per_seat": seats, "seats_p": chi2, "first_player": first,
           "winners": winners, "shared": rate(shared, len(finished)), "no_winner": sum(
               1 for r in finished if "win" not in r["results"])}
    out["findings"] = _fairness_findings(out, games)
    return out


def _fairness_findings(f: dict, games: int) -> list[dict]:
    out = []
    expected = f["expected"]
    for s in f["per_seat"]:
        if s["significant"]:
            kind = "an advantage" if s["rate"] > expected else "a disadvantage"
            out.append(_finding("fairness", f"seat {s['seat']} wins {rate_text(s)} of games, expected {pct(expected)}: "
                                f"{kind} for seat {s['seat']} ({p_text(s['p'])}, {p_text(s['q'], 'q')})", True))
    first = f["first_player"]
    if first["n"] and first["significant"]:
        kind = "a first-player advantage" if first["rate"] > expected else "a first-player disadvantage"
        out.append(_finding("fairness", f"the player who decides first wins {rate_text(first)}, expected "
                            f"{pct(expected)}: {kind} ({p_text(first['p'])}, {p_text(first['q'], 'q')})", True))
    if not out and games:
        worst = max(f["per_seat"] + [first], key=lambda s: abs(s["effect"] or 0))
        who = f"seat {worst['seat']}" if "seat" in worst else "the first player"
        sd = math.sqrt(max(expected * (1 - expected), 1e-9))
        out.append(_finding("fairness", f"can't tell yet whether any seat has an edge: the largest gap is {who}'s "
                            f"{pp(worst['effect'])} ({rate_text(worst)} against {pct(expected)})"
                            + _settle_text(games_to_settle(worst["effect"], sd)), False))
    w = f["winners"]
    if w["mean"] is not None and f["shared"]["rate"] and f["shared"]["rate"] >= 0.05:
        out.append(_finding("winners", f"a game can have several winners: on average {w['mean']:.1f} of the players "
                            f"win ({pct(f['shared']['rate'])} of games are shared wins), so "
                            f"the win shares of the seats add up to {pct(w['mean'])}", True))
    if f["no_winner"]:
        out.append(_finding("winners", f"{plural(f['no_winner'], 'game')} ended with no winner", True))
    return out


def _finding(topic: str, text: str, shown: bool) -> dict:
    """A sentence of the findings box: `shown` when it is a finding, not a "can't tell yet"."""
    return {"topic": topic, "text": text, "significant": shown}


# ---- skill

def skill(records: list, bot: str, against: str, n: int) -> dict:
    """How often one `bot` wins at a table of `against` bots (its seat rotated), against the fair
    share. Each deal is played once with the bot at each seat, so the test is paired by deal
    (skill_by_deal): what the deal gives a seat is the same for the bot and for the others there."""
    games = len(records)
    wins = sum(_win(r, r["seats"].index(bot)) for r in records)
    total = sum(_win(r, p) for r in records for p in range(n))
    fair = total / (games * n) if games else 0.0
    by_deal = skill_by_deal(records, bot)
    p = paired_test(by_deal)["p"] if len(by_deal) >= 2 else binomial_p(wins, games, fair)
    out = {"bot": bot, "against": against, "fair": fair, **rate(wins, games), "p": 1.0 if p is None else p,
           "deals": len(by_deal)}
    out["significant"] = out["p"] < ALPHA
    effect = out["rate"] - fair if games else None
    tested = ("tested by deal, " if by_deal else "") + p_text(out["p"])
    if out["significant"]:
        verdict = "skill matters" if out["rate"] > fair else f"{bot} does worse than {against}"
        out["finding"] = (f"{bot} wins {rate_text(out)} against {against}, fair share {pct(fair)}: {verdict} "
                          f"({tested})")
    else:
        sd = math.sqrt(max(fair * (1 - fair), 1e-9))
        out["finding"] = (f"can't tell yet whether skill matters against {against}: {bot} wins {rate_text(out)}, "
                          f"fair share {pct(fair)} ({pp(effect)}, {tested})"
                          + _settle_text(games_to_settle(effect, sd)))
    return out


def skill_by_deal(records: list, bot: str) -> list[float]:
    """Per deal played at two seats or more: the wins of the bot at each seat it held, less how often
    the weaker bots won at that seat of the same deal (0 on average if the bot is no better: the deal,
    not the player, decides what a seat of it is worth)."""
    deals: dict = {}
    for r in records:
        deals.setdefault(r["seed"], []).append(r)
    out = []
    for games in deals.values():
        if len(games) < 2:
            continue
        diff = 0.0
        for r in games:
            seat = r["seats"].index(bot)
            others = [_win(o, seat) for o in games if o is not r]
            diff += _win(r, seat) - sum(others) / len(others)
        out.append(diff)
    return out


# ---- length and pace

def length(records: list, n: int) -> dict:
    """Moves, moves per player and rounds per game (heavy-tailed: medians with bootstrap intervals),
    and per game the share of decisions with one legal move and the choices per decision."""
    moves = [r["moves"] for r in records]
    per_game_forced = [r["forced"] / r["decisions"] for r in records if r["decisions"]]
    per_game_choices = [r["choices"] / r["decisions"] for r in records if r["decisions"]]
    return {"moves": spread(moves, heavy=True), "moves_list": moves,
            "moves_per_player": spread([r["moves_by"][p] for r in records for p in range(n)], heavy=True),
            "rounds": spread([r["rounds"] for r in records], heavy=True),
            "forced": spread(per_game_forced), "choices": spread(per_game_choices),
            "limit_hit": rate(sum(r["limit_hit"] for r in records), len(records))}


def pace(records: list, n: int) -> dict:
    """Downtime (decisions of others between two of a player's own) and elimination (the share of
    a game a knocked-out player sits out), per game."""
    outs = [x for r in records for x in r["pace"]["out_share"]]
    return {"downtime": spread([r["pace"]["downtime"] for r in records]),
            "eliminated": rate(len(outs), len(records) * n), "out_share": spread(outs)}


def decisions(records: list) -> dict:
    """Meaningful decisions, from the decisions sampled in each game and their moves weighed by
    the heuristic: the share (per game, then averaged) whose best and worst moves differ by more
    than 5% of the heuristic's range over all the sampled moves, and the regret of a random move
    (best minus average) as a share of that range."""
    sampled = [v for r in records for v in r["weighed"]]
    if not sampled:
        return {"measured": False, "why": "no decision could be weighed (the game declares no heuristic, or "
                                          "no game had a choice)"}
    low = min(min(v) for v in sampled)
    high = max(max(v) for v in sampled)
    scale = high - low
    if scale == 0:
        return {"measured": True, "range": 0.0, "sampled": len(sampled), "meaningful": spread([0.0]),
                "regret": spread([0.0])}
    shares, regrets = [], []
    for r in records:
        if r["weighed"]:
            shares.append(sum(max(v) - min(v) > MEANINGFUL * scale for v in r["weighed"]) / len(r["weighed"]))
            regrets.append(statistics.fmean((max(v) - statistics.fmean(v)) / scale for v in r["weighed"]))
    return {"measured": True, "range": scale, "sampled": len(sampled), "meaningful": spread(shares),
            "regret": spread(regrets)}


# ---- tension

def tension_unit(records: list) -> str:
    """Rounds, in a game that has several in most games; else turns."""
    rounds = [r["rounds"] for r in records]
    return "round" if rounds and statistics.median(rounds) >= 3 else "turn"


def stage_words(records: list, unit: str) -> dict:
    """What each stage (25%, 50%, 75%) is in the game's own terms: in a game of a few rounds, the
    round after which the standing is read ("after round 2 of 3": half of a game of three rounds
    falls in its second); else the share of the game's turns."""
    if unit != "round":
        return {f"{round(f * 100)}%": f"{round(f * 100)}% of the way through (by turns)" for f in STAGES}
    total = round(statistics.median(r["rounds"] for r in records))
    return {f"{round(f * 100)}%": f"after round {min(total - 1, int(f * (total - 1))) + 1} of {total}"
            for f in STAGES}


def tension(records: list, n: int) -> dict:
    """The standings at the ends of turns or rounds (standing.py): lead changes per turn or round,
    how often the leader and the last player at 25/50/75% of the game go on to win, the point
    after which the leader wins at least 90% of the time, drama, the margin at the end, and
    whether the player who starts a round wins it."""
    unit = tension_unit(records)
    games = [r["tension"][unit] for r in records if not r["limit_hit"]]
    read = next((g["read"] for g in games if g["read"]), None)
    if read is None:
        return {"measured": False, "why": "neither the outcome nor a heuristic tells who leads before the end"}
    single = [g for g in games if g["winner"] >= 0 and g["points"]]
    changes = [g["changes"] / (g["points"] - 1) for g in games if g["points"] > 1]
    stages = {}
    for f in STAGES:
        i = FRACTIONS.index(f)
        led = [g for g in single if g["leader_at"][i] >= 0]
        last = [g for g in single if g["last_at"][i] >= 0]
        stages[f"{round(f * 100)}%"] = {
            "leader_wins": rate(sum(g["leader_at"][i] == g["winner"] for g in led), len(led)),
            "last_wins": rate(sum(g["last_at"][i] == g["winner"] for g in last), len(last))}
    decided = None
    curve = []
    for i, f in enumerate(FRACTIONS):
        led = [g for g in single if g["leader_at"][i] >= 0]
        r = rate(sum(g["leader_at"][i] == g["winner"] for g in led), len(led))
        curve.append({"at": f, **r})
    for i in range(len(curve)):
        if all(c["rate"] is not None and c["rate"] >= DECIDED for c in curve[i:]):
            decided = curve[i]["at"]
            break
    drama = [g["drama"] for g in single if g["drama"] is not None]
    starts = [x for g in games for x in g["rounds"] if x[1] >= 0]
    fair = 1 / n
    return {"measured": True, "read": read, "by": unit, "games": len(games), "single_winner": len(single),
            "lead_changes": spread(changes), "stages": stages, "when": stage_words(records, unit),
            "curve": curve, "decided_at": decided,
            "trailed": rate(sum(bool(g["trailed"]) for g in single), len(single)),
            "drama": spread(drama) if drama else None,
            "margin": spread([g["margin"] for g in games if g["margin"] is not None], heavy=True),
            "margins": [g["margin"] for g in games if g["margin"] is not None],
            "round_starter": ({**rate(sum(s == w for s, w in starts), len(starts)), "fair": fair,
                               "p": binomial_p(sum(s == w for s, w in starts), len(starts), fair)} if starts else None)}


# ---- coverage and cards

def coverage(records: list, elements, reach: dict | None = None) -> dict:
    """How many games each element fired in; the ones that never did, each with where it does fire
    (`fires_in`: the settings of reach.py that set it off; None when not looked for)."""
    games = len(records)
    counts = [0] * len(elements.elements)
    for r in records:
        for e in r["fired"]:
            counts[e] += 1
    rows = [{"index": i, "kind": el.kind, "name": el.name, "where": el.where(elements.filename), "line": el.line,
             "column": el.column, "text": el.text, "games": c, "share": c / games if games else 0.0,
             "parent": elements.parent[i]} for i, (el, c) in enumerate(zip(elements.elements, counts))]
    # in the file's order (a variant's own lines first, then its base's)
    rows.sort(key=lambda row: (elements.elements[row["index"]].file, row["line"], row["column"]))
    never = [row for row in rows if row["games"] == 0]
    for row in never:
        row["fires_in"] = None if reach is None else reach.get(row["index"], [])
    return {"elements": rows, "never": never}


def card_correlation(records: list, context, n: int) -> dict:
    """Per kind of card (identical copies together), the win rate of the players who played it (held
    it at the end) against the others': a correlation, not a cause (players who play more cards
    win more in a game of playing cards out; a winner who went out holds nothing). Fisher's exact
    test, Benjamini-Hochberg over the kinds."""
    finished = [r for r in records if not r["limit_hit"]]
    kinds, names = context.kinds, context.kind_names
    out = {}
    for key in ("played", "held"):
        with_n, with_w = [0] * len(names), [0] * len(names)
        for r in finished:
            for p in range(n):
                won = r["results"][p] == "win"
                for k in {kinds[c] for c in r[key][p]}:
                    with_n[k] += 1
                    with_w[k] += won
        pairs = len(finished) * n
        wins = sum(r["results"][p] == "win" for r in finished for p in range(n))
        rows = []
        for k in range(len(names)):
            if 0 < with_n[k] < pairs:
                test = two_rates(wins - with_w[k], pairs - with_n[k], with_w[k], with_n[k])
                rows.append({"card": names[k], "with": rate(with_w[k], with_n[k]),
                             "without": rate(wins - with_w[k], pairs - with_n[k]), "diff": test["diff"],
                             "p": test["p"]})
        fdr(rows)
        rows.sort(key=lambda row: -row["diff"])
        out[key] = rows
        if key == "played":
            out["never_played"] = [names[k] for k in range(len(names)) if with_n[k] == 0] if any(with_n) else []
    return out


def card_probes(probes: list, context) -> dict:
    """What holding each kind of card is worth (probes.py): per kind, the holder's win rate with
    the card and with another card in its place, on the same games played on alike. The estimate
    is of every probe of the kind; the test (McNemar's exact) is of its second look alone, the
    probes played because the first leaned one way, with Benjamini-Hochberg over the kinds looked
    at twice. A kind whose first look did not lean has no test (p None): can't tell yet."""
    by_kind: dict[int, list] = {}
    for pr in probes:
        by_kind.setdefault(pr["kind"], []).append(pr)
    rows = []
    for k, prs in sorted(by_kind.items()):
        every = paired_rates([pr["without"] for pr in prs], [pr["with"] for pr in prs])
        second = [pr for pr in prs if pr["look"] == 2]
        tested = paired_rates([pr["without"] for pr in second], [pr["with"] for pr in second])["p"] \
            if second else None
        rows.append({"card": context.kind_names[k], "probes": len(prs), "second_look": len(second), **every,
                     "p": tested, "with": every["other"], "without": every["base"],
                     "effects": [int(pr["with"]) - int(pr["without"]) for pr in prs],
                     "return": statistics.fmean(pr["return_with"] - pr["return_without"] for pr in prs)})
    fdr(rows)
    rows.sort(key=lambda row: (-(row["diff"] or 0), row["card"]))
    return {"rows": rows, "probes": len(probes), "kinds": len(context.kind_names)}


# ---- the version, and its findings

def version_metrics(context, records: dict, bot: str, probes: list | None = None, reach: dict | None = None) -> dict:
    """Every metric of one version from its records by set: 'main' (the fairness games) and
    'skill:OTHER' (bot against OTHER); `probes` the card probes, if any were played."""
    n, main = context.players, records["main"]
    out = {
        "games": len(main),
        "fairness": fairness(main, n),
        "skill": [skill(rs, bot, name.partition(":")[2], n) for name, rs in records.items() if name != "main"],
        "length": length(main, n),
        "pace": pace(main, n),
        "decisions": decisions(main),
        "tension": tension(main, n),
        "coverage": coverage(main, context.elements, reach),
        "cards": {"probes": card_probes(probes, context) if probes else None,
                  "kinds": {"names": context.kind_names, "of_card": context.kinds},
                  "correlation": card_correlation(main, context, n)},
    }
    out["length"]["causes"] = long_games(main, context, out["coverage"]["elements"])
    t = out["tension"]
    if t["measured"]:
        t["causes"] = comebacks(main, context, out["coverage"]["elements"], t["by"], t["when"]["50%"])
    out["findings"] = findings(out)
    return out


def findings(m: dict) -> list[dict]:
    """Every finding of one version in plain words, the significant ones first."""
    out = list(m["fairness"]["findings"])
    for s in m["skill"]:
        out.append(_finding("skill", s["finding"], s["significant"]))
    probes = m["cards"]["probes"]
    if probes:
        for row in probes["rows"]:
            if row["significant"]:
                kind = "wins games" if row["diff"] > 0 else "loses games"
                out.append(_finding("cards", f"{row['card']} {kind}: its holder wins {pct(row['with'])} with it "
                                    f"against {pct(row['without'])} with another card in its place, {pp(row['diff'])} "
                                    f"({100 * row['ci'][0]:+.0f} to {100 * row['ci'][1]:+.0f}), over {row['probes']} "
                                    f"games played on both ways ({p_text(row['q'], 'q')})", True))
        if not any(row["significant"] for row in probes["rows"]) and probes["rows"]:
            top = max(probes["rows"], key=lambda row: (abs(row["diff"] or 0), row["card"]))
            out.append(_finding("cards", f"can't tell yet whether any card decides games: the largest effect seen "
                                f"is {top['card']}'s, its holder winning {pct(top['with'])} with it against "
                                f"{pct(top['without'])} without, over {top['probes']} games played on both ways"
                                + _settle_text(top["settle"], "games"), False))
    dead = m["cards"]["correlation"]["never_played"]
    if dead:
        out.append(_finding("cards", f"{plural(len(dead), 'kind')} of card never played in {m['games']} games: "
                            + ", ".join(dead[:12]) + (", ..." if len(dead) > 12 else ""), True))
    cov = m["coverage"]
    never = [e for e in cov["never"] if e["kind"] != "say"]
    if cov["never"]:
        worst = next((e for e in never if e["kind"] in ("action", "trigger", "modifier", "steps")),
                     (never or cov["never"])[0])
        text = f"{plural(len(cov['never']), 'rule')} never fired in {m['games']} games"
        if cov["never"][0]["fires_in"] is not None:  # looked for elsewhere (reach.py)
            rand = [e for e in cov["never"] if "random play" in e["fires_in"]]  # it can fire here
            other = [e for e in cov["never"] if e["fires_in"] and "random play" not in e["fires_in"]]
            nowhere = [e for e in never if not e["fires_in"]]
            rest = len(cov["never"]) - len(other) - len(rand)
            if not other and not rand:
                text += ", nor in random play, at other player counts or with other options"
            else:
                parts = ([f"{len(other)} fire only at other player counts or with other options (such as "
                          f"{other[0]['where']}, which {where_text(other[0]['fires_in'])})"] if other else []) + \
                    ([f"{len(rand)} in random play here (these bots avoid them, or they are rare)"] if rand else []) + \
                    ([f"{rest} in none of those games"] if rest else [])
                text += ": " + "; ".join(parts)
            worst = next((e for e in nowhere if e["kind"] in ("action", "trigger", "modifier", "steps")),
                         nowhere[0] if nowhere else worst)
        out.append(_finding("rules", text + f", such as the {worst['kind']} at {worst['where']} "
                            f"({worst['text'][:60]})", True))
    ln = m["length"]
    mv = ln["moves"]
    if mv["max"] and mv["median"] and mv["max"] > 5 * mv["median"]:
        out.append(_finding("length", f"a long tail: the median game takes {mv['median']:.0f} moves, one in twenty "
                            f"more than {mv['p95']:,}, the longest {mv['max']:,}", True))
    said = causes_finding(ln["causes"])
    if said is not None:
        out.append(_finding("length", *said))
    said = causes_finding(m["tension"].get("causes") or {"measured": False})
    if said is not None:
        out.append(_finding("tension", *said))
    if ln["limit_hit"]["count"]:
        out.append(_finding("length", f"{plural(ln['limit_hit']['count'], 'game')} hit the move limit and never ended",
                            True))
    t = m["tension"]
    if t["measured"] and t["single_winner"]:
        mid = t["stages"]["50%"]
        when = (f"decided from {pct(t['decided_at'])} of the game on (the leader then wins at least "
                f"{pct(DECIDED)} of the time)" if t["decided_at"] is not None else "never decided before the end")
        text = (f"the leader {t['when']['50%']} goes on to win {rate_text(mid['leader_wins'])}, the last player "
                f"{rate_text(mid['last_wins'])}; {when}")
        if t["decided_at"] is not None and t["decided_at"] <= 0.25:
            text = "a runaway leader: " + text
        out.append(_finding("tension", text, True))
    out.sort(key=lambda f: not f["significant"])
    return out
