"""bench/run.py's verdicts and text report: each target decided from a run's results, and the
results printed as tables (bench/README.md explains each)."""
from __future__ import annotations

import operator
from typing import NamedTuple


# ---- the targets

def find(entries: list[dict], **match) -> list[dict]:
    return [e for e in entries if all(e.get(k) == v for k, v in match.items())]


def verdict(target: str, figure: str, met: bool | None, why: str = "") -> dict:
    status = f"not measured ({why})" if met is None else "met" if met else "NOT met"
    return {"target": target, "figure": figure, "met": met, "status": status}


def label(e: dict) -> str:
    return f"{e['game']} {e['players']}p" if e.get("players") else e["game"]


COMPARE = {"<": operator.lt, "<=": operator.le, ">=": operator.ge, ">": operator.gt}


def every(target: str, entries: list[dict], key: str, test: str, limit: float, unit: str) -> dict:
    """A target every entry must meet: the worst figure, and which game has it."""
    if not entries:
        return verdict(target, "", None, "not in this run")
    failed = [label(e) for e in entries if e.get("error")]
    if failed:
        return verdict(target, "failed: " + ", ".join(failed), False)
    missing = [label(e) for e in entries if e[key] is None]  # no baseline or before in this run
    if missing:
        return verdict(target, "", None, "no figure for " + ", ".join(missing))
    worst = (min if test in (">=", ">") else max)(entries, key=lambda e: e[key])
    figure = f"{worst[key]:.2f}{unit}" if len(entries) == 1 else \
        f"worst {worst[key]:.2f}{unit} ({label(worst)}, of {len(entries)})"
    return verdict(target, figure, COMPARE[test](worst[key], limit))


def versus_peer(target: str, ours: list[dict], peer: list[dict], key: str, limit: float, unit: str,
                slices: list[dict]) -> dict:
    """A target relative to a peer's figure in the same run: the peer's time per move over ours
    must be at least `limit`. Measured in alternating slices (PAIRED), the median of the slices'
    ratios decides; else the totals, measured one after the other."""
    digits = 0 if key == "moves_per_s" else 2
    if not peer or peer[0].get("error") == "not installed":
        return verdict(target, "", None, "peer not installed")
    if not ours:
        return verdict(target, "", None, "not in this run")
    a, b = ours[0], peer[0]
    if a.get("error") or b.get("error"):
        return verdict(target, f"failed: {a.get('error') or b.get('error')}", False)
    figure = f"{a[key]:.{digits}f} vs {b[key]:.{digits}f} {unit}"
    if slices:
        ratio = slices[0]["median"]
        return verdict(target, f"{figure}; its time per move over ours {ratio:.2f}x, median of "
                               f"{slices[0]['slices']} alternating slices", ratio >= limit)
    ratio = b["us_per_move"] / a["us_per_move"]
    return verdict(target, f"{figure}; its time per move over ours {ratio:.2f}x", ratio >= limit)


def by_ab(target: str, result: dict, a: str, b: str, test: str, limit: float) -> dict | None:
    """A target decided by the A/B of a and b (bench/ab.py: B's CPU time per move over A's, in
    separate processes by turns), or None when this run has none."""
    found = [r for r in result.get("ab", ()) if (r["a"], r["b"]) == (a, b)]
    if not found:
        return None
    r = found[0]
    if "error" in r:
        why = r["error"]
        return verdict(target, "", None, why) if why.endswith("not installed") else verdict(target, why, False)
    return verdict(f"{target} (A/B of CPU time)", f"{r['median']:.2f}x, median of {r['rounds']} rounds in "
                   f"separate processes (range {r['low']:.2f}-{r['high']:.2f})", COMPARE[test](r["median"], limit))


def targets(result: dict, before: bool) -> list[dict]:
    rows, ours = result["rows"], {"impl": "gamedsl"}
    laus = [by_ab(f"Laus {n}p <= 2.0x state", result, f"state:laus:{n}", f"gamedsl:laus:{n}", "<=", 2.0) or
            every(f"Laus {n}p <= 2.0x state (median of alternating slices)",
                  find(result["ratios"], game="laus", players=n, versus="state", **ours), "median", "<=", 2.0, "x")
            for n in (3, 4)]
    versus_before = [{"game": r["a"].split(":")[1], "players": int(r["a"].split(":")[2]),
                      "median": r.get("median"), "error": r.get("error", "")}
                     for r in result.get("ab", ()) if r["b"].startswith("gamedsl@")]
    faster = every("every game faster per move than before (A/B of CPU time)", versus_before, "median", ">", 1.0,
                   "x") if versus_before else \
        every("every game faster per move than before (median of alternating slices)",
              find(result["ratios"], impl="before", versus="gamedsl"), "median", ">", 1.0, "x") if before else \
        verdict("every game faster per move than before", "", None, "needs --before")
    return laus + [faster] + [
        by_ab("LOL moves/s >= RLCard UNO moves/s (2p): UNO's time per move over ours >= 1", result,
              "gamedsl:lol:2", "rlcard:uno:2", ">=", 1.0) or
        versus_peer("LOL moves/s >= RLCard UNO moves/s (2p)", find(rows, game="lol", players=2, **ours),
                    find(rows, impl="rlcard", game="uno"), "moves_per_s", 1.0, "moves/s",
                    find(result["ratios"], impl="rlcard", game="uno", versus="gamedsl")),
        by_ab("Crazy Eights us/move <= 2x OpenSpiel crazy_eights (2p): its time per move over ours >= 0.5",
              result, "gamedsl:crazy_eights:2", "openspiel:crazy_eights:2", ">=", 0.5) or
        versus_peer("Crazy Eights us/move <= 2x OpenSpiel crazy_eights (2p)",
                    find(rows, game="crazy_eights", players=2, **ours),
                    find(rows, impl="openspiel", game="crazy_eights"), "us_per_move", 0.5, "us/move",
                    find(result["ratios"], impl="openspiel", game="crazy_eights", versus="gamedsl")),
        by_ab("Law 2p <= 8x plain Laus 3p", result, "plain:laus:3", "gamedsl:law:2", "<=", 8.0) or
        every("Law <= 8x plain", find(rows, game="law", **ours), "x_plain", "<=", 8.0, "x"),
        every("warm load < 100 ms, every game", find(result["load"], **ours), "warm_ms", "<", 100, " ms"),
        every("Laus calls per move <= 1.3x state's (3p)", find(result["calls"], **ours), "x_state", "<=", 1.3, "x"),
        every("gamedsl check law.game after an edit to one rule < 300 ms", find(result["edit"], **ours),
              "edit_ms", "<", 300, " ms"),
        every("clone <= 3 random moves, every seed game", find(result["clone"], **ours),
              "clone_per_move", "<=", 3.0, " moves"),
        every("greedy median <= 10 ms, every game incl. Hearts", find(result["greedy"], **ours),
              "median_ms", "<=", 10.0, " ms"),
        every("greedy >= 3x faster than before (mean), every game", find(result["greedy"], **ours),
              "speedup_vs_before", ">=", 3.0, "x") if before else
        verdict("greedy >= 3x faster than before (mean), every game", "", None, "needs --before"),
    ]


# ---- the text report

class Col(NamedTuple):
    header: str
    key: str
    width: int
    fmt: str = ""   # a number's format; "" for text, left-aligned


IMPL, GAME, PLAYERS = Col("impl", "impl", 9), Col("game", "game", 14), Col("pl", "players", 2, "d")


def cell(col: Col, e: dict) -> str:
    v = e.get(col.key)
    if not col.fmt:
        return f"{v or '':<{col.width}}"
    return f"{'-' if v is None else format(v, col.fmt):>{col.width}}"


def table(title: str, cols: list[Col], entries: list[dict]) -> None:
    """A section: its title, a header, and an entry a line (a failed one says why)."""
    print(f"\n{title}")
    head = " ".join(f"{c.header:<{c.width}}" if not c.fmt else f"{c.header:>{c.width}}" for c in cols)
    print(head)
    print("-" * len(head))
    for e in entries:
        if e.get("error"):
            shown = [c for c in cols[:3] if c.key in e]
            why = " ".join(e["error"].split())  # one line, however the error was written
            why = why if why == "not installed" else f"FAILED {why[:160]}"
            print(" ".join(cell(c, e) for c in shown), why)
        else:
            print(" ".join(cell(c, e) for c in cols))


def report(result: dict, clone_every: int) -> None:
    table("Random playouts (a move is one decision of a player)",
          [IMPL, GAME, PLAYERS, Col("games", "games", 7, "d"), Col("moves/s", "moves_per_s", 10, ".0f"),
           Col("us/move", "us_per_move", 8, ".2f"), Col("x plain", "x_plain", 8, ".2f")], result["rows"])
    print("x plain: time per move / plain Laus time per move (Laus: same player count; "
          "other games: the mean of plain Laus 3p and 4p, as a yardstick).")
    for q in result["ratios"]:
        versus = q["versus"] if q["versus_game"] == q["game"] else f"{q['versus']} {q['versus_game']}"
        print(f"{q['impl']} {q['game']} {q['players']}p: {q['median']:.2f}x {versus}'s time per move "
              f"(median of {q['slices']} alternating slices; range {q['low']:.2f}-{q['high']:.2f})")
    if result.get("ab"):
        from bench import ab
        print("\nA/B of CPU time (bench/ab.py: separate processes by turns, A B B A ...)")
        for r in result["ab"]:
            print("  " + ab.line(r))
    table("Load + check (ms inside load_game, a fresh process each; cold: empty cache, warm: from the cache)",
          [IMPL, GAME, Col("cold ms", "cold_ms", 8, ".1f"), Col("warm ms", "warm_ms", 8, ".1f")], result["load"])
    table("Edit + check (ms of `gamedsl check law.game` in a fresh process; cold: empty cache, same: unchanged, "
          "edit: after an edit to one rule)",
          [IMPL, GAME, Col("cold ms", "cold_ms", 8, ".0f"), Col("same ms", "same_ms", 8, ".0f"),
           Col("edit ms", "edit_ms", 8, ".0f")], result["edit"])
    table("Calls per move (cProfile's count of function calls, built-ins included; random Laus games, same seeds)",
          [IMPL, GAME, PLAYERS, Col("moves", "moves", 7, "d"), Col("calls/move", "calls_per_move", 10, ".1f"),
           Col("x state", "x_state", 8, ".2f")], result["calls"])
    table(f"Clone (state.clone(past=False) at every {clone_every}th decision of random games, fewest players)",
          [IMPL, GAME, PLAYERS, Col("us/clone", "us_per_clone", 9, ".2f"), Col("us/move", "us_per_move", 8, ".2f"),
           Col("clone/move", "clone_per_move", 10, ".2f")], result["clone"])
    table("Greedy (ms per decision with 2+ legal moves; a greedy bot in every seat)",
          [IMPL, GAME, PLAYERS, Col("decisions", "decisions", 9, "d"), Col("median", "median_ms", 7, ".2f"),
           Col("mean", "mean_ms", 7, ".2f"), Col("max", "max_ms", 7, ".1f"),
           Col("x faster", "speedup_vs_before", 8, ".2f")], result["greedy"])
    print("\nTargets")
    for t in result["targets"]:
        mark = {True: "met", False: "NOT met", None: "-"}[t["met"]]
        print(f"  {mark:8} {t['target']}: {t['figure'] if t['met'] is not None else t['status']}")
