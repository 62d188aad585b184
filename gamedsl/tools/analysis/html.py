"""The design report as one self-contained HTML page: the findings first, then tables and
matplotlib plots inlined as SVG, readable offline by a designer who never saw the code."""
from __future__ import annotations

import io
from html import escape
from pathlib import Path

from . import metrics as M
from .reach import where_text

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 72em; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; } h3 { margin-bottom: .3em; }
table { border-collapse: collapse; margin: .5em 0 1em; } td, th { padding: .2em .8em; text-align: right; }
td:first-child, th:first-child, table.text td, table.text th { text-align: left; } td { white-space: nowrap; }
table.text td:last-child, table.text td:nth-child(2) { white-space: normal; }
tr:nth-child(even) { background: #f5f5f5; }
.findings { border: 2px solid #3870c0; border-radius: 6px; padding: .6em 1em; margin: 1em 0; }
.finding { border-left: 4px solid #3870c0; padding: .3em .8em; margin: .4em 0; background: #eef5ff; }
.unsure { border-left-color: #aaa; background: #f6f6f6; color: #555; }
.sig { font-weight: bold; color: #a03000; } .dim { color: #777; } code { font-size: .95em; }
.wide { overflow-x: auto; }
.plots { display: flex; flex-wrap: wrap; gap: 1em; } .plots svg { max-width: 100%; height: auto; }
"""


def write_report(result: dict, path: str):
    """Write the report of `analyze` to `path` as HTML."""
    Path(path).write_text(render(result), encoding="utf-8")


def render(r: dict) -> str:
    import matplotlib

    matplotlib.use("Agg")  # no display: draw to files
    seats = ",".join(r["seats"])
    parts = [f"<h1>Design report: {escape(r['game'])}</h1>",
             f"<p>{r['players']} players; {r['games']} games per version with <code>{escape(seats)}</code> at the "
             f"seats, {r['skill_games']} more per weaker table to measure skill (<code>{escape(r['bot'])}</code> "
             f"against it) and a first look of up to {r['probes']} card probes per kind of card; seeds {r['seeds'][0]} to "
             f"{r['seeds'][1]}, the same for every version; {r['elapsed']:.0f} s.</p>",
             "<p class=dim>Every rate has its 95% interval (Wilson), every mean its 95% interval. The unit of "
             "every test is the game. A finding is <span class=sig>significant</span> when it survives the "
             "Benjamini-Hochberg correction at 5% over its family of tests (the seats; the rows of a comparison; "
             "the rules; the cards); grey lines say what cannot be told yet, with about how many games would "
             "tell it.</p>"]
    if r.get("budget"):
        parts.append(f"<p class=dim>{escape(r['budget'])}</p>")
    if len(r["versions"]) > 1:
        parts.append(_comparison_section(r))
    for v in r["versions"]:
        parts.append(_version_section(v, len(r["versions"]) > 1))
    if r["by_players"]:
        parts.append(_counts_section(r["by_players"]))
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>Design report: "
            f"{escape(r['game'])}</title><style>{_STYLE}</style></head><body>\n" + "\n".join(parts)
            + "\n</body></html>\n")


def _findings(findings: list[dict]) -> str:
    rows = [f"<div class='finding{'' if f['significant'] else ' unsure'}'><b>{escape(f['topic'])}</b>: "
            f"{escape(f['text'])}</div>" for f in findings]
    return "<div class=findings><h3>Findings</h3>" + "".join(rows) + "</div>"


def _version_section(v: dict, several: bool) -> str:
    m = v["metrics"]
    opts = ", ".join(f"{n} = {x}" for n, x in v["options"].items())
    out = [f"<h2>{escape(v['label'])}</h2>" if several else "<h2>The game</h2>",
           f"<p class=dim>{escape(v['file'])}" + (f"; options: {escape(opts)}" if opts else "") + "</p>",
           _findings(m["findings"])]
    f = m["fairness"]
    out.append("<h3>Fairness</h3>" + _table(
        ["seat", "wins", "win rate (95% CI)", "mean place (95% CI)", "p", "q"],
        [[s["seat"], s["count"], M.rate_text(s), _mean(s["mean_place"], s["mean_place_ci"]), _p(s["p"]),
          _q(s)] for s in f["per_seat"]]
        + [["first to decide", f["first_player"]["count"], M.rate_text(f["first_player"]), "",
            _p(f["first_player"]["p"]), _q(f["first_player"])]], raw=True))
    w = f["winners"]
    out.append(f"<p>Expected win rate of a seat if seats did not matter: {M.pct(f['expected'])} (all the wins over "
               f"games × players). Winners per game: {_mean(w['mean'], w['ci'], 2)}; shared wins in "
               f"{M.rate_text(f['shared'])} of games. Seats equal (chi-square): {_p(f['seats_p'])}.</p>")
    ln = m["length"]
    plots = [_seat_plot(m), _length_plot(ln)]
    t = m["tension"]
    if t["measured"]:
        plots.append(_curve_plot(t))
        if t["margins"]:
            plots.append(_hist(t["margins"], "Margin at the end", "first minus second, in the game's score",
                               "games"))
    out.append("<div class=plots>" + "".join(plots) + "</div>")
    for s in m["skill"]:
        out.append(f"<h3>Skill</h3><p>{escape(s['finding'])}</p>" if s is m["skill"][0] else
                   f"<p>{escape(s['finding'])}</p>")
    out.append(_length_section(ln, m["pace"], m["decisions"]))
    out.append(_tension_section(t))
    out.append(_coverage(m["coverage"]))
    out.append(_cards(m["cards"]))
    return "\n".join(out)


def _length_section(ln: dict, pace: dict, dec: dict) -> str:
    def row(name, s):
        median = _num(s["median"]) + (f" ({_num(s['median_ci'][0])}–{_num(s['median_ci'][1])})"
                                      if s.get("median_ci") else "")
        return [name, median, _mean(s["mean"], s["ci"]), f"{_num(s['min'])}–{_num(s['max'])}", _num(s["p95"])]
    table = _table(["per game", "median (95% CI)", "mean (95% CI)", "range", "95th percentile"], [
        row("moves", ln["moves"]), row("moves per player", ln["moves_per_player"]), row("rounds", ln["rounds"])])
    text = (f"<p>Decisions with one legal move: {_pct_ci(ln['forced'])} of a game's decisions (per game, then "
            f"averaged); legal moves per decision: {_mean(ln['choices']['mean'], ln['choices']['ci'])}. Games that "
            f"hit the move limit: {M.rate_text(ln['limit_hit'])}.</p>"
            f"<p>Downtime: {_mean(pace['downtime']['mean'], pace['downtime']['ci'])} decisions of others between "
            f"two of a player's own. Knocked out: {M.rate_text(pace['eliminated'])} of the players, sitting out "
            f"{_pct_ci(pace['out_share'])} of the game.</p>")
    if dec["measured"] and dec.get("sampled"):
        text += (f"<p>Meaningful decisions (from {dec['sampled']} decisions sampled, their moves weighed by the "
                 f"heuristic one move ahead): the best and worst moves differ by more than "
                 f"{M.pct(M.MEANINGFUL)} of the heuristic's range in {_pct_ci(dec['meaningful'])} of them; a "
                 f"random move costs {_pct_ci(dec['regret'])} of that range against the best.</p>")
    text += _in_common(ln.get("causes"), "in the longest games")
    return "<h3>Length and pace</h3>" + table + text


def _in_common(found: dict | None, column: str) -> str:
    """What a group of games (the longest, those won from behind) has in common (causes.py)."""
    if not found or not found["measured"] or not found["rows"]:
        return ""
    return (f"<p>What {escape(found['group'])} have in common, against the other games (Fisher's exact test, "
            "Benjamini-Hochberg over every rule and kind of card):</p>" + _table(
                ["", "source", column, "in the others", "q"],
                [[escape(row["what"]), f"<code>{escape(row['text'][:70])}</code>", _pct(row["long"]),
                  _pct(row["rest"]), _q(row)] for row in found["rows"][:15]], raw=True, text=True))


def _tension_section(t: dict) -> str:
    if not t["measured"]:
        return f"<h3>Tension</h3><p>Not measured: {escape(t['why'])}.</p>"
    how = "the game's own outcome (its places and score)" if t["read"] == "outcome" else "the game's heuristic"
    rows = [[f"{stage}: {t['when'][stage]}", M.rate_text(x["leader_wins"]), M.rate_text(x["last_wins"])]
            for stage, x in t["stages"].items()]
    out = [f"<h3>Tension</h3><p>Standings read at the end of every {t['by']} with {how}, in the "
           f"{t['games']} games that ended ({t['single_winner']} with one winner).</p>",
           _table(["at this point of the game", "the leader wins", "the last player wins"], rows),
           f"<p>Lead changes: {_mean(t['lead_changes']['mean'], t['lead_changes']['ci'], 2)} per {t['by']}. "]
    out.append(f"Decided (the leader goes on to win at least {M.pct(M.DECIDED)} of the time) "
               + (f"from {M.pct(t['decided_at'])} of the game on. " if t["decided_at"] is not None
                  else "never before the end. "))
    out.append(f"The winner trailed another player at some point in {M.rate_text(t['trailed'])} of games. ")
    if t["drama"]:
        out.append(f"Drama: while behind, the winner was {_mean(t['drama']['mean'], t['drama']['ci'])} points of "
                   "the game's score behind the leader on average. ")
    if t["margin"]["n"]:
        out.append(f"Margin at the end (first minus second): median {_num(t['margin']['median'])}. ")
    rs = t["round_starter"]
    if rs:
        out.append(f"The player who starts a round gains most in it in {M.rate_text(rs)} of the rounds in which "
                   f"several players decided (fair share {M.pct(rs['fair'])}, {_p(rs['p'])}).")
    return "".join(out) + "</p>" + _in_common(t.get("causes"), "in the games won from behind")


def _coverage(cov: dict) -> str:
    never = cov["never"]
    rows = [[f"<code>{escape(e['where'])}</code>", escape(e["kind"]), escape(e["name"]),
             f"<code>{escape(e['text'][:80])}</code>",
             escape(where_text(e["fires_in"]) or "in none of them") if e.get("fires_in") is not None else "—"]
            for e in never]
    rare = sorted((e for e in cov["elements"] if 0 < e["share"] < 0.05), key=lambda e: e["share"])
    out = [f"<h3>Coverage</h3><p>{len(cov['elements']) - len(never)} of {len(cov['elements'])} actions, triggers, "
           f"modifiers, steps and statements fired in at least one game; {len(never)} never did. A statement "
           "fires when the rules run it during the real game (not while a bot thinks ahead), wherever it was "
           "written, called or inlined.</p>"]
    if rows:
        out.append("<p>Never fired. Each was looked for in 30 games of random play at this table, at every other "
                   "player count and with every other value of each true/false or choice option: a rule that fires "
                   "only at other counts or options cannot fire (or is very rare) in this version of the game; one "
                   "that fires in random play is avoided by these bots; one that fires in none may be dead.</p>"
                   + _table(["where", "kind", "name", "source", "where it fires"], rows, raw=True, text=True))
    if rare:
        out.append("<p>Fired in fewer than 5% of games:</p>" + _table(["where", "kind", "source", "games"], [
            [f"<code>{escape(e['where'])}</code>", escape(e["kind"]), f"<code>{escape(e['text'][:80])}</code>",
             _pct(e["share"])] for e in rare[:40]], raw=True, text=True))
    return "".join(out)


def _cards(cards: dict) -> str:
    out = ["<h3>Cards</h3>"]
    probes = cards["probes"]
    if probes and probes["rows"]:
        rows = probes["rows"]
        looked = sum(1 for r in rows if r["second_look"])
        out.append(f"<p>What holding a card is worth: at the first moment of a real game when a player held a card "
                   f"of that kind, the game is played on twice with the same bots and the same random future, once "
                   f"as it was and once with that card swapped for a card of another kind the player could not see. "
                   f"The difference is in that player's win rate ({probes['probes']} games played on both ways over "
                   f"{len(rows)} of {probes['kinds']} kinds of card). Each kind gets a first look; the "
                   f"{M.plural(looked, 'kind')} whose first look leaned one way got a second look on other games, "
                   f"and only the second look is tested (McNemar's exact test, Benjamini-Hochberg over those kinds; "
                   f"q — for a kind looked at once). The rates and intervals are of every game of the kind, not "
                   f"adjusted.</p>")
        out.append(_table(["card", "games", "its holder wins: with it", "with another card", "difference (95% CI)",
                           "q"],
                          [[(f"<span class=sig>{escape(r['card'])}</span>" if r["significant"] else escape(r["card"])),
                            r["probes"], _pct(r["with"]), _pct(r["without"]),
                            f"{M.pp(r['diff'])} ({M.pp(r['ci'][0])} to {M.pp(r['ci'][1])})" if r["ci"] else "—",
                            _q(r)] for r in rows], raw=True))
    elif probes is not None:
        out.append("<p>No card could be probed: no player held a card at a decision with another card to take "
                   "its place.</p>")
    corr = cards["correlation"]
    out.append("<p class=dim>Correlation, not cause: the win rate of players who played a card, or held it at "
               "the end, against the others'. Players who play more cards may win more for that reason alone, "
               "and in a game won by going out the winner holds nothing: read these with care (Fisher's exact "
               "test, Benjamini-Hochberg over the cards).</p>")
    for key, title in (("played", "played"), ("held", "held at the end")):
        rows = corr[key]
        if not rows:
            continue
        shown = rows[:8] + [r for r in rows[8:] if r in rows[-8:]]
        out.append(f"<p><b>{title}</b> (the 8 highest and 8 lowest of {M.plural(len(rows), 'kind')} of card)</p>"
                   + _table(["card", "win rate with", "without", "difference", "q"],
                            [[escape(r["card"]), M.rate_text(r["with"]), M.rate_text(r["without"]), M.pp(r["diff"]),
                              _q(r)] for r in shown], raw=True))
    return "".join(out)


def _counts_section(by_players: dict) -> str:
    width = max(len(f["per_seat"]) for f in by_players.values())
    rows = []
    for count, f in by_players.items():
        cells = [(f"<span class=sig>{M.pct(s['rate'])}</span>" if s["significant"] else M.pct(s["rate"]))
                 for s in f["per_seat"]] + [""] * (width - len(f["per_seat"]))
        first = f["first_player"]
        rows.append([count, *cells, (f"<span class=sig>{M.pct(first['rate'])}</span>" if first["significant"]
                                     else M.pct(first["rate"])), M.pct(f["expected"])])
    return ("<h2>Seats at every player count</h2>" + _table(
        ["players", *[f"seat {k + 1}" for k in range(width)], "first to decide", "expected"], rows, raw=True)
        + "<p class=dim>Win rates; significant ones (after Benjamini-Hochberg over that count's seats and first "
          "player) in bold.</p>")


def _comparison_section(r: dict) -> str:
    out = ["<h2>Versions side by side</h2>"]
    for c in r["comparisons"]:
        how = ("game by game on the same seeds: McNemar's exact test for outcomes, the Wilcoxon signed-rank test "
               "for per-game quantities" if c["paired"] else "Fisher's exact test and the Mann-Whitney test")
        out.append(f"<h3>{escape(c['other'])} against {escape(c['base'])}</h3>")
        if c["findings"]:
            out.append("<div class=findings>" + "".join(f"<div class=finding>{escape(t)}</div>"
                                                         for t in c["findings"]) + "</div>")
        out.append(_table(["metric", f"{c['base']}: mean", f"{c['other']}: mean",
                           "difference of the means (95% CI of this row alone)", "p", "q (over the rows)"], [
            [escape(row["metric"]), _side(row, "base"), _side(row, "other"),
             _val(row["diff"], row["unit"], True) + ("" if not row["ci"] else
                                                      f" ({_val(row['ci'][0], row['unit'], True)} to "
                                                      f"{_val(row['ci'][1], row['unit'], True)})"),
             _p(row["p"]), _q(row)] for row in c["rows"]], raw=True))
        changes = sorted(c["coverage_changes"], key=lambda ch: -abs(ch["diff"]))
        if changes:
            more = f"; the {len(changes) - 30} others are in --json" if len(changes) > 30 else ""
            out.append(f"<p>{M.plural(len(changes), 'rule')} fire significantly more or less often (paired per game, "
                       f"Benjamini-Hochberg over the rules; the largest changes first{more}):</p>" + _table(
                           ["where", "source", c["base"], c["other"], "q"],
                           [[f"<code>{escape(ch['where'])}</code>", f"<code>{escape(ch['text'][:70])}</code>",
                             _pct(ch["base"]), _pct(ch["other"]), _q(ch)] for ch in changes[:30]],
                           raw=True, text=True))
        if c["card_changes"]:
            out.append("<p>Cards that changed (played in the game, played by a winner, and the worth of holding "
                       "one, for every kind; Benjamini-Hochberg over all of them):</p>" + _table(
                           ["card: measure", c["base"], c["other"], "difference (95% CI)", "q"],
                           [[escape(ch["metric"]), _pct(ch["base"]), _pct(ch["other"]),
                             f"{M.pp(ch['diff'])} ({M.pp(ch['ci'][0])} to {M.pp(ch['ci'][1])})" if ch["ci"] else "—",
                             _q(ch)] for ch in c["card_changes"]], raw=True, text=True))
        out.append(f"<p class=dim>Tested {how}; significant rows survive Benjamini-Hochberg at 5% over the rows.</p>")
    return "".join(out)


# ---- plots

def _svg(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]  # without the XML prologue, to sit inside the page


def _seat_plot(m: dict) -> str:
    import matplotlib.pyplot as plt

    f = m["fairness"]
    bars = [(f"seat {s['seat']}", s) for s in f["per_seat"]] + [("first", f["first_player"])]
    fig, ax = plt.subplots(figsize=(4.8, 3))
    xs = list(range(len(bars)))
    rates = [100 * (s["rate"] or 0) for _, s in bars]
    lo = [max(0.0, r - 100 * (s["ci"][0] if s["ci"] else r / 100)) for r, (_, s) in zip(rates, bars)]
    hi = [max(0.0, 100 * (s["ci"][1] if s["ci"] else r / 100) - r) for r, (_, s) in zip(rates, bars)]
    ax.bar(xs, rates, yerr=[lo, hi], capsize=4, color=["#6a9bd8"] * (len(bars) - 1) + ["#9a7fd8"])
    ax.axhline(100 * f["expected"], color="#a03000", linestyle="--", label="expected")
    ax.set_xticks(xs, [name for name, _ in bars])
    ax.set_ylabel("win rate, % (95% CI)")
    ax.set_title("Win rate by seat, and of the first to decide")
    ax.legend()
    return _svg(fig)


def _length_plot(ln: dict) -> str:
    """Moves per game, its tail clipped at the 95th percentile (said on the plot)."""
    values = ln["moves_list"]
    cut = ln["moves"]["p95"]
    clipped = sum(1 for v in values if v > cut)
    title = "Moves per game" + (f" ({clipped} longest clipped at {cut})" if clipped and cut < max(values) else "")
    return _hist([min(v, cut) for v in values] if clipped else values, title, "moves", "games")


def _curve_plot(t: dict) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.8, 3))
    xs = [100 * c["at"] for c in t["curve"] if c["rate"] is not None]
    ys = [100 * c["rate"] for c in t["curve"] if c["rate"] is not None]
    lo = [100 * c["ci"][0] for c in t["curve"] if c["rate"] is not None]
    hi = [100 * c["ci"][1] for c in t["curve"] if c["rate"] is not None]
    ax.fill_between(xs, lo, hi, color="#c9dcf2")
    ax.plot(xs, ys, color="#3870c0")
    ax.axhline(100 * M.DECIDED, color="#a03000", linestyle="--", label=f"{M.pct(M.DECIDED)}: decided")
    ax.set_ylim(0, 100)
    ax.set_xlabel(f"% of the game (ends of {t['by']}s)")
    ax.set_ylabel("the leader goes on to win, %")
    ax.set_title("How often the leader at that point wins")
    ax.legend(loc="lower right")
    return _svg(fig)


def _hist(values: list, title: str, xlabel: str, ylabel: str, bins=20) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.8, 3))
    ax.hist(values, bins=bins, color="#7fb77e", edgecolor="white")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return _svg(fig)


# ---- text

def _table(header: list, rows: list, raw: bool = False, text: bool = False) -> str:
    """A table: numbers right-aligned after the first column, or every column left-aligned (`text`)."""
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c if raw else escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    # in a box of its own that scrolls sideways when the table is wider than the page (a comparison's
    # intervals on a laptop, any table on a phone): the page itself keeps its width
    return f"<div class=wide><table{' class=text' if text else ''}><tr>{head}</tr>{body}</table></div>"


def _num(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, int) and not isinstance(x, bool):
        return f"{x:,}"
    return f"{x:,.3g}" if abs(x) >= 10 else f"{x:.2f}"


def _mean(mean, ci, digits: int = 1) -> str:
    if mean is None:
        return "—"
    return f"{mean:.{digits}f}" + (f" ({ci[0]:.{digits}f}–{ci[1]:.{digits}f})" if ci else "")


def _pct_ci(s: dict) -> str:
    if s["mean"] is None:
        return "—"
    return M.pct(s["mean"]) + (f" ({M.pct(s['ci'][0])}–{M.pct(s['ci'][1])})" if s["ci"] else "")


def _val(x, unit: str, sign: bool = False) -> str:
    if x is None:
        return "—"
    if unit == "%":
        return f"{100 * x:+.0f} points" if sign else M.pct(x)
    return f"{x:+.2f}" if sign else _num(x)


def _side(row: dict, side: str) -> str:
    """One version's figure of a comparison row: a rate, or a per-game quantity's mean with its median."""
    x = row.get(side)
    median = row.get(f"{side}_median")
    if median is None or x is None or row["unit"] == "%":
        return _val(x, row["unit"])
    return f"{_num(x)} <span class=dim>(median {_num(median)})</span>"


def _pct(x) -> str:
    return "—" if x is None else M.pct(x)


def _p(p) -> str:
    return "—" if p is None else ("&lt; 0.001" if p < 0.001 else f"{p:.3f}")


def _q(row: dict) -> str:
    q = row.get("q")
    text = "—" if q is None else ("&lt; 0.001" if q < 0.001 else f"{q:.3f}")
    return f"<span class=sig>{text}</span>" if row.get("significant") else text
