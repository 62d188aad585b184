"""Invariants every game keeps, checked over random play; hypothesis shrinks a failure to a minimal game.

The generic invariants (cards, decisions, refusals, determinism, clones, hidden information)
are checked here in Python; a game's own `invariant` declarations are checked by the engine
while it runs (check_invariants=True).
"""
from __future__ import annotations

import random
from collections import Counter

import attrs

from ..errors import GamedslError, IllegalAction, InvariantViolation
from ..language import types as T
from .leaks import check_no_leak


@attrs.define
class Playout:
    """One game played for verification: its set-up and the moves made so far."""

    game: object
    players: int
    seed: int
    moves: list = attrs.Factory(list)  # action ids
    texts: list = attrs.Factory(list)  # the same moves, as typed
    options: dict = attrs.Factory(dict)  # option values, as typed: {"rules": "ratscrew"}


def check_cards(state):
    """Every card is in exactly one zone, where the state's index says it is."""
    seen = Counter()
    for instance, cards in enumerate(state.z):
        for c in cards:
            seen[c] += 1
            if state.loc[c] != instance:
                where = state.game.zone_instance_name(instance)
                raise InvariantViolation(f"{state.game.card_name(c)} lies in {where} but the index "
                                         f"says {state.game.zone_instance_name(state.loc[c])}")
    total = state.game.card_count()
    missing = [c for c in range(total) if seen[c] == 0]
    twice = [c for c, n in seen.items() if n > 1]
    if missing or twice:
        names = ", ".join(state.game.card_name(c) for c in (missing or twice)[:5])
        raise InvariantViolation(f"cards {'missing from every zone' if missing else 'in two places'}: {names}")


def check_decision(state):
    """Exactly one decision is pending (whose, and which moves), or the game is over."""
    player = state.current_player()
    legal = state.legal_actions()
    if state.is_terminal():
        if player != -1 or legal:
            raise InvariantViolation("the game is over but a move is still asked for")
        return
    if not 0 <= player < state.np:
        raise InvariantViolation(f"the game is not over but no player is to move (player {player})")
    if not legal:
        raise InvariantViolation("the game is not over but there is no legal move")
    if len(set(legal)) != len(legal):
        raise InvariantViolation("a legal move is offered twice")


def check_refusal(state, rng: random.Random):
    """An illegal move is refused with a reason and changes nothing."""
    if state.is_terminal():
        return
    legal = set(state.legal_actions())
    size = state.game.num_distinct_actions()
    illegal = [a for a in rng.sample(range(size), min(size, 12)) if a not in legal]
    if not illegal:
        return
    before = state.digest()
    try:
        state.apply_action(illegal[0])
    except IllegalAction as exc:
        if not str(exc):
            raise InvariantViolation("an illegal move was refused without a reason") from None
    else:
        raise InvariantViolation(f"the illegal move '{state.action_to_string(illegal[0])}' was accepted")
    if state.digest() != before:
        raise InvariantViolation(f"refusing '{state.action_to_string(illegal[0])}' changed the state")


def check_clone(state):
    """A clone is independent of its original, and continues exactly like it."""
    if state.is_terminal():
        return
    before = state.digest()
    copy = state.clone()
    copy.checking = False  # the game's own invariants are checked on the real game, not on this copy
    if copy.digest() != before:
        raise InvariantViolation("a clone differs from its original")
    copy.apply_action(copy.legal_actions()[0])
    if state.digest() != before:
        raise InvariantViolation("a move made on a clone changed the original")


def seen_cards(state) -> list[set[int]]:
    """Per player: the cards their view shows now (in zones they see, or shown to them)."""
    live = state.game.live_zones[state.np]
    return [{c for inst in live for c in state.game.cards_seen(state, inst, p)} for p in range(state.np)]


def before_move(state, action: int):
    """What check_move_texts needs from just before a move that names a card (else None): who
    moves, its full text, and per player the cards they see and how often their view names it."""
    if state.game.decoded[action][0].param_type != T.CARD:
        return None
    mover = state.current_player()
    full = f"{state.game.player_name(mover)}: {state.action_to_string(action)}"
    return mover, full, seen_cards(state), [_times_named(state, p, full) for p in range(state.np)]


def check_move_texts(state, action: int, before):
    """A move just made names its card to another player only if they saw that card: just before
    the move, where the move put it (the rules may have moved it on since), or now. In their
    view's moves, its full text appears no more often than it did before."""
    if before is None:
        return
    mover, full, seen, named = before
    card = state.game.decoded[action][1]
    after = seen_cards(state)
    _, _, _, dst, dst_top = state.card_moves[state.moves - 1 - state.hbase]
    for p in range(state.np):
        if p != mover and card not in seen[p] and card not in after[p] \
                and not (dst >= 0 and state.game.sees(state, dst, p, dst_top)) \
                and _times_named(state, p, full) > named[p]:
            raise InvariantViolation(f"{state.game.player_name(p)} is told the move '{full}' although they "
                                     f"saw {state.game.card_name(card)} neither before nor after it")


def _times_named(state, player: int, full: str) -> int:
    return sum(1 for text in state.observation(player)["moves"] if text == full or text.startswith(full + " ("))


def check_determinism(run: Playout, state):
    """The same seed and the same moves give the same game."""
    again = run.game.new_state(players=run.players, seed=run.seed, options=run.options)
    for a in run.moves:
        again.apply_action(a)
    if again.digest() != state.digest() or again.history != state.history:
        raise InvariantViolation("replaying the same seed and moves reached a different state")


GENERIC = (check_cards, check_decision)


REPLAY_EVERY = 4  # the checks every `every` moves replay the game one time in this many (play)


def play(run: Playout, choose, max_moves: int, every: int = 7, rng: random.Random | None = None,
         bots: bool = False, thorough: bool = False):
    """Play a game choosing moves with `choose(legal) -> index`, checking every invariant.

    Cheap invariants are checked at every decision, and that nothing a seat is shown depends on
    what it cannot see (leaks.py): for the seat to move and one other (each in turn). Every `every`
    moves, the costlier ones: refusals, clones, and the leak check for every seat and the
    spectators, with (`bots`)
    the greedy bot's choice in both; every `every` * REPLAY_EVERY moves, one seat (in turn) in a
    world that replays the game (its variables and its log worked out again: a value said or kept
    from a hidden card stays in the log or the variable, so it is found later), and at the end every
    seat so. `thorough`: every check at every decision, for every seat and the spectators, each
    seat's world replaying the game at each (slower by a factor of about the moves a game takes).
    Raises InvariantViolation (or another GamedslError) on a failure.
    """
    rng = rng or random.Random(run.seed)
    if thorough:
        every = 1
    state = run.game.new_state(players=run.players, seed=run.seed, options=run.options, check_invariants=True)
    step = said = 0
    while True:
        for check in GENERIC:
            check(state)
        end = state.is_terminal() or step >= max_moves
        if step % every == 0 or end:
            check_refusal(state, rng)
            check_clone(state)
            first = step // every % state.np
            check_no_leak(state, rng, replay=end or thorough or ({first} if step % (every * REPLAY_EVERY) == 0 else ()),
                          bots=bots, seats=[(first + k) % state.np for k in range(state.np)], since=said)
        else:
            mover = state.current_player()
            others = [p for p in range(state.np) if p != mover]
            check_no_leak(state, rng, seats=([others[step % len(others)]] if others else []) + ([mover] if 0 <= mover < state.np else []),
                          since=said, spectators=False)
        said = len(state.log)
        if end:
            break
        legal = state.game.display_order(state.legal_actions())
        action = legal[choose(len(legal))]
        run.moves.append(action)
        run.texts.append(state.action_to_string(action))
        before = before_move(state, action)
        state.apply_action(action)
        check_move_texts(state, action, before)
        step += 1
    check_determinism(run, state)
    if state.is_terminal():
        if state.moves > state.prog.move_limit:
            raise InvariantViolation(f"the game ran {state.moves} moves, past its limit of {state.prog.move_limit}")
        if any(r not in (None, "win", "lose") for r in state.results) or len(state.returns()) != state.np:
            raise InvariantViolation("the game ended without defined results")
    return state


def minimal_failure(game, players: int, examples: int, max_moves: int, seed: int = 0, options: dict | None = None,
                    bots: bool = False, thorough: bool = False):
    """Search for a game that breaks an invariant; returns (Playout, error) shrunk to a minimal one, or None."""
    from hypothesis import HealthCheck, given, settings, strategies as st
    from hypothesis.errors import HypothesisException

    last: dict = {}

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), print_blob=False)
    @given(st.integers(0, 2**31 - 1), st.data())
    def search(game_seed, data):
        run = Playout(game, players, seed + game_seed, options=dict(options or {}))
        try:
            play(run, lambda n: data.draw(st.integers(0, n - 1)), max_moves, bots=bots, thorough=thorough)
        except GamedslError as exc:
            last["run"], last["error"] = run, exc
            raise

    try:
        search()
    except GamedslError:
        return last["run"], last["error"]
    except HypothesisException as exc:  # pragma: no cover - hypothesis itself failing
        raise GamedslError(f"the property search failed: {exc}") from None
    return None


def failure_scenario(game_path: str, run: Playout, error) -> str:
    """A scenario file that replays a failing game (gamedsl test reproduces the failure)."""
    import json
    lines = ["# gamedsl verify found: " + str(error).replace("\n", "\n# "),
             f"# reproduce with: gamedsl test {game_path} THIS_FILE",
             f"name: {json.dumps('invariant failure found by gamedsl verify')}",
             f"players: {run.players}",
             f"seed: {run.seed}",
             *([f"options: {json.dumps(run.options, ensure_ascii=False)}"] if run.options else []),
             "moves:"]
    lines += [f"  - {json.dumps(t, ensure_ascii=False)}" for t in run.texts]
    if not run.texts:
        lines[-1] = "moves: []"
    return "\n".join(lines) + "\n"
