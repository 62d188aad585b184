"""Variant files (`extends "BASE.game"`): each kind of declaration replaced or removed by name,
errors located in the file that made them, the cache keyed on the base's text too, a variant
that changes nothing plays as its base, and the commands take a variant."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

import gamedsl
from gamedsl.errors import SourceError
from gamedsl.language import compiler
from gamedsl.language.build import build
from gamedsl.language.variant import bases
from gamedsl.language import model as m
from gamedsl.tools.analysis.versions import kept_rules
from gamedsl.tools.cli import main
from gamedsl.tools.logfile import file_sha256
from gamedsl.tools.simulate import play_bot_game

ROOT = Path(__file__).resolve().parent.parent

BASE = '''game "Tiny"
players 2 to 3
option laps = 2 "turns each player takes"
limit 500 moves
attribute rank: 1, 2, 3, 4, 5, 6
attribute colour: red, black
cards rank * colour
value pts: 1 = 1, 2 = 2, 3 = 3, 4 = 4, 5 = 5, 6 = 6
zone deck: hidden, stack
zone hand per player: owner
zone table: public
var score per player = 0
var laps_done = 0
param bonus per player = 0
modifier lucky while count(owner.hand) > 5 { bonus += 1 }
def worth(c) = c.pts
def hand_size() = 2
action lay (c in me.hand) { move c to table  me.score += worth(c) }
action shout "shout" if count(me.hand) > 5 { say "never said" }
invariant "scores grow": all(p in players if p.score >= 0)
on turn end "noted" { say "laid" }
setup { shuffle deck  deal hand_size() from deck to hand }
round {
  for each p in players { turn p { choose lay, shout } }
  laps_done += 1
}
end game when laps_done == laps
heuristic me.score
outcome { for each p in players { if p.score == max(q.score for q in players) { win p } else { lose p } } }
'''


@pytest.fixture(autouse=True)
def _in_tmp(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    Path("base.game").write_text(BASE, encoding="utf-8")


def variant(text: str, name: str = "variant.game") -> gamedsl.Game:
    Path(name).write_text('extends "base.game"\n' + text, encoding="utf-8")
    return gamedsl.load_game(name)


def first_moves(game, seed=1, players=2):
    """A game played with the first legal move each time: its final state."""
    state = game.new_state(players=players, seed=seed)
    while not state.is_terminal():
        state.apply_action(min(state.legal_actions()))
    return state


def error_of(text: str, name: str = "variant.game") -> str:
    Path(name).write_text(text, encoding="utf-8")
    with pytest.raises(SourceError) as err:
        gamedsl.load_game(name)
    return str(err.value)


def merged(text: str) -> m.GameModel:
    Path("variant.game").write_text('extends "base.game"\n' + text, encoding="utf-8")
    return build(Path("variant.game").read_text(encoding="utf-8"), "variant.game")


# ---- what a variant changes

def test_a_redeclared_option_changes_its_default_and_keeps_its_description():
    game = variant("option laps = 1\n")
    assert game.prog.options["laps"] == (1, "turns each player takes")
    assert first_moves(gamedsl.load_game("base.game")).moves == 2 * 2  # two laps of two turns
    assert first_moves(game).moves == 1 * 2


def test_a_value_table_replaced():
    base = first_moves(gamedsl.load_game("base.game"))
    flat = first_moves(variant("value pts: else 10\n"))
    assert base.history == flat.history
    assert base.returns()[0] != base.returns()[1]
    assert flat.returns()[0] == flat.returns()[1] > 0  # every card scores 10: a tie, both win


def test_cards_and_attributes_replaced():
    assert variant("cards rank * colour where colour == red\n").prog.card_count() == 6
    assert variant("attribute colour: red\n").prog.card_count() == 6
    assert variant("cards rank * colour times 2\n").prog.card_count() == 24
    assert gamedsl.load_game("base.game").prog.card_count() == 12


def test_a_def_and_the_setup_replaced():
    def dealt(game):
        state = game.new_state(players=2, seed=1)
        return len(state.legal_actions())  # one move per card in the hand of the player on turn
    assert dealt(gamedsl.load_game("base.game")) == 2
    assert dealt(variant("def hand_size() = 4\n")) == 4
    assert dealt(variant("setup { shuffle deck  deal 5 from deck to hand }\n")) == 5


def test_an_action_replaced_in_place_and_one_removed():
    base = gamedsl.load_game("base.game")
    game = variant('action lay "lay down" (c in me.hand) { move c to table }\nremove action shout\n'
                   'round {\n  for each p in players { turn p { choose lay } }\n  laps_done += 1\n}\n')
    assert [a.name for a in game.prog.actions][:1] == [a.name for a in base.prog.actions][:1] == ["lay"]
    assert "shout" not in game.prog.action_by_name
    state = game.new_state(players=2, seed=1)
    assert state.action_to_string(state.legal_actions()[0]).startswith("lay down")


def test_the_outcome_replaced_whole():
    state = first_moves(variant("outcome { for each p in players { win p } }\n"))
    assert state.returns()[0] == state.returns()[1] > 0


def test_a_trigger_a_variable_a_modifier_and_an_action_replaced_play_as_written():
    def after_one_move(game):
        state = game.new_state(players=2, seed=1)
        state.apply_action(min(state.legal_actions()))
        view = state.observation(0)
        return view["log"], view["vars"]["score"]
    log, score = after_one_move(gamedsl.load_game("base.game"))
    assert log == ["P1: laid"] and score["P2"] == 0 and score["P1"] > 0
    game = variant('on turn end "noted" { say "swept" }\nvar score per player = 5\n'
                   'modifier lucky while true { bonus += 2 }\n'
                   'action lay (c in me.hand) { move c to table  me.score += me.bonus }\n')
    assert after_one_move(game) == (["P1: swept"], {"P1": 7, "P2": 5})


def test_rules_replaced_by_name_keep_the_base_order():
    gm = merged('on turn end "noted" { say "laid down" }\nmodifier lucky while true { bonus += 2 }\n'
                'heuristic 0\ninvariant "scores grow": true\non turn end { say "added" }\n')
    kinds = [type(d).__name__ for d in gm.decls]
    base = [type(d).__name__ for d in build(BASE, "base.game").decls]
    assert kinds == base + ["TriggerDecl"]  # the unlabelled trigger is added at the end
    trigger = next(d for d in gm.decls if isinstance(d, m.TriggerDecl) and d.label == "noted")
    assert trigger.body[0].text == "laid down" and trigger.span.file == ""
    lucky = next(d for d in gm.decls if isinstance(d, m.ModifierDecl))
    assert lucky.span.line == 3 and lucky.span.file == ""
    assert next(d for d in gm.decls if isinstance(d, m.GameName)).span.file == "base.game"
    assert isinstance(next(d for d in gm.decls if isinstance(d, m.Heuristic)).value, m.Number)


def test_removed_declarations_are_gone():
    gm = merged("remove modifier lucky\nremove invariant \"scores grow\"\nremove trigger \"noted\"\n"
                "remove heuristic\nremove limit\n")
    assert not [d for d in gm.decls if isinstance(d, (m.ModifierDecl, m.InvariantDecl, m.TriggerDecl, m.Heuristic,
                                                      m.LimitDecl))]
    game = gamedsl.load_game("variant.game")
    assert game.prog.modifiers == () and game.prog.heuristic is None


def test_a_variant_of_a_variant():
    Path("middle.game").write_text('extends "base.game"\noption laps = 3\n', encoding="utf-8")
    Path("sub").mkdir()
    Path("sub/last.game").write_text('extends "../middle.game"\ngame "Tiny, last"\n', encoding="utf-8")
    game = gamedsl.load_game("sub/last.game")
    assert game.name == "Tiny, last" and game.prog.options["laps"][0] == 3
    assert list(game.prog.sources) == ["middle.game", "base.game"]


# ---- a variant that changes nothing, and Law's first game

def test_a_variant_that_replaces_nothing_plays_as_its_base():
    base = gamedsl.load_game(ROOT / "games" / "crazy_eights.game")
    Path("same.game").write_text(f'extends "{ROOT / "games" / "crazy_eights.game"}"\n', encoding="utf-8")
    same = gamedsl.load_game("same.game")
    for seed in (1, 2, 3):
        a = play_bot_game(base, 3, seed, seats=("random",), options={"target": 50})
        b = play_bot_game(same, 3, seed, seats=("random",), options={"target": 50})
        assert a.history == b.history and a.returns() == b.returns()


def test_laws_first_game_as_a_variant_plays_as_the_option():
    law = gamedsl.load_game(ROOT / "games" / "law.game")
    first = gamedsl.load_game(ROOT / "games" / "law_first_game.game")
    assert first.name == "Law, first game" and set(first.prog.options) == set(law.prog.options)
    for seed, players in ((1, 2), (2, 3), (3, 4)):
        a = play_bot_game(law, players, seed, seats=("random",), options={"first_game": True})
        b = play_bot_game(first, players, seed, seats=("random",))
        assert a.history == b.history and a.returns() == b.returns()
        c = play_bot_game(law, players, seed, seats=("random",))
        assert c.history != b.history


# ---- errors, each in the file that made it

def test_an_unknown_option_is_refused_with_a_hint():
    assert error_of('extends "base.game"\noption lpas = 3\n') == (
        "variant.game:2:8: error: base.game has no option 'lpas': a variant changes the options of its base\n"
        "    option lpas = 3\n"
        "           ^^^^\n"
        "  hint: did you mean 'laps'?")


def test_a_misspelt_action_is_added_and_never_offered_with_a_hint():
    assert error_of('extends "base.game"\naction shuot "shout" { say "x" }\n') == (
        "variant.game:2:8: error: action 'shuot' is never offered: no 'choose' names it\n"
        "    action shuot \"shout\" { say \"x\" }\n"
        "           ^^^^^\n"
        "  hint: the base has no action 'shuot', so this one is added: did you mean 'shout', to replace it?")


def test_removing_what_the_base_has_not():
    assert error_of('extends "base.game"\nremove action shuot\nremove acton lay\nremove action\n'
                    'remove round "x"\nremove back\n') == (
        "variant.game:2:15: error: base.game has no action 'shuot' to remove\n"
        "    remove action shuot\n"
        "                  ^^^^^\n"
        "  hint: did you mean 'shout'?\n"
        "variant.game:3:8: error: 'acton' is not something a variant can remove\n"
        "    remove acton lay\n"
        "           ^^^^^\n"
        "  hint: did you mean 'action'?\n"
        "variant.game:4:8: error: say which action to remove: 'remove action NAME'\n"
        "    remove action\n"
        "           ^^^^^^\n"
        "variant.game:5:14: error: 'remove round' takes no name: a game has one\n"
        "    remove round \"x\"\n"
        "                 ^^^\n"
        "variant.game:6:8: error: base.game has no back to remove\n"
        "    remove back\n"
        "           ^^^^")


def test_removing_and_redeclaring_at_once():
    assert error_of('extends "base.game"\nremove def worth\ndef worth(c) = 1\n') == (
        "variant.game:2:8: error: this file declares def 'worth' again: a declaration replaces the base's "
        "without a 'remove'\n"
        "    remove def worth\n"
        "           ^^^")


def test_what_a_removal_breaks_is_shown_in_the_base():
    assert error_of('extends "base.game"\nremove action shout\n') == (
        "base.game:24:48: error: unknown action 'shout'\n"
        "      for each p in players { turn p { choose lay, shout } }\n"
        "                                                   ^^^^^\n"
        "  hint: the variant removes it: variant.game:2:8")


def test_errors_in_both_files_each_in_its_own():
    Path("base.game").write_text(BASE.replace("def worth(c) = c.pts", "def worth(c) = c.pts + nobody"),
                                 encoding="utf-8")
    text = error_of('extends "base.game"\ndef hand_size() = 2 + nobody\n')
    assert text.startswith("variant.game:2:23: error: expected a number, found a player\n"
                           "    def hand_size() = 2 + nobody\n")
    assert "\nbase.game:16:" in text and "\n    def worth(c) = c.pts + nobody\n" in text


def test_a_syntax_error_in_the_base_is_the_base_s():
    Path("base.game").write_text(BASE.replace("zone table: public", "zone table public"), encoding="utf-8")
    assert error_of('extends "base.game"\n').startswith("base.game:11:12: error: expected ")


def test_a_missing_base_a_circle_and_a_second_extends():
    assert error_of('extends "bsae.game"\n') == (
        "variant.game:1:9: error: cannot read the game this file extends, 'bsae.game': no such file or directory\n"
        "    extends \"bsae.game\"\n"
        "            ^^^^^^^^^^^\n"
        "  hint: did you mean 'base.game'?")
    Path("one.game").write_text('extends "two.game"\n', encoding="utf-8")
    Path("two.game").write_text('extends "one.game"\n', encoding="utf-8")
    assert error_of('extends "two.game"\n', "one.game") == (
        "two.game:1:9: error: the files extend each other in a circle: one.game -> two.game -> one.game\n"
        "    extends \"one.game\"\n"
        "            ^^^^^^^^^^\n"
        "  hint: a base cannot extend its variant")
    assert error_of('extends "self.game"\n', "self.game").startswith(
        "self.game:1:9: error: the files extend each other in a circle: self.game -> self.game")
    assert error_of('extends "base.game"\nextends "base.game"\n').startswith(
        "variant.game:2:9: error: a variant extends one game; this is a second 'extends'")


def test_remove_without_extends():
    assert error_of(BASE + "remove action shout\n", "plain.game").startswith(
        "plain.game:30:8: error: 'remove' takes away a declaration of the game a variant extends, and this "
        "file extends none")


# ---- the cache, logs and commands

def test_the_cache_keys_on_the_base_s_text(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEDSL_CACHE", str(tmp_path / "cache"))
    compiled = []
    real = compiler.compile_model

    def counting(model, *a, **k):
        compiled.append(model.filename)
        return real(model, *a, **k)
    monkeypatch.setattr(compiler, "compile_model", counting)
    assert variant("option laps = 3\n").prog.options["laps"][0] == 3
    gamedsl.load_game("variant.game")
    assert compiled == ["variant.game"]  # the second load came from the cache
    Path("base.game").write_text(BASE.replace("def hand_size() = 2", "def hand_size() = 3"), encoding="utf-8")
    game = gamedsl.load_game("variant.game")
    assert compiled == ["variant.game", "variant.game"]  # the base changed: compiled again
    assert len(game.new_state(players=2, seed=1).legal_actions()) == 3
    assert list(bases('# extends "old.game"\ngame "V" extends "base.game"\n', "v.game")) == ["base.game"]


def test_check_play_replay_simulate_arena_and_analyze_take_a_variant(capsys):
    Path("variant.game").write_text('extends "base.game"\ngame "Tiny, longer"\noption laps = 3\n', encoding="utf-8")
    assert main(["check", "variant.game"]) == 0
    assert capsys.readouterr().out == "variant.game: ok\n"
    assert main(["play", "variant.game", "--seed", "4", "--seats", "random,random", "--log", "g.jsonl"]) == 0
    start = json.loads(Path("g.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert start["game"] == "variant.game"
    capsys.readouterr()
    assert main(["replay", "g.jsonl"]) == 0
    assert "same final state" in capsys.readouterr().out
    assert start["game_sha256"] == file_sha256("variant.game") != file_sha256("base.game")
    Path("base.game").write_text(BASE.replace("def hand_size() = 2", "def hand_size() = 3"), encoding="utf-8")
    assert file_sha256("variant.game") != start["game_sha256"]  # a changed base changes the variant
    Path("base.game").write_text(BASE, encoding="utf-8")
    assert main(["simulate", "variant.game", "--games", "3", "--players", "2", "--seats", "random"]) == 0
    assert main(["arena", "variant.game", "--seats", "random,greedy", "--games", "4"]) == 0
    assert main(["verify", "variant.game", "--examples", "3"]) == 0
    capsys.readouterr()
    assert main(["analyze", "base.game", "--compare", "variant.game", "--games", "20", "--seats", "random",
                 "--bot", "random", "--skill-games", "2", "--probes", "0", "--jobs", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [v["label"] for v in report["versions"]] == ["base.game", "variant.game"]
    rounds = next(r for r in report["comparisons"][0]["rows"] if r["metric"] == "rounds per game")
    assert rounds["diff"] == 1 and rounds["significant"]  # three laps against two, on the same seeds
    elements = report["versions"][1]["metrics"]["coverage"]["elements"]
    lay = next(e for e in elements if e["kind"] == "action" and e["name"] == "lay")
    assert lay["where"] == "base.game:18:8" and lay["text"].startswith("action lay (c in me.hand)")


def test_the_report_pairs_the_rules_a_variant_kept_with_its_base_s():
    base = [{"where": "games/law.game:10:1"}, {"where": "games/law.game:20:3"}]
    other = [{"where": "games/law_first_game.game:9:1"}, {"where": "./games/law.game:20:3"}]
    assert kept_rules(base, other) == [(base[1], other[1])]
    assert kept_rules(base, [{"where": "copy.game:20:3"}]) == []


def test_a_rule_that_fails_is_shown_in_the_file_it_is_written_in():
    Path("base.game").write_text(BASE.replace("def worth(c) = c.pts", "def worth(c) = c.pts / (1 - count(table))"),
                                 encoding="utf-8")
    with pytest.raises(gamedsl.GameRuntimeError) as err:
        first_moves(variant("option laps = 3\n"))
    assert str(err.value).startswith("base.game:16:16: error: ")
    assert "\n    def worth(c) = c.pts / (1 - count(table))\n" in str(err.value)
    Path("base.game").write_text(BASE, encoding="utf-8")
    with pytest.raises(gamedsl.GameRuntimeError) as err:
        first_moves(variant("def worth(c) = c.pts / (1 - count(table))\n"))
    assert str(err.value).startswith("variant.game:2:16: error: ")


def test_an_invariant_of_the_base_that_a_variant_breaks_is_shown_in_the_base(capsys):
    Path("neg.game").write_text('extends "base.game"\ndef worth(c) = 0 - c.pts\n', encoding="utf-8")
    assert main(["verify", "neg.game", "--examples", "3", "--players", "2", "--out", "found.yaml"]) == 1
    out = capsys.readouterr()
    assert "base.game:20:1: invariant 'scores grow' does not hold (move 1, round 1)" in out.out + out.err
    assert main(["test", "neg.game", "found.yaml"]) == 1  # the scenario written replays the failure
    assert "error: base.game:20:1: invariant 'scores grow' does not hold" in capsys.readouterr().err


def test_serve_hosts_a_variant_and_its_log_replays(tmp_path, capsys):
    import asyncio
    from serve_helpers import Player, Served, create_table, log_lines, log_of, play_all, random_policy

    Path("variant.game").write_text('extends "base.game"\ngame "Tiny, longer"\noption laps = 3\n', encoding="utf-8")
    with Served(tmp_path / "variant.game", tmp_path / "data") as server:
        table = create_table(server.url, 2, ["human", "random"], {}, seed=4)
        player = Player(server.url, table["seats"][0]["link"], random_policy(0))
        asyncio.run(play_all([player]))
        assert player.errors == [] and player.frames[-1]["over"]
    log = log_of(tmp_path / "data", table["table"])
    lines = log_lines(log)
    assert lines[0]["options"] == {"laps": 3} and lines[-1]["type"] == "end"
    assert lines[0]["game_sha256"] == file_sha256(tmp_path / "variant.game")
    capsys.readouterr()
    assert main(["replay", str(log)]) == 0
    assert "same final state" in capsys.readouterr().out
