"""bench/run.py --json, read the way another tool reads it: one short run of two games, with this
same checkout as the --before engine (so the worker process and every section are exercised)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = {"laus", "law"}  # law: the edit + check section edits one of its rules
KEYS = {
    "rows": {"impl", "game", "players", "games", "moves", "moves_per_s", "us_per_move", "x_plain"},
    "ratios": {"impl", "game", "players", "versus", "versus_game", "median", "low", "high", "slices"},
    "load": {"impl", "game", "cold_ms", "warm_ms"},
    "edit": {"impl", "game", "cold_ms", "same_ms", "edit_ms"},
    "calls": {"impl", "game", "players", "games", "moves", "calls_per_move", "x_state"},
    "clone": {"impl", "game", "players", "clones", "us_per_clone", "us_per_move", "clone_per_move"},
    "greedy": {"impl", "game", "players", "decisions", "median_ms", "mean_ms", "max_ms", "speedup_vs_before"},
    "ab": {"a", "b", "median", "low", "high", "rounds", "us_a", "us_b"},
    "targets": {"target", "figure", "met", "status"},
}
FIGURES = {"rows": ("moves_per_s", "us_per_move", "x_plain"), "load": ("cold_ms", "warm_ms"),
           "edit": ("cold_ms", "same_ms", "edit_ms"), "calls": ("calls_per_move", "x_state"),
           "clone": ("us_per_clone", "clone_per_move"), "greedy": ("median_ms", "mean_ms", "max_ms")}


@pytest.fixture(scope="module")
def result():
    command = [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--json", "--seconds", "0.05",
               "--games", ",".join(sorted(GAMES)), "--before", str(ROOT), "--ab-rounds", "2"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_every_section_has_the_documented_keys(result):
    assert set(result) == set(KEYS)
    for section, keys in KEYS.items():
        assert result[section], section
        for entry in result[section]:
            assert keys <= set(entry) <= keys | {"error"}, (section, entry)


def test_every_game_is_measured_by_both_engines_with_positive_figures(result):
    for section, figures in FIGURES.items():
        ours = [e for e in result[section] if e["impl"] in ("gamedsl", "before")]
        games = {"edit": {"law"}, "calls": {"laus"}}.get(section, GAMES)  # a section of one game
        assert {(e["impl"], e["game"]) for e in ours} == {(i, g) for i in ("gamedsl", "before") for g in games}
        for e in ours:
            assert "error" not in e, e
            assert all(e[f] > 0 for f in figures), e
    plain = [e for e in result["rows"] if e["impl"] == "plain"]
    assert [e["players"] for e in plain] == [3, 4] and all(e["x_plain"] == 1 for e in plain)
    assert all(e["speedup_vs_before"] > 0 for e in result["greedy"] if e["impl"] == "gamedsl")


def test_a_peer_is_measured_or_not_installed(result):
    peers = [e for e in result["rows"] if e["impl"] not in ("plain", "gamedsl", "before")]
    assert {(e["impl"], e["game"]) for e in peers} >= {("rlcard", "uno"), ("openspiel", "crazy_eights")}
    for e in peers:
        assert e.get("error") == "not installed" or ("error" not in e and e["moves_per_s"] > 0), e


def test_each_target_is_met_not_met_or_not_measured(result):
    for t in result["targets"]:
        assert (t["met"], t["status"]) in ((True, "met"), (False, "NOT met")) \
            or (t["met"] is None and t["status"].startswith("not measured (")), t
    lol = next(t for t in result["targets"] if t["target"].startswith("LOL"))
    assert lol["status"] in ("not measured (peer not installed)", "not measured (not in this run)")


def test_the_targets_against_state_and_plain_are_decided_by_an_ab_of_cpu_time(result):
    # bench/ab.py: each side in processes of its own, by turns; B's CPU time per move over A's
    # ... and, with --before, each game and player count of the run against the other checkout's
    assert [(r["a"], r["b"]) for r in result["ab"]] == [
        ("state:laus:3", "gamedsl:laus:3"), ("state:laus:4", "gamedsl:laus:4"), ("plain:laus:3", "gamedsl:law:2"),
        ("gamedsl:laus:3", f"gamedsl@{ROOT}:laus:3"), ("gamedsl:laus:4", f"gamedsl@{ROOT}:laus:4"),
        ("gamedsl:law:2", f"gamedsl@{ROOT}:law:2")]
    for r in result["ab"]:
        assert r["rounds"] == 2 and 0 < r["low"] <= r["median"] <= r["high"] and r["us_a"] > 0 and r["us_b"] > 0
    assert all(r["us_b"] > r["us_a"] for r in result["ab"][:3])  # gamedsl's move costs more than hand-written Laus'
    decided = [t for t in result["targets"] if t["target"].endswith("(A/B of CPU time)")]
    assert [t["target"] for t in decided] == ["Laus 3p <= 2.0x state (A/B of CPU time)",
                                              "Laus 4p <= 2.0x state (A/B of CPU time)",
                                              "every game faster per move than before (A/B of CPU time)",
                                              "Law 2p <= 8x plain Laus 3p (A/B of CPU time)"]


# ---- bench/strength.py --record: a cell that spans runs

def run_strength(*args):
    command = [sys.executable, str(ROOT / "bench" / "strength.py"), "--bot", "ismcts:5", "--against", "random",
               "--cells", "mad_king:2", "--jobs", "1", "--json", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)


def strength(*args):
    proc = run_strength(*args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["rows"][0]


def test_a_recorded_cell_goes_on_where_it_stopped_and_ends_as_one_run_would(tmp_path):
    record = tmp_path / "results"
    first = strength("--games", "4", "--record", str(record))
    assert first["games"] == 4
    (path,) = record.glob("*.jsonl")
    with path.open("a") as f:
        f.write('{"task": [9, 0, 9], "game": {"torn')  # a run killed while writing
    resumed = strength("--games", "8", "--record", str(record))
    lines = path.read_text().splitlines()
    assert "torn" not in path.read_text()  # cut off, so the next game was not appended to it
    assert len(lines) == 1 + 4 + 4  # the header, the first run's 4 games, 4 more: not 8 more
    fresh = strength("--games", "8")
    assert {k: resumed[k] for k in ("games", "wins", "ci", "fair")} == {k: fresh[k] for k in ("games", "wins", "ci", "fair")}


def test_a_record_made_with_other_settings_is_refused(tmp_path):
    record = tmp_path / "results"
    strength("--games", "2", "--record", str(record))
    (path,) = record.glob("*.jsonl")
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["measured_with"] = "0" * 16
    path.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    proc = run_strength("--games", "4", "--record", str(record))
    assert proc.returncode != 0 and "move it away" in proc.stderr
    assert path.read_text().splitlines()[1:] == lines[1:]  # nothing played, nothing lost


def test_a_run_killed_inside_a_deal_keeps_the_games_it_finished(tmp_path, monkeypatch):
    import importlib.util
    spec = importlib.util.spec_from_file_location("strength", ROOT / "bench" / "strength.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    play_all, played = module.play_all, []

    def killed_after_one_game(game, specs, options, part, jobs):
        if played:
            raise KeyboardInterrupt  # Ctrl-C while the deal's second game is being played
        played.extend(part)
        return play_all(game, specs, options, part, jobs=jobs)
    monkeypatch.setattr(module, "play_all", killed_after_one_game)
    record = tmp_path / "results"
    with pytest.raises(KeyboardInterrupt):
        module.cell("mad_king", 2, "ismcts:5", "random", 2, 0, 1, record)
    (path,) = record.glob("*.jsonl")
    kept = [json.loads(line)["task"] for line in path.read_text().splitlines()[1:]]
    assert kept == [list(played[0])]  # the deal's first game, kept though its deal is unfinished
    resumed = strength("--games", "2", "--record", str(record))
    assert len(path.read_text().splitlines()) == 1 + 2  # only the missing game was played
    assert resumed["games"] == 2
