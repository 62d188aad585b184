"""Two versions of a game compared (`analyze --compare`, `--sweep`): every headline metric side by
side, tested pair by pair on the same seeds (or not), the rows corrected together; the rules that
fire more or less often; the kinds of card whose worth to their holder differs; and findings in words,
"no difference found" included.
"""
from __future__ import annotations

import os

from ..stats import fdr, paired_rates, paired_values, two_rates, two_values
from .metrics import _win, p_text, plural, pp


def compare(base: dict, other: dict, base_records: dict, other_records: dict, same_file: bool, n: int,
            bot: str, paired: bool = True) -> dict:
    """The second version against the first, each row a test (paired on the same seeds, or not),
    the rows corrected together; and the rules (actions, triggers, modifiers, steps, the statements
    of the setup, rounds and outcome) that fire more or less often, corrected apart: of one file,
    or those a variant kept of its base."""
    b, o = base_records["main"], other_records["main"]
    rows: list[dict] = []

    def outcome(name, fb, fo, rb=b, ro=o):
        xs, ys = [bool(fb(r)) for r in rb], [bool(fo(r)) for r in ro]
        test = paired_rates(xs, ys) if paired else two_rates(sum(xs), len(xs), sum(ys), len(ys))
        rows.append({"metric": name, "unit": "%", **test})

    def quantity(name, fb, fo=None, unit="", rb=b, ro=o):
        fo = fo or fb
        xs, ys = [fb(r) for r in rb], [fo(r) for r in ro]
        if paired:
            keep = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
            test = paired_values([x for x, _ in keep], [y for _, y in keep])
        else:
            test = two_values([x for x in xs if x is not None], [y for y in ys if y is not None])
        rows.append({"metric": name, "unit": unit, **test})

    for p in range(n):
        outcome(f"seat {p + 1} win rate", lambda r, p=p: _win(r, p), lambda r, p=p: _win(r, p))
    outcome("first player's win rate", lambda r: _win(r, r["first"]), lambda r: _win(r, r["first"]))
    for name, rb in base_records.items():
        if name != "main" and name in other_records:
            mine = lambda r: _win(r, r["seats"].index(bot))  # noqa: E731
            outcome(f"{bot}'s win rate against {name.partition(':')[2]}", mine, mine, rb, other_records[name])
    if any(r.get("scores") for r in b) and any(r.get("scores") for r in o):  # the game's score (`places`)
        for p in range(n):
            quantity(f"seat {p + 1}'s final score", lambda r, p=p: r["scores"][p] if r.get("scores") else None)
        quantity("winning margin (the best score's lead over the next)", lambda r: r.get("margin"))
    quantity("moves per game", lambda r: r["moves"])
    quantity("rounds per game", lambda r: r["rounds"])
    quantity("decisions with one legal move", lambda r: r["forced"] / r["decisions"] if r["decisions"] else None,
             unit="%")
    quantity("winners per game", lambda r: None if r["limit_hit"] else sum(x == "win" for x in r["results"]))
    outcome("games that hit the move limit", lambda r: r["limit_hit"], lambda r: r["limit_hit"])
    quantity("downtime (others' decisions between two of one's own)", lambda r: r["pace"]["downtime"])
    if base["tension"]["measured"] and other["tension"]["measured"] and base["tension"]["by"] == other["tension"]["by"]:
        unit = base["tension"]["by"]

        def per(r, key):
            t = r["tension"][unit]
            return None if r["limit_hit"] else t[key]
        quantity(f"lead changes per {unit}",
                 lambda r: None if r["limit_hit"] or r["tension"][unit]["points"] < 2 else
                 r["tension"][unit]["changes"] / (r["tension"][unit]["points"] - 1))
        quantity("drama (the winner's gap behind the leader)", lambda r: per(r, "drama"))
    fdr(rows)
    changed = []
    pairs = list(zip(base["coverage"]["elements"], other["coverage"]["elements"])) if same_file else \
        kept_rules(base["coverage"]["elements"], other["coverage"]["elements"])
    if pairs:
        fired_b, fired_o = [set(r["fired"]) for r in b], [set(r["fired"]) for r in o]
        for eb, eo in pairs:
            if eb["parent"] is not None:  # a rule is compared as a whole: its statements follow it
                continue
            xs = [eb["index"] in f for f in fired_b]
            ys = [eo["index"] in f for f in fired_o]
            test = paired_rates(xs, ys) if paired else two_rates(sum(xs), len(xs), sum(ys), len(ys))
            changed.append({"where": eb["where"], "kind": eb["kind"], "text": eb["text"],
                            "base": sum(xs) / len(xs) if xs else None, "other": sum(ys) / len(ys) if ys else None,
                            **test})
        fdr(changed)
        changed = [c for c in changed if c["significant"]]
    cards = card_rows(base, other, b, o, paired)
    return {"rows": rows, "coverage_changes": changed, "card_rows": cards,
            "card_changes": [row for row in cards if row["significant"]], "paired": paired,
            "findings": comparison_findings(rows, cards)}


def kept_rules(base: list[dict], other: list[dict]) -> list[tuple]:
    """The elements two files have in common, paired: those a variant kept of its base, written at
    the same place of the same file (none for two files that do not extend one another)."""
    def place(e):
        file, line, column = e["where"].rsplit(":", 2)
        return os.path.normpath(file), line, column
    found = {place(e): e for e in other}
    return [(e, found[place(e)]) for e in base if place(e) in found]


def card_rows(base: dict, other: dict, b: list, o: list, paired: bool) -> list[dict]:
    """Per kind of card of both versions (by name): the share of games it was played in (by any
    player), the share of games a winner played it, each tested game by game as the rows are; its
    worth in the game's score (points_per_copy); and
    its worth to its holder (the probes' holder's win with it minus without, probes.py), whose
    probes are each version's own moments: the rank-sum test. Benjamini-Hochberg over every row of
    every card; rows where neither version varies (never played, or in every game) are left out."""
    kb, ko = base["cards"]["kinds"], other["cards"]["kinds"]
    rows: list[dict] = []

    def played(records, kinds, winners_only):
        names = kinds["names"]
        out = []
        for r in records:
            seats = [p for p, x in enumerate(r["results"]) if x == "win"] if winners_only else range(len(r["played"]))
            out.append({names[kinds["of_card"][c]] for p in seats for c in r["played"][p]})
        return out

    for metric, winners in (("played in the game", False), ("played by a winner", True)):
        sb, so = played(b, kb, winners), played(o, ko, winners)
        for name in kb["names"]:
            if name not in ko["names"]:
                continue
            xs, ys = [name in x for x in sb], [name in y for y in so]
            if (not any(xs) and not any(ys)) or (all(xs) and all(ys)):  # never, or in every game, in both
                continue
            test = paired_rates(xs, ys) if paired else two_rates(sum(xs), len(xs), sum(ys), len(ys))
            rows.append({"card": name, "metric": f"{name}: {metric}", "unit": "%", **test})
    rows += points_per_copy(b, o, kb, ko, paired)
    pb, po = base["cards"]["probes"], other["cards"]["probes"]
    if pb and po:
        effects_b = {row["card"]: row["effects"] for row in pb["rows"]}
        for row in po["rows"]:
            if row["card"] in effects_b:
                rows.append({"card": row["card"], "metric": f"{row['card']}: its holder's edge from holding it",
                             "unit": "%", **two_values(effects_b[row["card"]], row["effects"])})
    return fdr(rows)


def points_per_copy(b: list, o: list, kb: dict, ko: dict, paired: bool) -> list[dict]:
    """What one copy of each kind of card played is worth in the game's score, in each version: the
    final score of every player of every finished game regressed on how many copies of each kind
    they played (least squares without an intercept, one model for both versions with a version
    term per kind; errors clustered by seed where the games are paired, as a game's players are).
    A card whose value changed shows as a change of its term (issue 41: Squid worth 6, not 3)."""
    import numpy as np
    import statsmodels.api as sm

    names = [n for n in kb["names"] if n in ko["names"]]
    column = {n: i for i, n in enumerate(names)}
    xs, ys, groups = [], [], []
    for version, records, kinds in ((0, b, kb), (1, o, ko)):
        for r in records:
            if r["limit_hit"] or not r.get("scores"):
                continue
            for p, cards in enumerate(r["played"]):
                x = [0.0] * len(names)
                for c in cards:
                    k = column.get(kinds["names"][kinds["of_card"][c]])
                    if k is not None:
                        x[k] += 1
                xs.append(x + [v * version for v in x])
                ys.append(r["scores"][p])
                groups.append(r["seed"] if paired else 2 * r["seed"] + version)
    if not xs:
        return []
    x = np.asarray(xs)
    used = [k for k in range(len(names)) if x[:, k].any() and x[:, len(names) + k].any()
            and (x[:, k] - x[:, len(names) + k]).any()]  # played in both versions
    if not used:
        return []
    x = x[:, used + [len(names) + k for k in used]]
    fit = sm.OLS(np.asarray(ys, float), x).fit(cov_type="cluster", cov_kwds={"groups": np.asarray(groups)})
    rows = []
    ci = fit.conf_int()
    for i, k in enumerate(used):
        j = len(used) + i
        p = float(fit.pvalues[j])
        if not np.isfinite(p):
            continue
        rows.append({"card": names[k], "metric": f"{names[k]}: points per copy played", "unit": "points",
                     "base": float(fit.params[i]), "other": float(fit.params[i] + fit.params[j]),
                     "diff": float(fit.params[j]), "ci": [float(ci[j][0]), float(ci[j][1])], "p": p})
    return rows


SEEN = (1.96 + 0.84) / 1.96  # a 95% interval's half-width times this: a change seen 4 times in 5 at 5%


def comparison_findings(rows: list[dict], cards: list[dict] = ()) -> list[str]:
    """What a comparison found: each row that differs, then each card row that does; when none
    does, that no difference was found, the clearest difference seen and the smallest change these
    games would have shown (in the first win rate), and that the versions' own findings differing
    is no difference."""
    found = [_row_finding(row) for row in [*rows, *cards] if row["significant"]]
    tested = [row for row in rows if row["ci"] and row["diff"] is not None]
    if found or not tested:
        return found
    clearest = min(tested, key=lambda row: 1.0 if row["p"] is None else row["p"])
    row = next((row for row in tested if row["unit"] == "%" and "win rate" in row["metric"]), tested[0])
    size = SEEN * (row["ci"][1] - row["ci"][0]) / 2
    size_text = f"{100 * size:.0f} points" if row["unit"] == "%" else f"{size:.2f}"
    return [f"no difference found in {plural(len(rows), 'measure')} (the clearest: {_row_finding(clearest)}); "
            f"a change of about {size_text} in {row['metric']} would have been seen. The versions' own findings "
            "may still differ by chance: only this comparison tests a difference"]


def _row_finding(row: dict) -> str:
    """A row in words. A count per game (moves, rounds) is led by its medians: a few very long games
    drive its mean (the issue's "-621.90 moves" where the medians were 109 and 95)."""
    diff = pp(row["diff"]) if row["unit"] == "%" else f"{row['diff']:+.2f}"
    ci = (f"{pp(row['ci'][0])} to {pp(row['ci'][1])}" if row["unit"] == "%"
          else f"{row['ci'][0]:+.2f} to {row['ci'][1]:+.2f}") if row["ci"] else "no interval"
    if "card" in row and row["unit"] == "points":
        return (f"{row['metric']}: {row['base']:.2f} → {row['other']:.2f}, {diff} ({ci}; {p_text(row['q'], 'q')})")
    if "card" in row:  # a card's row: its two values first ("played by a winner: 40% → 62% of games")
        what = "of games" if "played" in row["metric"] else "of a win"
        sign = "+" if "edge" in row["metric"] else ""
        return (f"{row['metric']}: {100 * row['base']:{sign}.0f}% → {100 * row['other']:{sign}.0f}% {what}, "
                f"{diff} ({ci}; {p_text(row['q'], 'q')})")
    if row["unit"] != "%" and row.get("base_median") is not None and row.get("other_median") is not None:
        return (f"{row['metric']}: median {row['base_median']:g} → {row['other_median']:g}, mean {diff} "
                f"({ci}; {p_text(row['q'], 'q')})")
    return f"{row['metric']}: {diff} ({ci}; {p_text(row['q'], 'q')})"
