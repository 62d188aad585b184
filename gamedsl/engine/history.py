"""Worlds made by replaying the game: what a seat never saw drawn again, every move made again, so
every variable the rules computed from the cards is computed again from the world's own cards.

A world dealt from the present (knowledge.Redealer) trades the hidden cards among their places and
keeps everything else as it is: right when nothing but the cards holds what a seat may not know.
When a variable does (the check finds it: Program.secret_vars: a copy of a hidden card's value, a
mark on it, a bid kept face down), such a world would keep its real value, telling the seat what it
should not know and contradicting the cards the world dealt. So the world is made as the game was.

`Sight` replays the game as it goes (once per move, followed on from moment to moment) and notes,
for one seat, when it last saw each card, when each shuffle happened and what it put where, and
where each move's card lay when it was played. A world then replays the game again with each
shuffle drawn anew (`Shuffle`): the cards the seat has seen since lie where they lay (they are what
it saw), the others are dealt at random to the other places; chance otherwise follows the game's
draws, and every move is made again: a move's card is the same card if the seat saw it, else
whatever card lies in that move's card's place in the world; a number or value another seat chose
face down is drawn again among that seat's legal ones; who lets a moment pass in a window follows
the world's cards. A replay that leaves the game's course (a move the world does not allow, a seen
card the world holds elsewhere, another view for the seat at the end) is not a world the seat
could be in: another is tried.

What it does not follow: a card the seat saw after a later shuffle keeps its place in the earlier
ones too (its earlier course is taken as it was), and the order of `all_cards` follows the cards'
numbers.
"""
from __future__ import annotations

import random
import threading

from ..errors import GameRuntimeError, GamedslError
from ..language import types as T
from .chance import shuffle
from .told import constrained, fits


def replayable(state) -> bool:
    """Whether a state's game can be replayed from its start: its whole past is kept, and nothing
    changed it by hand (a scenario's deal, cards set in a test)."""
    return state.chances is not None and state.hbase == 0 and state.seed is not None


class Sight:
    """What one seat saw of a game, worked out by replaying it as it was. It follows the game on:
    `sight(state, player)` extends the one made at an earlier moment of the same game by the moves
    made since (so a bot or verify replays each move once, not once per moment)."""

    def __init__(self, state, player: int):
        game, prog = state.game, state.prog
        self.state, self.player = state, player
        # a clock that ticks at each thing the replay notes (a shuffle, a reveal, a look after a move),
        # so what happened within one move keeps its order (a hand shown, then gathered and shuffled)
        self.clock = 0
        self.last_seen = [-1] * prog.card_count()  # per card: the clock when the seat last saw it
        self.shuffles: list = []  # per shuffle: (the clock then, its zone, its cards after it, by place)
        # per move: where its card lay ((zone, index)), or None if it names no card or one the seat saw
        # (as it was made, or by its text): the world's move is then the same card's
        self.places: list = []
        self.ok = False
        self.said = 0  # the lines of the replay's log already read
        self.seed = state.seed
        self.given, self.chances = len(state.chances), state.chances[:]  # the chances given to the replay to follow
        try:
            self.replay = game.new_state(players=state.np, seed=state.seed, first_order=state.first,
                                         options=dict(zip(prog.options, state.opt)), script=state.chances,
                                         watcher=self._shuffled)
            self._saw(self.replay)
        except GamedslError:
            self.replay = None
            return
        self.at(state)

    def follows(self, state) -> bool:
        """Whether `state` is this game at this moment or a later one (its moves and chances go on from these)."""
        mine, n = self.replay, len(self.places)
        return (mine is not None and state.game is mine.game and state.seed == self.seed
                and state.np == mine.np and state.first == mine.first and state.opt == mine.opt
                and state.chances is not None and state.moves >= n and state.history[:n] == mine.history[:n]
                and state.chances[:self.given] == self.chances)

    def at(self, state):
        """Replay the moves made since up to `state` (which follows this game: Sight.follows)."""
        replay, game = self.replay, state.game
        used = self.given - len(replay.script or ())
        replay.script = state.chances[used:]
        self.state, self.given, self.chances = state, len(state.chances), state.chances[:]
        player = self.player
        try:
            for k in range(len(self.places), state.moves):
                action = state.history[k]
                act, arg = game.decoded[action]
                place = None
                if act.param_type == T.CARD:
                    zone = replay.loc[arg]
                    if arg not in game.cards_seen(replay, zone, player):
                        place = (zone, replay.z[zone].index(arg))
                replay.apply_action(action, state.times.get(k))
                self._saw(replay)
                if place is not None and game.move_text(replay, k, player) == game.action_to_string(action):
                    self.last_seen[arg] = self.clock  # the move named its card to the seat
                    place = None
                self.places.append(place)
        except GamedslError:
            self.replay, self.ok = None, False
            return
        self.ok = replay.z == state.z and replay.v == state.v  # the game as it was: else not to be replayed

    def _shuffled(self, state, event: str, detail):
        """What the replay's State tells of a shuffle (its zone) or a reveal (the card, to whom)."""
        self.clock += 1
        if event == "shuffle":
            self.shuffles.append((self.clock, detail, list(state.z[detail])))
        elif detail[1] >> self.player & 1:  # shown to the seat, if only for a moment
            self.last_seen[detail[0]] = self.clock

    def _saw(self, replay):
        """Note the cards the seat sees now, and those named to it in the lines said since."""
        self.clock += 1
        moves, last, bit = self.clock, self.last_seen, 1 << self.player
        for inst in replay.game.live_zones[replay.np]:
            for c in replay.game.cards_seen(replay, inst, self.player, placed=True):
                last[c] = moves
        for entry in replay.log[self.said:]:
            for part in getattr(entry[2], "parts", None) or ():
                if part.__class__ is tuple and part[1] & bit:
                    last[part[0]] = moves
        self.said = len(replay.log)

    def script(self, rng: random.Random) -> list:
        """The game's chances for a world: each shuffle drawn anew (history.Shuffle), the other
        chances as they fell."""
        out, shuffles = [], iter(self.shuffles)
        for what, outcome in self.state.chances:
            if what == "shuffle":
                moves, _, cards = next(shuffles)
                outcome = Shuffle(self, moves, cards, random.Random(rng.getrandbits(64)))
            out.append((what, outcome))
        return out


class Shuffle:
    """One shuffle of a world, drawn when the world's cards are known (State.shuffle calls it with
    them): each card the seat has seen since lies where it lay in the game (it is what the seat saw);
    the others are dealt at random to the other places, each to a place whose card in the game had
    the same back and fits what the seat was told of it (and still is: it has not moved since: the
    world's card there follows the real one's course, so it is told the same)."""

    __slots__ = ("sight", "clock", "cards", "rng")

    def __init__(self, sight: Sight, clock: int, cards: list, rng: random.Random):
        self.sight, self.clock, self.cards, self.rng = sight, clock, cards, rng

    def __call__(self, before: list) -> list:
        """The places after the shuffle (index k: the index in `before` of the card that goes to place k)."""
        sight, real = self.sight, self.cards
        seen = sight.last_seen
        at = {c: k for k, c in enumerate(before)}
        order = [-1] * len(real)
        for i, c in enumerate(real):
            if seen[c] >= self.clock:
                k = at.pop(c, None)
                if k is None:
                    raise GameRuntimeError("a replay of the game left its course")  # the world holds it elsewhere
                order[i] = k
        keys = sight.state.game.back_keys
        places: dict = {}
        for i, c in enumerate(real):
            if order[i] < 0:
                places.setdefault(keys[c] if keys else (), []).append(i)
        left: dict = {}
        for c, k in at.items():
            left.setdefault(keys[c] if keys else (), []).append(c)
        told, player, tables = sight.state.told, sight.player, sight.state.game.attr_tables
        for key, group in places.items():
            cards = sorted(left.get(key, ()))
            if len(cards) != len(group):
                raise GameRuntimeError("a replay of the game left its course")
            allowed = {}
            for j, i in enumerate(group):
                masks = told.get((real[i], player)) if told else None
                if masks is not None:
                    allowed[j] = [n for n, c in enumerate(cards) if fits(c, masks, tables)]
            if allowed:
                if not all(allowed.values()):
                    raise GameRuntimeError("a replay of the game left its course")
                try:
                    dealt = constrained(cards, allowed, self.rng)
                except ValueError:  # no filling of the places fits
                    raise GameRuntimeError("a replay of the game left its course") from None
            else:
                dealt = cards[:]
                shuffle(self.rng, dealt)
            for i, c in zip(group, dealt):
                order[i] = at[c]
        return order


_cache = threading.local()  # per thread (a server's tables play in threads): the Sights made lately
SIGHTS = 16  # kept at most, per thread


def sight(state, player: int) -> Sight:
    """The seat's Sight of the game at `state`: one made at an earlier moment of it, followed on to
    this one, or a new one."""
    sights = getattr(_cache, "sights", None)
    if sights is None:
        sights = _cache.sights = []
    for k, old in enumerate(sights):
        if old.player == player and old.follows(state):
            old.at(state)
            if old.ok:
                sights.append(sights.pop(k))
                return old
            del sights[k]
            break
    new = Sight(state, player)
    if new.ok:
        sights.append(new)
        del sights[:-SIGHTS]
    return new


def replayed(sight: Sight, rng: random.Random):
    """A world replaying the game seen by `sight`'s seat, up to the same moment, or None if the replay
    leaves the game's course. Others' answers in a window still open are not replayed (the Redealer
    asks them again, after the seat)."""
    state, player = sight.state, sight.player
    game, prog = state.game, state.prog
    no_reaction = prog.no_reaction.first_id if prog.no_reaction is not None else -1
    settled = state.window_start if state.window is not None else state.moves
    script = sight.script(rng)
    try:
        world = game.new_state(players=state.np, seed=rng.getrandbits(64), options=dict(zip(prog.options, state.opt)),
                               first_order=state.first, script=script)
        for k in range(state.moves):
            action, mover = state.history[k], state.card_moves[k][0]
            if k >= settled and mover != player:
                continue  # an answer in the window still open: not the seat's to know
            while world.window is not None and not world.terminal and world.current_player() != mover:
                if not _let_pass(world):  # asked in the world, not in the game: lets it pass
                    return None
            if world.terminal:
                return None
            if action == no_reaction and (world.window is None or world.current_player() != mover):
                continue  # asked in the game, not in the world (its cards allow no reaction there)
            if world.current_player() != mover:
                return None  # the world's course left the game's: another player is asked (a choice skipped)
            act, arg = game.decoded[action]
            if mover != player and act.name in prog.hidden_params:
                choices = [a for a in world.pending[1] if game.decoded[a][0] is act]
                if not choices:
                    return None
                action = choices[rng.randrange(len(choices))]  # a choice the seat never saw: the world's own
            elif sight.places[k] is not None:  # the card in that place in the world
                zone, index = sight.places[k]
                if index >= len(world.z[zone]):
                    return None
                # (a move of several choices: its card's part of the id changed, the others' kept)
                stride = next(st for _, typ, st, *_ in act.params if typ == T.CARD) if act.params else 1
                action += (world.z[zone][index] - arg) * stride
            if world.pending is None or action not in world.pending[1]:
                return None
            world.apply_action(action, state.times.get(k))
    except GamedslError:
        return None  # the replay met a rule the world's cards do not allow (or another chance)
    world.script = None  # (world.chances: its own draws, by places: a world replays as its game does)
    return world


def _let_pass(world) -> bool:
    """The player asked now in the world's window lets the moment pass (or gives a race's default)."""
    answer = world.default_answer()
    if answer is None:
        return False
    world.apply_action(answer)
    return True
