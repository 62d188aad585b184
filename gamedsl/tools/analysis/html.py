"""The design report as one self-contained HTML page: text, tables and matplotlib plots inlined as
SVG, readable offline by a designer who never saw the code."""
from __future__ import annotations

import io
from html import escape
from pathlib import Path

from . import metrics as M

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; } h3 { margin-bottom: .3em; }
table { border-collapse: collapse; margin: .5em 0 1em; } td, th { padding: .2em .8em; text-align: right; }
td:first-child, th:first-child, table.text td, table.text th { text-align: left; } tr:nth-child(even) { background: #f5f5f5; }
.finding { background: #eef5ff; border-left: 4px solid #3870c0; padding: .4em .8em; margin: .4em 0; }
.sig { font-weight: bold; color: #a03000; } .dim { color: #777; } code { font-size: .95em; }
.plots { display: flex; flex-wrap: wrap; gap: 1em; } .plots svg { max-width: 100%; height: auto; }
"""


def write_report(result: dict, path: str):
    """Write the report of `analyze` to `path` as HTML."""
    Path(path).write_text(render(result), encoding="utf-8")


def render(r: dict) -> str:
    import matplotlib

    matplotlib.use("Agg")  # no display: draw to files
    parts = [f"<h1>Design report: {escape(r['game'])}</h1>",
             f"<p>{r['players']} players; {r['games']} games per version with "
             f"<code>{escape(','.join(r['seats']))}</code> at the seats and {r['skill_games']} more per weaker "
             f"table to measure skill (<code>{escape(r['bot'])}</code> against it); seeds {r['seeds'][0]} to "
             f"{r['seeds'][1]}, the same for every version; {r['elapsed']:.0f} s. Every rate has its 95% interval "
             "(Wilson); a difference is <span class=sig>significant</span> at 5%.</p>"]
    if len(r["versions"]) > 1:
        parts.append(_comparison_section(r))
    for v in r["versions"]:
        parts.append(_version_section(v, len(r["versions"]) > 1))
    return ("<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Design report: "
            f"{escape(r['game'])}</title><style>{_STYLE}</style></head><body>" + "\n".join(parts) + "</body></html>")


def _version_section(v: dict, several: bool) -> str:
    m = v["metrics"]
    opts = ", ".join(f"{n} = {x}" for n, x in v["options"].items())
    out = [f"<h2>{escape(v['label'])}</h2>" if several else "<h2>Findings</h2>",
           f"<p class=dim>{escape(v['file'])}" + (f"; options: {escape(opts)}" if opts else "") + "</p>"]
    out += [f"<div class=finding>{escape(line)}</div>" for line in m["fairness"]["findings"]]
    out += [f"<div class=finding>{escape(s['finding'])}</div>" for s in m["skill"]]
    out.append("<h3>Fairness: seats</h3>" + _table(
        ["seat", "wins", "win rate (95% CI)", "mean place", "p (against the expected share)"],
        [[s["seat"], s["count"], M.rate_text(s), _f(s["mean_place"]), _p(s["p"])] for s in m["fairness"]["per_seat"]]
        + [["first to decide", m["fairness"]["first_player"]["count"], M.rate_text(m["fairness"]["first_player"]),
            "", _p(m["fairness"]["first_player"]["p"])]]))
    plots = [_seat_plot(m), _hist(m["length"]["moves_list"], "moves per game", "games")]
    t = m["tension"]
    if t["measured"] and t["decided_list"]:
        plots.append(_hist(t["decided_list"], "share of the game after which the winner led for good", "games",
                           bins=[i / 10 for i in range(11)]))
    out.append("<div class=plots>" + "".join(plots) + "</div>")
    ln = m["length"]
    out.append("<h3>Length and pace</h3>" + _table(["", "mean", "median", "range"], [
        ["moves per game", _f(ln["moves"]["mean"]), _f(ln["moves"]["median"]), f"{ln['moves']['min']}–{ln['moves']['max']}"],
        ["moves per player", _f(ln["turns_per_player"]["mean"]), _f(ln["turns_per_player"]["median"]),
         f"{ln['turns_per_player']['min']}–{ln['turns_per_player']['max']}"],
        ["rounds", _f(ln["rounds"]["mean"]), _f(ln["rounds"]["median"]), f"{ln['rounds']['min']}–{ln['rounds']['max']}"],
    ]) + f"<p>{M.pct(ln['forced_share'] or 0)} of decisions have one legal move; {_f(ln['mean_choices'])} legal "
         f"moves per decision on average; {ln['limit_hit']} games hit the move limit.</p>")
    if t["measured"]:
        out.append("<h3>Tension</h3>" + _table(["", "value"], [
            ["lead changes per game (mean)", _f(t["lead_changes"]["mean"])],
            ["games whose winner was behind at some point", M.rate_text(t["winner_behind"])],
            ["share of the game the winner spent behind (mean)", _pct(t["winner_behind_share"]["mean"])],
            ["winner led for good after (mean share of the game)", _pct(t["decided_at"]["mean"])],
        ]) + "<p class=dim>Measured with the game's heuristic after every move; only games with one winner count "
             "for the winner's rows.</p>")
    else:
        out.append(f"<h3>Tension</h3><p>Not measured: {escape(t['why'])}.</p>")
    out.append(_coverage(m["coverage"]))
    out.append(_cards(m["cards"]))
    return "\n".join(out)


def _coverage(cov: dict) -> str:
    never = cov["never"]
    rows = [[f"<code>{escape(e['where'])}</code>", e["kind"], escape(e["name"]), f"<code>{escape(e['text'][:80])}</code>"]
            for e in never]
    rare = sorted((e for e in cov["elements"] if 0 < e["share"] < 0.05), key=lambda e: e["share"])
    out = [f"<h3>Coverage</h3><p>{len(cov['elements']) - len(never)} of {len(cov['elements'])} actions, triggers, "
           f"modifiers, steps and statements fired in at least one game; {len(never)} never did.</p>"]
    if rows:
        out.append("<p>Never fired:</p>" + _table(["where", "kind", "name", "source"], rows, raw=True, text=True))
    if rare:
        out.append("<p>Fired in fewer than 5% of games:</p>" + _table(["where", "kind", "source", "games"], [
            [f"<code>{escape(e['where'])}</code>", e["kind"], f"<code>{escape(e['text'][:80])}</code>", _pct(e["share"])]
            for e in rare[:40]], raw=True, text=True))
    return "".join(out)


def _cards(cards: dict) -> str:
    out = ["<h3>Card impact</h3><p>The win rate of players who played a card (or held it at the end) against "
           "the others'. Bold: significant at 5% after a Bonferroni correction over the cards.</p>"]
    for key, title in (("played", "played"), ("held", "held at the end")):
        rows = cards[key]
        if not rows:
            continue
        shown = rows[:8] + [r for r in rows[8:] if r in rows[-8:]]
        out.append(f"<p><b>{title}</b> (the 8 best and 8 worst of {len(rows)} cards)</p>" + _table(
            ["card", "win rate with", "without", "difference", "p"],
            [[(f"<span class=sig>{escape(r['card'])}</span>" if r["significant"] else escape(r["card"])),
              M.rate_text(r["with"]), M.rate_text(r["without"]), f"{100 * r['diff']:+.0f} points", _p(r["p"])]
             for r in shown], raw=True))
    return "".join(out)


def _comparison_section(r: dict) -> str:
    out = ["<h2>Versions side by side</h2>"]
    for c in r["comparisons"]:
        out.append(f"<h3>{escape(c['other'])} against {escape(c['base'])}</h3>" + _table(
            ["metric", c["base"], c["other"], "difference (95% CI)", "p"],
            [[escape(row["metric"]), _f(row["base"]), _f(row["other"]),
              _f(row["diff"]) + ("" if not row["ci"] else f" ({_f(row['ci'][0])} to {_f(row['ci'][1])})"),
              (f"<span class=sig>{_p(row['p'])}</span>" if row["significant"] else _p(row["p"]))]
             for row in c["rows"]], raw=True))
        if c["coverage_changes"]:
            out.append("<p>Rules that fire significantly more or less often:</p>" + _table(
                ["where", "source", c["base"], c["other"]],
                [[f"<code>{escape(ch['where'])}</code>", f"<code>{escape(ch['text'][:70])}</code>", _pct(ch["base"]),
                  _pct(ch["other"])] for ch in c["coverage_changes"]], raw=True, text=True))
    out.append("<p class=dim>Rates: two-proportion z-test; means: Welch's t-test; both two-sided at 5%.</p>")
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

    seats = m["fairness"]["per_seat"]
    fig, ax = plt.subplots(figsize=(4.5, 3))
    xs = [s["seat"] for s in seats]
    rates = [s["rate"] or 0 for s in seats]
    lo = [r - (s["ci"][0] if s["ci"] else r) for r, s in zip(rates, seats)]
    hi = [(s["ci"][1] if s["ci"] else r) - r for r, s in zip(rates, seats)]
    ax.bar(xs, rates, yerr=[lo, hi], capsize=4, color="#6a9bd8")
    ax.axhline(m["fairness"]["expected"], color="#a03000", linestyle="--", label="expected")
    ax.set_xticks(xs)
    ax.set_xlabel("seat")
    ax.set_ylabel("win rate (95% CI)")
    ax.legend()
    return _svg(fig)


def _hist(values: list, xlabel: str, ylabel: str, bins=20) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.5, 3))
    ax.hist(values, bins=bins, color="#7fb77e", edgecolor="white")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return _svg(fig)


# ---- text

def _table(header: list, rows: list, raw: bool = False, text: bool = False) -> str:
    """A table: numbers right-aligned after the first column, or every column left-aligned (`text`)."""
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c if raw else escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table{' class=text' if text else ''}><tr>{head}</tr>{body}</table>"


def _f(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    return f"{x:.3g}" if abs(x) >= 10 else f"{x:.2f}"


def _pct(x) -> str:
    return "—" if x is None else M.pct(x)


def _p(p) -> str:
    return "—" if p is None else ("< 0.001" if p < 0.001 else f"{p:.3f}")
