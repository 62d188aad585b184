"""A game in progress: flat, cheap to clone, driven by the compiled rules of a Program.

The state is plain lists and numbers: the cards of each zone instance (`z`), where each card
lies (`loc`), the variables (`v`), and a stack of frames, each a unit of rules waiting or
running (see language/flow.py and engine/flow.py). Its behaviour comes in parts: the flow
(flow.py), decisions and reaction windows (decisions.py), effects on cards (cards.py), and
the rules' own checks: invariants, the step budget, located errors (checks.py).
"""
from __future__ import annotations

import functools
import hashlib
import random

from ..errors import GameRuntimeError, IllegalAction
from ..language.program import MAX_SEATS
from .cards import Cards
from .checks import Checks
from .decisions import Decisions
from .flow import Flow, action_exit, restore_me, round_exit, round_start, setup_over
from .located import RULE_ERRORS
from .runtime import next_version

TERMINAL = -1


def _rules_run(method):
    """A State method that runs the game's rules: an error of theirs comes out located."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except (GameRuntimeError, *RULE_ERRORS) as exc:
            err = self.located(exc)
            if err is exc:
                raise
            raise err from None
    return wrapper


# where a graded game that is over ranks among moments of the same standing: above every game going on
# (a player who stops when nothing helps gives up nothing), less its moves (sooner is better; State.value)
FINISHED = 1e12


class State(Flow, Decisions, Cards, Checks):
    """One game in progress. Mirrors OpenSpiel's state API."""

    __slots__ = ("game", "prog", "np", "z", "loc", "v", "opt", "stack", "me", "turn", "rng", "rng_owned",
                 "pending", "history", "moves", "round", "results", "grades", "places", "log", "terminal", "limit_hit",
                 "fired", "fixed_random", "fixed_shuffles", "card_moves", "move_hooks", "simple", "steps", "skips",
                 "checking", "move_limit", "known", "told", "out", "alive", "window", "times", "window_start", "late",
                 "last_actor", "hbase", "passes", "ver", "pcache", "pver", "wv", "specs", "watched", "arrivals", "saw", "ranked_by",
                 "shared", "quiet", "seed", "chances", "script", "first", "watcher", "stopped", "facts")

    @_rules_run
    def __init__(self, game, players: int, seed: int, options: dict, fixed_random=(), fixed_shuffles=(),
                 check_invariants: bool = False, track: tuple = (), first_order=None, script=None, watcher=None):
        prog = game.prog
        self.game, self.prog, self.np = game, prog, players
        self.z = [[] for _ in range(prog.zone_count)]
        self.v = [0] * prog.var_count
        self.opt = [options.get(name, default) for name, (default, _) in prog.options.items()]
        self.rng, self.rng_owned = random.Random(seed), True
        self.seed = seed  # (for the log and its replay: whoever knows it knows the whole deal)
        self.me = self.turn = 0
        self.pending = None
        self.history: list[int] = []
        self.hbase = 0  # the move number of history[0] (a copy made without its past starts later)
        # per move: who; where its card was and whether it was on top; where it went, and on top
        self.card_moves: list[tuple[int, int, bool, int, bool]] = []
        self.moves = 0
        self.round = 0
        self.results = [None] * players
        self.grades: list | None = None  # per player, (E, N) of a graded result (`grade P by E of N`), or None
        self.places = [None] * players
        self.ranked_by = None  # once `places` ran: (per player the key that placed them, whether higher is better)
        # what the rules said: (moves made, who, text, round); a text is a view.Said, as every seat reads it
        self.log: list[tuple[int, int, str, int]] = []
        self.quiet = False  # a copy without its past (a bot's trial) does not say anything: nobody reads it
        self.terminal = False
        self.limit_hit = False
        self.fired: list = []
        self.move_hooks = "move" in prog.triggers
        # Zones whose arrivals are counted (only when asked for: `gamedsl simulate --track`):
        # zone instance -> arrivals per card. Counting needs the move hook on every card move.
        self.arrivals = None
        if track:
            self.arrivals = {inst: [0] * prog.card_count() for inst in game.zone_instances(track, players)}
            self.move_hooks = True
        self.steps = self.skips = 0
        self.stopped = False
        self.facts = []  # what `reveal FACT [to P]` told, in order: (its value, to whom or None)
        self.checking = check_invariants  # check the game's declared invariants as it runs
        self.move_limit = prog.move_limit
        self.fixed_random = list(fixed_random)
        self.fixed_shuffles = [None if order is None else list(order) for order in fixed_shuffles]
        # What chance decided, in order: ("shuffle", the new order as places of the old) and ("pick",
        # the place picked): a world replaying this game follows them (engine/history.py). None: a
        # game whose course a replay cannot follow (a scenario's fixed deal or cards set by hand).
        self.chances: list | None = [] if not fixed_random and not fixed_shuffles else None
        self.script = list(script) if script else None  # a replay's chances, followed in place of its own
        self.first = tuple(first_order) if first_order is not None else None  # the first zone at the start
        self.watcher = watcher  # called (state, "shuffle", zone) and (state, "reveal", (card, mask)): history.Sight
        self.stack: list = []
        self.shared = 0  # the frames at the bottom of the stack that a copy shares: copied before a change
        self.known: dict[int, int] = {}  # card -> bit mask of the players shown it (until it moves)
        self.told: dict[tuple, tuple] = {}  # (card, player) -> per attribute, the values it may have for them
        self.out = 0  # bit mask of the players eliminated
        self.alive = tuple(range(players))  # the players still in the game, in seat order
        # A reaction window or race collecting answers: [kind, deferred ("ask"/"race", who, actions)
        # or None, players still to answer, answers [(time, n, player, action, move index)],
        # actions offered, the player in motion, {player: moves worked out when it opened} or None]
        self.window = None
        self.window_start = -1  # the move index where the open window's answers begin
        self.times: dict[int, float] = {}  # move index -> reaction time (seconds), for window answers
        self.late: set[int] = set()  # window answers that came too late to apply
        # In a game whose zones change visibility with the rules: move index -> (who saw the move's
        # card where it came from, who saw it where it went), bit masks taken at the time
        self.saw: dict[int, tuple] = {}
        self.passes = [0] * players  # per player: moments let pass in reaction windows (seen by nobody else)
        self.last_actor = -1  # who made the move that ran last (answers first in the next reaction window)
        # Parameters and patterns are read over and over; their answers hold until what they read
        # changes (a new `ver`; watch.py): `pcache` holds the answers of version `pver`.
        self.ver, self.pcache, self.pver = next_version(), {}, None
        # ...and each watched zone or variable has a version of its own (its last change): a
        # pattern's Spec is kept in `specs` (shared with the copies) for the versions of what it reads
        self.wv, self.specs = [self.ver] * len(prog.watch_items), {}
        self.watched = game.watched  # per zone instance: its index in watch_items plus one, or 0
        self.simple = self.watched is None and not self.move_hooks  # a card's move needs no more than moving it
        first = prog.zones[0].base if prog.zones else 0
        self.loc = [first] * prog.card_count()
        if prog.zones:  # (a world replaying a game starts with its cards relabelled: first_order)
            self.z[first] = list(first_order) if first_order is not None else list(range(prog.card_count()))
        for var in prog.vars:
            value = var.init(self)
            for k in range(MAX_SEATS if var.per_player else len(self.loc) if var.per_card else 1):
                self.v[var.base + k] = value
        if prog.round is not None:
            self.round = 1
            self.stack.append([prog.round.entry, [None] * prog.round.nlocals, [], round_exit, None])
            self.stack.append([round_start, None, [], None, None])  # after setup, before the round
        else:
            self.stack.append([setup_over, None, [], None, None])
        self.stack.append([prog.setup.entry, [None] * prog.setup.nlocals, [], None, None])
        self.run()

    # ---- the run loop
    def run(self):
        """Run the rules until a player must decide or the game is over; an error of a rule comes
        out located at its line."""
        try:
            self._run_frames()
        except (GameRuntimeError, *RULE_ERRORS) as exc:
            raise self.located(exc) from None
        except IllegalAction as exc:  # a rule asked for something impossible
            raise self.located(GameRuntimeError(str(exc))) from None

    def _run_frames(self, fresh: bool = True):
        """Run the frames on the stack until a decision or the end; `fresh`: a new stretch of work
        between two decisions, whose steps are counted from 0 (not when apply_action ran one block)."""
        stack = self.stack
        if fresh:
            self.steps = self.skips = 0
        while stack:
            fr = stack[-1]
            if self.shared and len(stack) <= self.shared:  # shared with a copy: it becomes our own first
                fr = self.own_top()
            block = fr[0](self, fr)
            while block is not None:
                block = block(self, fr)
            if self.pending is not None or self.terminal:
                return
        if not self.terminal and self.pending is None:
            self.end_game()
            self._run_frames()

    # ---- moves
    def current_player(self) -> int:
        """The seat that must decide now, or TERMINAL (-1) when the game is over."""
        return self.pending[0] if self.pending is not None else TERMINAL

    def legal_actions(self) -> list[int]:
        return list(self.pending[1]) if self.pending is not None else []

    def apply_action(self, action: int, time: float | None = None):
        """Play a move for the current player; an illegal one raises IllegalAction and changes nothing.

        In a reaction window or a race, `time` is how long the player took to answer, in seconds
        (a person's measured reaction); without it, a bot's reaction time is drawn from the
        game's random generator. A time is drawn either way, so a replay that gives the
        recorded times follows the same random course."""
        pending = self.pending
        if pending is None or action not in pending[1]:
            raise IllegalAction(self.explain(action))
        player = pending[0]
        self.pending = None
        self.history.append(action)
        self.moves += 1
        ran = False  # the frames ran on already
        try:
            if self.window is not None:
                self.answer(player, action, time)
            else:
                act, arg = self.game.decoded[action]
                if act.spoken:  # its speech triggers come first
                    self.start_action(player, action, self.moves - 1)
                else:  # start_action, inlined: every move goes this way
                    env = [None] * act.nlocals
                    if act.domain is not None:
                        if act.params:  # several choices
                            env[:len(act.params)] = self.game.args[action]
                            for k, pick in act.picks:  # several cards at once: its shape's cards
                                env[k] = pick(self, env)
                        else:
                            env[0] = arg
                    prev = self.me
                    self.me = self.last_actor = player
                    # What others saw of the move: always the newest entry of card_moves (every
                    # move adds exactly one), where its card went noted once its rules are done.
                    card, z = (arg if act.param_type == "card" else None), self.z
                    src, on_top = (self.loc[card], z[self.loc[card]][-1] == card) if card is not None else (-1, False)
                    changing = self.game.changing
                    if changing is not None and card is not None and changing[src]:
                        self.saw[self.moves - 1] = (self.game.seen_by(self, src, on_top), None)
                    if act.run is not None:  # rules that never wait run now
                        stack = self.stack
                        top = stack[-1] if stack else None
                        act.run(self, env)
                        self.me = prev
                        dst = self.loc[card] if card is not None else -1
                        self.card_moves.append((player, src, on_top, dst, card is not None and z[dst][-1] == card))
                        if card is not None:
                            if changing is not None or card in self.known:
                                self.saw_landing(self.moves - 1, card)
                            if dst != src and self.game.veiling[dst]:
                                self.placed(player, card, src, on_top)
                        if self.pending is None and not self.shared and stack and stack[-1] is top:
                            # the frame that asked goes on at once: _run_frames' first turn, inlined
                            fr = top
                            self.steps = self.skips = 0
                            block = fr[0](self, fr)
                            while block is not None:
                                block = block(self, fr)
                            if self.pending is None and not self.terminal:
                                self._run_frames(False)
                            ran = True
                    else:  # rules that may wait: a frame, ended by done_move
                        self.card_moves.append((player, src, on_top, src, False))
                        self.stack.append([act.entry, env, [], action_exit, (prev, self.moves - 1, card)])
            if self.pending is None and not ran:
                self._run_frames()
        except (GameRuntimeError, *RULE_ERRORS) as exc:
            raise self.located(exc, by=player) from None
        except IllegalAction as exc:  # a rule asked for something impossible
            raise self.located(GameRuntimeError(str(exc)), by=player) from None
        if self.checking:
            self.check_invariants("move")

    def start_action(self, player: int, action: int, index: int) -> bool:
        """Run a move's rules: at once when they never wait, else as a frame on the stack (its speech
        triggers after them). True if frames were pushed (they run next)."""
        act, arg = self.game.decoded[action]
        stack = self.stack
        before = len(stack)
        if act.spoken:
            for t in self.prog.triggers.get("speech", ()):
                env = [None] * t.nlocals
                env[0] = player
                if t.cond is None or t.cond(self, env):
                    stack.append([t.entry, env, [], restore_me, self.me])
        env = [None] * act.nlocals
        if act.domain is not None:
            if act.params:  # several choices
                env[:len(act.params)] = self.game.args[action]
                for k, pick in act.picks:  # several cards at once: its shape's cards
                    env[k] = pick(self, env)
            else:
                env[0] = arg
        if act.param_type == "card":
            card = arg
            src = self.loc[card]
            entry = (player, src, self.z[src][-1] == card, src, False)
            if self.game.changing is not None and self.game.changing[src]:
                self.saw[index] = (self.game.seen_by(self, src, entry[2]), None)
        else:
            card, entry = None, (player, -1, False, -1, False)
        k, moves = index - self.hbase, self.card_moves
        if k == len(moves):
            moves.append(entry)
        elif k >= 0:
            moves[k] = entry
        prev = self.me
        self.me = self.last_actor = player
        if act.run is not None:  # a move that never waits runs now
            act.run(self, env)
            self.me = prev
            if card is not None:
                self.note_card_move(index, card)
        else:
            stack.append([act.entry, env, [], action_exit, (prev, index, card)])
        return len(stack) > before

    def note_card_move(self, index: int, card: int):
        """Where a move's card went, for what others saw of the move."""
        k = index - self.hbase
        if k < 0:
            return  # a copy made without its past (a bot's trial) does not keep this record
        player, src, src_top, _, _ = self.card_moves[k]
        dst = self.loc[card]
        self.card_moves[k] = (player, src, src_top, dst, self.z[dst][-1] == card)
        if self.game.changing is not None or card in self.known:
            self.saw_landing(index, card)
        if dst != src and self.game.veiling[dst]:
            self.placed(player, card, src, src_top)

    def placed(self, player: int, card: int, src: int, src_top: bool):
        """A player put the card of their move where they cannot see it (a hand put aside, a face-down
        pile): they saw it leave, so they know where it lies, until it moves (as `reveal c to me`)."""
        if player >= 0 and (self.game.sees(self, src, player, src_top) or self.knows(player, card)) and \
                not self.sees_card(player, card):
            self.known[card] = self.known.get(card, 0) | 1 << player

    def saw_landing(self, index: int, card: int):
        """Who saw a move's card where it went, now that its rules are done, or was shown it there:
        noted where reading it later could differ (a zone's visibility changed by the rules, a
        card shown only until it moves)."""
        k = index - self.hbase
        if k < 0:
            return
        _, src, src_top, dst, dst_top = self.card_moves[k]
        saw = self.saw.get(index)
        known = self.known.get(card, 0)
        changing = self.game.changing
        if saw is None and not known and (changing is None or not changing[dst]):
            return  # where it came from and where it went show as they always do: read them later
        first = saw[0] if saw is not None else self.game.seen_by(self, src, src_top)
        self.saw[index] = (first, self.game.seen_by(self, dst, dst_top) | known)

    def action_to_string(self, action: int) -> str:
        return self.game.action_to_string(action)

    @property
    def round_number(self) -> int:
        """How many rounds (deals) have started."""
        return self.round

    def is_terminal(self) -> bool:
        return self.terminal

    def returns(self) -> list[float]:
        """Per player: +1 for a win, -1 for a loss, a graded result's share from -1 to +1, 0 otherwise
        (and while the game runs, and for all but a graded result at the move limit)."""
        if not self.terminal or (self.limit_hit and self.grades is None):
            return [0.0] * self.np
        out = [1.0 if r == "win" else -1.0 if r == "lose" else 0.0 for r in self.results] if not self.limit_hit \
            else [0.0] * self.np  # at the limit only a graded result stands: read as the game lies
        if self.grades is not None:  # a graded result: from -1 (none of it) to +1 (all of it)
            for p, g in enumerate(self.grades):
                if g is not None:
                    out[p] = 2.0 * g[0] / g[1] - 1.0
        return out

    def grade(self, player: int, score, out_of):
        """`grade P by E of N`: P's result is E of N (its return from -1 for 0 to +1 for N); all of it
        is a win, none of it a loss."""
        if not isinstance(out_of, int) or out_of <= 0:
            raise GameRuntimeError(f"a grade is out of a number above 0, not {out_of}")
        score = max(0, min(score, out_of))
        if self.grades is None:
            self.grades = [None] * self.np
        self.grades[player] = (score, out_of)
        self.results[player] = "win" if score == out_of else "lose" if score == 0 else None

    def set_places(self, order: tuple, key, descending: bool):
        """Places from 1, best first; players with equal keys share a place (a key may be a tuple:
        `by E then F`, compared item by item)."""
        ranked = sorted(order, key=key, reverse=descending)
        keys = [key(p) for p in ranked]
        by = [None] * self.np
        for p, k in zip(ranked, keys):
            by[p] = k
        self.ranked_by = (by, descending)
        for i, p in enumerate(ranked):
            self.places[p] = 1 + sum(1 for k in keys[:i] if k != keys[i])

    def say(self, message, values: tuple = ()):
        """`say`: message number `message` of the Program with its values (or a text as it is)."""
        text = self.game.sayers[message](self, values) if message.__class__ is int else message
        self.log.append((self.moves, self.me, text, self.round))

    # ---- copies and readings
    def clone(self, past: bool = True) -> "State":
        """An independent copy: changing one never changes the other.

        With past=False the copy leaves out the record of past moves (history, what each move
        showed, reaction times) and is quiet: what its rules say from then on is not worked out
        nor logged (its `say` statements are skipped). A bot trying moves needs none of it, and
        copying it costs more as a game grows longer. The random generator is shared until one
        of them draws."""
        other = State.__new__(State)
        other.game, other.prog, other.np = self.game, self.prog, self.np
        other.z = z = self.z[:]  # the instances no seat of this game uses stay empty: shared
        for k in self.game.live_zones[self.np]:
            z[k] = z[k][:]
        other.loc = self.loc[:]
        other.v = self.v[:]
        other.opt = self.opt
        # The frames are shared, each copied by the first of the two to change it (own_top): a copy
        # costs the same however deep the stack of waiting rules has grown.
        other.stack = self.stack[:]
        other.shared = self.shared = len(self.stack)
        other.me, other.turn = self.me, self.turn
        other.rng, other.rng_owned = self.rng, False
        self.rng_owned = False
        other.seed = self.seed
        other.chances = self.chances[:] if past and self.chances is not None else None
        other.script, other.first, other.watcher = None, self.first, None
        other.pending = self.pending
        if past:
            other.history, other.card_moves, other.hbase = self.history[:], self.card_moves[:], self.hbase
            other.log, other.times, other.late = self.log[:], dict(self.times), set(self.late)
            other.saw = dict(self.saw) if self.saw else {}
        else:
            other.history, other.card_moves, other.hbase = [], [], self.moves
            other.log, other.times, other.late = self.log[-8:], {}, set()
            other.saw = {}
        other.moves, other.round = self.moves, self.round
        other.quiet = self.quiet or not past
        other.results, other.places, other.ranked_by = self.results[:], self.places[:], self.ranked_by
        other.grades = self.grades[:] if self.grades is not None else None
        other.terminal, other.limit_hit = self.terminal, self.limit_hit
        other.fired = []
        other.move_hooks, other.steps, other.skips = "move" in self.prog.triggers, 0, 0
        other.stopped = False  # (set by the move "done", read at once: never so at a decision)
        other.facts = self.facts[:] if self.facts else []
        other.arrivals = None  # a copy's moves (a bot looking ahead) are not the game's
        other.checking, other.move_limit = self.checking, self.move_limit
        other.fixed_random = self.fixed_random[:]
        other.fixed_shuffles = [None if o is None else o[:] for o in self.fixed_shuffles]
        other.known = dict(self.known) if self.known else {}
        other.told = dict(self.told) if self.told else {}
        other.out, other.alive = self.out, self.alive
        w = self.window
        other.window = None if w is None else [w[0], w[1], w[2][:], w[3][:], w[4], w[5], None]
        other.window_start = self.window_start
        other.last_actor = self.last_actor
        other.passes = self.passes[:]
        other.ver, other.pcache, other.pver, other.watched = self.ver, self.pcache, self.pver, self.watched
        other.wv, other.specs = self.wv[:], self.specs
        other.simple = other.watched is None and not other.move_hooks
        return other

    def own_rng(self) -> random.Random:
        """The random generator, this state's own (a copy shares its original's until one draws)."""
        if not self.rng_owned:
            rng = random.Random.__new__(random.Random)  # not seeded: its state is set at once
            rng.setstate(self.rng.getstate())
            self.rng, self.rng_owned = rng, True
        return self.rng

    def own(self, i: int) -> list:
        """Frame `i` of the stack, to be changed: copied first if a copy of this state shares it."""
        fr = self.stack[i]
        if i < self.shared:
            fr = self.stack[i] = [fr[0], fr[1][:] if fr[1] is not None else None, fr[2][:], fr[3], fr[4]]
        return fr

    def own_top(self) -> list:
        """The top frame, to be changed (see own); the frames below it may still be shared."""
        fr = self.own(len(self.stack) - 1)
        self.shared = len(self.stack) - 1
        return fr

    def reseed(self, seed: int):
        """A fresh random future: later shuffles and random picks drawn from this seed (which is then
        the state's: a world dealt for a bot keeps nothing of the real game's seed)."""
        self.rng, self.rng_owned = random.Random(seed), True
        self.seed = seed

    @_rules_run
    def evaluate(self, player: int, ended: bool = True):
        """The game's heuristic for one player (its returns once the game is over, unless `ended` is
        False: the heuristic still, in its own units; 0 without one)."""
        if self.terminal and ended:
            return 1000.0 * self.returns()[player]
        fn = self.prog.heuristic
        if fn is None:
            return 0.0
        prev, self.me = self.me, player
        try:
            return fn(self, None)
        finally:
            self.me = prev

    def value(self, player: int) -> tuple[float, float]:
        """How good this moment is for a player, to compare with others whatever the heuristic's
        scale (a bot's measure): (the player's return if the game is over, else 0; the heuristic).
        A game won ranks above every unfinished one and a game lost below, however large the
        heuristic's numbers; a draw, and every unfinished game, by the heuristic. In a game graded by
        a score (`grade`), an unfinished game ranks first by its grade if it ended now, and a game
        over above every game going on at the same grade (nothing is lost by stopping)."""
        if self.terminal:
            r = self.returns()[player]
            if self.grades is not None:  # a graded game over ranks above one going on at the same standing,
                return r, FINISHED - self.moves  # and sooner above later
            return (r, 0.0) if r else (0.0, self.evaluate(player, ended=False))
        if self.prog.graded:  # a game graded by a score: first its grade if it ended now
            return self.standing(player), self.evaluate(player)
        return 0.0, self.evaluate(player)

    def standing(self, player: int) -> float:
        """A player's return if the game ended now (its outcome run on a copy; 0 where it cannot be)."""
        other = self.clone(past=False)
        other.checking = False
        try:
            other.end_game()
            other._run_frames()
        except GameRuntimeError:
            return 0.0
        return other.returns()[player] if other.terminal else 0.0

    def digest(self) -> str:
        """A fingerprint of everything in the state, to check that two runs reached the same place."""
        text = repr((self.z, self.v, sorted(self.known.items()), self.out, self._window_key(),
                     sorted(self.times.items()), self.round, self.moves, self.results, self.places, self.terminal,
                     self.pending[:2] if self.pending else None, self.rng.getstate()))
        if self.told:
            text += repr(sorted(self.told.items()))
        if self.grades is not None:  # (only then: the digests of logs written before grades stay the same)
            text += repr(self.grades)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def _window_key(self):
        """The open window, with its actions by name (the same in every run)."""
        w = self.window
        if w is None:
            return None
        deferred = w[1] and (w[1][0], w[1][1], tuple(a.name for a in w[1][2]))
        return [w[0], deferred, w[2], w[3], tuple(a.name for a in w[4]), w[5]]

    @_rules_run
    def observation(self, player: int) -> dict:
        """Exactly what one player may see now."""
        return self.game.observe(self, player)

    @_rules_run
    def refresh(self, window: bool = True):
        """Recompute the pending decision after a scenario changed the state by hand (see Decisions)."""
        self._refresh(window)
