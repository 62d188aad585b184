"""Every game as an OpenSpiel game (gamedsl/rl/openspiel.py): OpenSpiel's own checks and its ISMCTS bot."""
import pickle
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.tests import games_sim_test

import gamedsl
from gamedsl.bots import RandomAgent
from gamedsl.errors import GamedslError
from gamedsl.rl import openspiel
from gamedsl.rl.ismcts import OpenSpielISMCTS, from_spec

ROOT = Path(__file__).resolve().parent.parent
PATHS = {p.stem: p for p in sorted((ROOT / "games").glob("*.game"))}
GAMES = {name: gamedsl.load_game(p) for name, p in PATHS.items()}
CASES = [(name, n) for name, g in GAMES.items() for n in sorted({g.min_players, g.max_players})]
SIM_MOVES = 250  # random simulations stop a long game after this many moves (its returns then 0)


def seeded(game, seed: int):
    """A new state of `game` after its chance nodes, which make the gamedsl seed `seed`: its eight
    bytes, first to last (with `seeds=N`, the one chance node's outcome is the seed)."""
    state = game.new_initial_state()
    for outcome in (seed.to_bytes(openspiel.SEED_BYTES, "big") if game.seeds == 0 else [seed]):
        state.apply_action(outcome)
    return state


def played(game, seed: int, moves: int):
    """An OpenSpiel state of `game` after its chance nodes and `moves` random moves (fewer if it ends)."""
    rng = random.Random(seed)
    state = seeded(game, seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("name,players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_openspiel_random_simulations_pass_its_checks(name, players):
    """OpenSpiel's C++ checks (random_sim_test, serialization included) and the Python ones its
    test of every registered game runs (games_sim_test: clones, pickling, serialization)."""
    game = openspiel.load(PATHS[name], players=players, max_moves=SIM_MOVES)
    sims = 2 if players <= 5 else 1  # every check runs for every seat at every step
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)
    np.random.seed(players)  # sim_game draws its moves from numpy's global generator
    games_sim_test.GamesSimTest().sim_game(game)


@pytest.mark.parametrize("name", ["laus", "mad_king"])
def test_whole_games_pass_the_random_simulation_checks(name):
    game = openspiel.load(PATHS[name])  # no move limit of ours: each game to its own end
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_a_state_pickles_and_serializes_as_its_actions_from_the_start():
    game = openspiel.load(PATHS["lol"], players=3)
    state = played(game, 2, 40)
    again = pickle.loads(pickle.dumps(state))
    assert str(again) == str(state) and again.history() == state.history()
    assert again.information_state_string(1) == state.information_state_string(1)
    _, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(copy) == str(state)
    wrapped = openspiel.GamedslGame.of(GAMES["lol"], 3).wrap(state.inner)
    with pytest.raises(GamedslError, match="a state made by wrap"):
        pickle.dumps(wrapped)


def test_the_game_type_and_sizes_come_from_the_file():
    game = openspiel.load(PATHS["laus"], players=4)
    kind, dsl = game.get_type(), GAMES["laus"]
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.provides_information_state_string and kind.provides_information_state_tensor
    assert kind.provides_observation_string and kind.provides_observation_tensor
    assert game.num_players() == 4
    assert game.num_distinct_actions() == dsl.num_distinct_actions()
    assert game.max_game_length() == dsl.prog.move_limit + openspiel.SEED_BYTES
    assert game.max_chance_outcomes() == 256  # a chance node per byte of a 64-bit seed
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 256
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 7) == "seed byte 7"
    seed = 0x0123456789ABCDEF
    for k, byte in enumerate(seed.to_bytes(8, "big")):
        assert state.is_chance_node() and state.inner is None, k  # no deal before the last byte
        state.apply_action(byte)
    assert not state.is_chance_node()  # the seed's bytes, first to last: the same deal as gamedsl's
    assert state.inner.digest() == dsl.new_state(4, seed).digest()
    assert state.legal_actions() == sorted(dsl.new_state(4, seed).legal_actions())


def test_each_file_registers_under_its_name_with_players_and_options():
    name = openspiel.register(PATHS["laus"])
    assert name == "gamedsl_laus" and name in pyspiel.registered_names()
    assert openspiel.register(PATHS["laus"]) == name  # twice is harmless
    with pytest.raises(GamedslError, match="OpenSpiel already has a game called 'gamedsl_laus'"):
        openspiel.register(PATHS["lol"], name="gamedsl_laus")
    with pytest.raises(GamedslError, match="already has a game called 'kuhn_poker'"):
        openspiel.register(PATHS["lol"], name="kuhn_poker")
    assert pyspiel.load_game(name).num_players() == GAMES["laus"].min_players
    game = pyspiel.load_game(f"{name}(players=4,options=target:500)")
    assert game.num_players() == 4 and game.options == {"target": 500}
    game = pyspiel.load_game("gamedsl", {"path": str(PATHS["mad_king"]), "players": 3, "seeds": 5})
    assert game.num_players() == 3 and game.max_chance_outcomes() == 5
    assert len(game.new_initial_state().chance_outcomes()) == 5


@pytest.mark.parametrize("params,message", [
    ({"players": 7}, "Laus is for 3 to 4 players, not 7"),
    ({"options": "colour=5"}, "Laus has no option 'colour'"),
    ({"options": "target"}, "an option is written name=value or name:value, not 'target'"),
    ({"path": ""}, "give the .game file"),
    ({"seeds": -1}, "seeds is 0 \\(a 64-bit seed\\) or how many seeds one chance node picks from, not -1"),
])
def test_bad_parameters_are_gamedsl_errors(params, message):
    with pytest.raises(GamedslError, match=message):
        pyspiel.load_game("gamedsl", {"path": str(PATHS["laus"]), **params})


def test_the_information_state_is_the_same_in_every_world_the_seat_cannot_tell_apart():
    game = openspiel.load(PATHS["laus"], players=3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for seed in range(4):
        state = played(game, seed, 15)
        for player in range(3):
            other = state.resample_from_infostate(player, sampler)
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.observation_string(player) == state.observation_string(player)
            assert other.information_state_tensor(player) == state.information_state_tensor(player)
            assert other.observation_tensor(player) == state.observation_tensor(player)
            if player == state.current_player():  # its own moves it knows
                assert other.legal_actions() == state.legal_actions()
            hands = [other.inner.z[other.inner.game.zone_instance("hand", p)] for p in range(3)]
            assert hands[player] == state.inner.z[state.inner.game.zone_instance("hand", player)]
    # ...and the worlds differ in what the seat cannot see
    state = played(game, 1, 3)
    worlds = {repr(state.resample_from_infostate(0, sampler).inner.z) for _ in range(5)}
    assert len(worlds) > 1


def test_another_seats_hidden_choice_does_not_show_in_an_information_state():
    """Wherever two different moves leave a seat's observation the same, its information state is
    the same after either; the seat that chose knows which."""
    found = 0
    for name in ("laus", "mad_king"):
        game = openspiel.load(PATHS[name], players=3)
        for seed in range(3):
            state = played(game, seed, 0)
            rng = random.Random(seed)
            while not state.is_terminal() and state.move_number() < 60:
                chooser, legal = state.current_player(), state.legal_actions()
                after = [state.child(a) for a in legal[:4]]
                for a, b in zip(after, after[1:]):
                    for p in range(3):
                        if p != chooser and a.observation_string(p) == b.observation_string(p):
                            assert a.information_state_string(p) == b.information_state_string(p)
                            assert a.information_state_tensor(p) == b.information_state_tensor(p)
                            found += 1
                    if a.observation_string(chooser) != b.observation_string(chooser):
                        assert a.information_state_string(chooser) != b.information_state_string(chooser)
                state.apply_action(rng.choice(legal))
    assert found > 0  # the check above did not pass for want of hidden choices


def swapped(state, one: int, two: int):
    """A copy of a gamedsl state with two cards trading places (and the decision worked out again)."""
    other = state.clone()
    z, loc = other.z, other.loc
    i, j = z[loc[one]].index(one), z[loc[two]].index(two)
    z[loc[one]][i], z[loc[two]][j] = two, one
    loc[one], loc[two] = loc[two], loc[one]
    other.refresh(window=False)
    return other


def test_a_seat_that_cannot_tell_two_states_apart_is_offered_the_same_move_ids():
    """What ISMCTS relies on: equal information states, equal legal moves. Two copies of one card
    trading places change no seat's view; their moves take ids by kind and zone, not by copy."""
    compared = 0
    for name in ("mad_king", "lol"):
        dsl = GAMES[name]
        game = openspiel.GamedslGame.of(dsl, 3)
        twins = dsl.prog.twins
        for seed in range(2):
            rng = random.Random(seed)
            state = dsl.new_state(3, seed)
            while not state.is_terminal() and state.moves < 30:
                me = state.current_player()
                mine = {c for z in range(len(state.z)) if dsl.sees(state, z, me, False) for c in state.z[z]}
                pairs = [(c, d) for c in mine for d in range(len(twins))
                         if twins[d] == twins[c] and d != c and state.loc[d] != state.loc[c] and not state.known]
                for c, d in pairs[:3]:
                    one, two = game.wrap(state), game.wrap(swapped(state, c, d))
                    if two.current_player() == me and one.information_state_string() == two.information_state_string():
                        assert one.legal_actions() == two.legal_actions()
                        compared += 1
                state.apply_action(rng.choice(state.legal_actions()))
    assert compared > 20


def test_the_information_state_remembers_what_the_observation_forgets():
    game = openspiel.load(PATHS["mad_king"], players=2)
    one, two = played(game, 3, 0), played(game, 4, 0)
    assert one.information_state_string(0) != two.information_state_string(0)  # different hands
    state = played(game, 3, 8)
    text = state.information_state_string(state.current_player())
    assert text.startswith(state.observation_string(state.current_player()))
    assert "seen before: " in text and not text.endswith("seen before: nothing")
    before = game.new_initial_state()
    assert before.information_state_string(0) == "before the deal\nseen before: nothing"


def test_openspiel_ismcts_plays_whole_games_through_the_adapter():
    for name, players in (("laus", 3), ("mad_king", 2)):
        game = openspiel.load(PATHS[name], players=players)
        rs = np.random.RandomState(0)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, max_simulations=8, random_state=rs)
        state = game.new_initial_state()
        state.apply_action(int(rs.choice([o for o, _ in state.chance_outcomes()])))
        while not state.is_terminal():
            if state.current_player() == 0:
                state.apply_action(int(bot.step(state)))
            else:
                state.apply_action(int(rs.choice(state.legal_actions())))
        assert state.returns() == [1.0 if r == "win" else -1.0 for r in state.inner.results]


def test_openspiels_rl_environment_plays_a_game_to_its_end():
    game = openspiel.load(PATHS["laus"], players=3)
    env = rl_environment.Environment(game, seed=0)  # it samples the chance node itself
    rs, step = np.random.RandomState(0), env.reset()
    assert env.observation_spec()["info_state"] == (game.information_state_tensor_size(),)
    while not step.last():
        player = step.observations["current_player"]
        step = env.step([rs.choice(step.observations["legal_actions"][player])])
    assert sorted(step.rewards) in ([-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0])


def test_the_openspiel_ismcts_bot_plays_a_gamedsl_game_at_a_seat():
    game = GAMES["mad_king"]
    bots = [from_spec("openspiel-ismcts:6", 1), RandomAgent(2)]
    state = game.new_state(2, seed=5)
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].choose(state))
    assert state.results[0] in ("win", "lose")
    assert bots[0].simulations == 6 and from_spec("openspiel-ismcts", 0).simulations > 6
    assert OpenSpielISMCTS.name == "openspiel-ismcts"
    with pytest.raises(KeyError):
        from_spec("greedy", 0)
    with pytest.raises(ValueError, match="a number of simulations, not 'many'"):
        from_spec("openspiel-ismcts:many", 0)


def test_gamedsl_runs_without_the_rl_extra():
    """Importing gamedsl, its bots and its command imports neither gamedsl.rl nor what it needs."""
    code = ("import sys, gamedsl, gamedsl.bots, gamedsl.tools.cli, gamedsl.tools.arena\n"
            "bad = [m for m in sys.modules if m.startswith(('gamedsl.rl', 'pyspiel', 'open_spiel', 'pettingzoo',"
            " 'gymnasium'))]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_the_examples_of_docs_rl_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 4
    scope: dict = {}
    for block in blocks:  # in order: each may use what the ones before it made
        exec(compile(block, "docs/rl.md", "exec"), scope)
