"""Every game as a PettingZoo AEC environment (gamedsl/rl/pettingzoo.py): PettingZoo's own tests, masks, observations."""
import random
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import gamedsl
from gamedsl.errors import IllegalAction
from gamedsl.engine.knowledge import redeal
from gamedsl.rl.encoding import Encoding
from gamedsl.rl.moves import MoveIds
from gamedsl.rl.pettingzoo import GamedslEnv, env

ROOT = Path(__file__).resolve().parent.parent
GAMES = {p.stem: gamedsl.load_game(p) for p in sorted((ROOT / "games").glob("*.game"))}
CASES = [(name, n) for name, g in GAMES.items() for n in sorted({g.min_players, g.max_players})]
MAX_MOVES = 400  # a long game is truncated after this many moves



@pytest.mark.parametrize("name,players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
# What api_test says of every environment whose observation is a dict with an action mask (its
# own card games too): advice, not failures.
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
def test_pettingzoo_api_test_passes(name, players):
    api_test(env(GAMES[name], players, max_moves=MAX_MOVES), num_cycles=200)


@pytest.mark.parametrize("name,players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_pettingzoo_seed_test_passes(name, players):
    seed_test(lambda: env(GAMES[name], players, max_moves=MAX_MOVES), num_cycles=200)


def test_an_action_off_the_mask_is_refused_with_the_reason():
    e = GamedslEnv(GAMES["laus"], 3)
    e.reset(seed=0)
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalAction, match=r"is not legal now: the action mask holds the legal moves"):
        e.step(illegal)


def test_the_path_of_a_file_makes_an_environment_too():
    e = env(str(ROOT / "games" / "laus.game"), 4, options={"target": "500"})
    e.reset(seed=1)
    assert e.unwrapped.options == {"target": 500} and e.possible_agents == [f"player_{k}" for k in range(4)]
    assert GamedslEnv(GAMES["mad_king"]).metadata["name"] == "gamedsl_moods_of_the_mad_king"


def pick(e, rng) -> int:
    """A legal action of the environment's seat to move, at random."""
    return rng.choice(list(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])))


def test_the_action_mask_is_the_legal_moves_of_the_seat_to_move():
    for name in ("laus", "lol"):
        e = GamedslEnv(GAMES[name], 3, max_moves=300)
        e.reset(seed=2)
        rng = random.Random(2)
        while e.agents:
            agent = e.agent_selection
            obs, reward, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            state = e.state
            assert agent == f"player_{state.current_player()}"
            ids = MoveIds(e.game).legal(state)
            assert list(np.flatnonzero(obs["action_mask"])) == sorted(ids)
            assert sorted(ids.values()) == sorted(state.legal_actions())
            assert all(e.game.action_to_string(a) == e.game.action_to_string(b) for a, b in ids.items())
            for other in e.agents:
                if other != agent:
                    assert not e.observe(other)["action_mask"].any()
            e.step(rng.choice(sorted(ids)))


def test_the_observation_vector_does_not_change_when_hidden_cards_are_dealt_again():
    for name in ("laus", "mad_king", "crazy_eights"):
        game = GAMES[name]
        enc, rng, changed = Encoding(game, 3), random.Random(0), 0
        for seed in range(3):
            state = game.new_state(3, seed)
            for _ in range(rng.randrange(30)):
                if state.is_terminal():
                    break
                state.apply_action(rng.choice(state.legal_actions()))
            for player in range(3):
                world = redeal(state, player, rng)
                if world is None:
                    continue
                before = enc.encode(state.observation(player), player)
                assert np.array_equal(enc.encode(world.observation(player), player), before)
                changed += world.z != state.z
        assert changed  # some deals did put other cards in the hidden places


def test_the_observation_vector_shows_what_the_seat_sees_and_no_more():
    game = GAMES["laus"]
    enc = Encoding(game, 3)
    state = game.new_state(3, 4)
    obs = state.observation(1)
    parts = enc.views(enc.encode(obs, 1))
    own = enc.slots[("hand", 0)]  # relative seat 0: the seat observing
    hand = obs["zones"]["hand"]["P2"]
    assert parts["cards"][own].sum() == len(hand) == parts["counts"][own]
    for card in hand:
        assert parts["cards"][own, enc.kinds[card]] == 1
    nxt = enc.slots[("hand", 1)]  # the next seat: its hand counted, its cards unseen
    assert parts["cards"][nxt].sum() == 0 and parts["counts"][nxt] == obs["zones"]["hand"]["P3"]["count"]
    assert parts["to_move"][enc.seat(obs["to_move"], 1)] == 1
    low, high = enc.bounds()
    assert (low <= parts["cards"].min()).all() and enc.encode(obs, 1).max() <= high.max()


def test_the_end_rewards_each_seat_its_return_and_a_move_limit_truncates():
    e = GamedslEnv(GAMES["mad_king"], 2)
    e.reset(seed=3)
    rng = random.Random(3)
    total = {a: 0.0 for a in e.possible_agents}
    while not e.state.is_terminal():
        e.step(pick(e, rng))
        for agent, r in e.rewards.items():
            total[agent] += r
    assert [total[a] for a in e.possible_agents] == e.state.returns() != [0.0, 0.0]
    assert all(e.terminations.values()) and not any(e.truncations.values())
    e = GamedslEnv(GAMES["lol"], 2, max_moves=20)
    e.reset(seed=3)
    while not e.state.is_terminal():
        e.step(pick(e, rng))
    assert e.state.moves == 20 and all(e.truncations.values()) and not any(e.rewards.values())


def test_reset_with_a_seed_deals_the_same_game_and_render_shows_the_seats_view():
    e = GamedslEnv(GAMES["laus"], 3, render_mode="ansi")
    e.reset(seed=9)
    first = e.state.digest()
    e.reset()
    assert e.state.digest() != first
    e.reset(seed=9)
    assert e.state.digest() == first
    text = e.render()
    assert '"player": "P' in text and "hand" in text
