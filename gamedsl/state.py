"""A game in progress: flat, cheap to clone, driven by the compiled rules of a Program."""
from __future__ import annotations

import functools
import hashlib
import random

from . import ops
from .codegen import RULE_ERRORS, rule_failure
from .errors import GameRuntimeError, IllegalAction, InvariantViolation
from .program import MAX_SEATS

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
_STEP_LIMIT = ops.STEP_LIMIT
_LOOPING = {"loop": "this loop never ends", "round": "the round ends and begins again without asking anyone",
            "trigger": "this trigger keeps firing: triggers set each other off"}


class State:
    """One game in progress. Mirrors OpenSpiel's state API."""

    __slots__ = ("game", "prog", "np", "z", "loc", "v", "opt", "stack", "me", "turn", "rng", "pending",
                 "history", "moves", "round", "results", "places", "log", "terminal", "limit_hit",
                 "fired", "fixed_random", "fixed_shuffles", "card_moves", "move_hooks", "turn_hooks",
                 "steps", "skips", "checking", "move_limit", "known", "out", "alive", "window", "times", "window_start", "late",
                 "last_actor", "hbase", "passes", "ver", "spec_cache", "spec_ver", "arrivals")

    @_rules_run
    def __init__(self, game, players: int, seed: int, options: dict, fixed_random=(), fixed_shuffles=(),
                 check_invariants: bool = False, track: tuple = ()):
        prog = game.prog
        self.game, self.prog, self.np = game, prog, players
        self.z = [[] for _ in range(prog.zone_count)]
        self.v = [0] * prog.var_count
        self.opt = [options.get(name, default) for name, (default, _) in prog.options.items()]
        self.rng = random.Random(seed)
        self.me = self.turn = 0
        self.pending = None
        self.history: list[int] = []
        self.hbase = 0  # the move number of history[0] (a copy made without its past starts later)
        # per move: who; where its card was and whether it was on top; where it went, and on top
        self.card_moves: list[tuple[int, int, bool, int, bool]] = []
        self.moves = 0
        self.round = 0
        self.results = [None] * players
        self.places = [None] * players
        self.log: list[tuple[int, int, str, int]] = []  # what the rules said: (moves made, who, text, round)
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
        self.turn_hooks = ("turn start" in prog.triggers or "turn start" in prog.ordered,
                           "turn end" in prog.triggers or "turn end" in prog.ordered)
        self.steps = self.skips = 0
        self.checking = check_invariants  # check the game's declared invariants as it runs
        self.move_limit = prog.move_limit
        self.fixed_random = list(fixed_random)
        self.fixed_shuffles = [None if order is None else list(order) for order in fixed_shuffles]
        self.stack: list = []
        self.known: dict[int, int] = {}  # card -> bit mask of the players shown it (until it moves)
        self.out = 0  # bit mask of the players eliminated
        self.alive = tuple(range(players))  # the players still in the game, in seat order
        # A reaction window or race collecting answers: [kind, deferred (player, actions) or None,
        # players still to answer, answers [(time, n, player, action, move index)], actions offered]
        self.window = None
        self.window_start = -1  # the move index where the open window's answers begin
        self.times: dict[int, float] = {}  # move index -> reaction time (seconds), for window answers
        self.late: set[int] = set()  # window answers that came too late to apply
        self.passes = [0] * players  # per player: moments let pass in reaction windows (seen by nobody else)
        self.last_actor = -1  # who made the move that ran last (answers first in the next reaction window)
        # Pattern questions read many parameters; their answers hold until the state changes:
        # `ver` counts changes (moves, shuffles, assignments), `spec_cache` holds answers of `spec_ver`.
        self.ver, self.spec_cache, self.spec_ver = 0, {}, -1
        first = prog.zones[0].base if prog.zones else 0
        self.loc = [first] * prog.card_count()
        if prog.zones:
            self.z[first] = list(range(prog.card_count()))
        for var in prog.vars:
            value = var.init(self)
            for k in range(MAX_SEATS if var.per_player else len(self.loc) if var.per_card else 1):
                self.v[var.base + k] = value
        if prog.round is not None:
            self.round = 1
            self.stack.append([prog.round, 0, [None] * prog.round_locals, ops.round_exit, None])
            self.stack.append([(), 0, None, ops.round_start, None])  # after setup, before the round
        else:
            self.stack.append([(), 0, None, self._finish_exit_setup, None])
        self.stack.append([prog.setup, 0, [None] * prog.setup_locals, None, None])
        self.run()

    @staticmethod
    def _finish_exit_setup(s, fr):
        s.end_game()

    # ---- the run loop
    def run(self):
        """Run the rules until a player must decide or the game is over; an error of a rule comes
        out located at its line (or, found by nothing else, at the statement that was running)."""
        try:
            self._run_ops()
        except (GameRuntimeError, *RULE_ERRORS) as exc:
            raise self.located(exc, self.running_span()) from None
        except IllegalAction as exc:  # a rule asked for something impossible
            raise self.located(GameRuntimeError(str(exc)), self.running_span()) from None

    def running_span(self):
        """The span of the statement running now, if it is known (the op's, before it ran)."""
        if self.stack:
            fr = self.stack[-1]
            if 0 < fr[1] <= len(fr[0]):
                return getattr(fr[0][fr[1] - 1], "span", None)
        return None

    def _run_ops(self):
        stack = self.stack
        self.steps = self.skips = 0
        while stack:
            fr = stack[-1]
            code = fr[0]
            pc = fr[1]
            if pc < len(code):
                fr[1] = pc + 1
                code[pc](self, fr)
                if self.pending is not None:
                    return
                if self.fired:
                    fired, self.fired = self.fired, []
                    self.count_step(ops.TRIGGER_STEPS * len(fired))  # triggers firing triggers must end
                    stack.extend(reversed(fired))
                elif fr[1] == len(code) and stack[-1] is fr:
                    stack.pop()  # the block is done: leave it now rather than on the next pass
                    if fr[3] is not None:
                        fr[3](self, fr)
                        if self.terminal:
                            return
            else:
                stack.pop()
                if fr[3] is not None:
                    fr[3](self, fr)
                    if self.terminal:
                        return
        if not self.terminal and self.pending is None:
            self.end_game()
            self._run_ops()

    def check_invariants(self, when: str):
        """Raise InvariantViolation if one of the game's invariants for this moment does not hold."""
        if when == "game end" and self.limit_hit:
            return  # a game stopped by its move limit has no regular end to check
        for name, fn, span in self.prog.invariants.get(when, ()):
            try:
                ok = fn(self, None)
            except (GameRuntimeError, TypeError, IndexError, ValueError, KeyError) as exc:
                raise InvariantViolation(f"{self.prog.filename}:{span.line}:{span.column}: invariant "
                                         f"'{name}' cannot be evaluated: {exc}") from None
            if not ok:
                raise InvariantViolation(f"{self.prog.filename}:{span.line}:{span.column}: invariant "
                                         f"'{name}' does not hold (move {self.moves}, round {self.round})")

    def count_step(self, weight: int = 1, in_code: bool = False, block=None):
        """Count the work done since the last decision (see ops.STEP_LIMIT): rules that never ask
        for a move are stopped, at the loop, round or trigger that keeps running (`in_code`: a
        loop of generated code, found by the error's traceback; `block`: the ops running, when
        they are not on the stack)."""
        self.steps += weight
        if self.steps > _STEP_LIMIT:
            if in_code:
                raise GameRuntimeError(f"the rules ran {_STEP_LIMIT:,} steps without asking for a move: "
                                       f"{_LOOPING['loop']}")
            span, kind = None, "loop"
            for code in (block, *(fr[0] for fr in reversed(self.stack))):  # the innermost loop, round...
                found = self.prog.block_spans.get(code)
                if found is not None:
                    span, kind = found
                    break
            hint = None
            if self.skips:
                hint = (f"a decision nobody can make is skipped: one was skipped {self.skips:,} times since the "
                        "last move; is a condition of its moves wrong?")
            err = GameRuntimeError(f"the rules ran {_STEP_LIMIT:,} steps without asking for a move: "
                                   f"{_LOOPING[kind]}", hint)
            if span is not None:  # a loop running as generated code is found by the traceback instead
                err.located(self.prog.filename, self.game.text, span, self.moment())
            raise err

    def located(self, exc: BaseException, span=None) -> BaseException:
        """A rule's error at its line and column in the game file (`span` where the traceback
        finds none), with the moment of the game it happened in; an error of gamedsl's own
        (no rule on its way) is returned as it is."""
        err = rule_failure(exc, self.moment())
        if err is None and span is not None and isinstance(exc, GameRuntimeError):
            err = exc.located(self.prog.filename, self.game.text, span, self.moment())
        return exc if err is None else err

    def moment(self) -> str:
        """When in the game it is, in a player's words: the move being made, by whom, in which round."""
        if not self.moves:
            return "while the game is set up, before the first move"
        by = f" by {self.game.player_name(self.card_moves[-1][0])}" if self.card_moves else ""
        return f"during move {self.moves}{by} (round {self.round})"

    def end_of_round(self, fr):
        """The round block finished: check the end of the game, else start the next round."""
        prog = self.prog
        if prog.end_when is not None and prog.end_when(self, None):
            self.end_game()
            return
        self.count_step(ops.ROUND_STEPS, block=fr[0])  # a thousand rounds without a move: the game is stuck
        self.round += 1
        fr[1] = 0
        fr[2] = [None] * prog.round_locals
        self.stack.append(fr)
        self.fire("round start")

    def end_game(self):
        """Stop the flow and decide the outcome."""
        self.pending = None
        self.stack[:] = [[self.prog.outcome, 0, [None] * self.prog.outcome_locals, ops.finish_exit, None]]

    def set_places(self, order: tuple, key, descending: bool):
        """Places from 1, best first; players with equal keys share a place."""
        ranked = sorted(order, key=key, reverse=descending)
        keys = [key(p) for p in ranked]
        for i, p in enumerate(ranked):
            self.places[p] = 1 + sum(1 for k in keys[:i] if k != keys[i])

    def say(self, text: str):
        self.log.append((self.moves, self.me, text, self.round))

    def fire(self, kind: str):
        """Queue the triggers of an event that binds nothing (turn and round start and end): those
        whose condition holds, in file order, then the labelled ones in the order the player chooses."""
        ordered = self.prog.ordered.get(kind)
        if ordered is not None:
            self.stack.append(ops.ordered_steps(*ordered))
        frames = []
        for t in self.prog.triggers.get(kind, ()):
            env = [None] * t.nlocals
            if t.cond is None or t.cond(self, env):
                frames.append([t.body, 0, env, None, None])
        self.stack.extend(reversed(frames))

    # ---- decisions
    def ask(self, player: int, actions, window: bool = True):
        """Offer a decision to a player; with no legal move, the decision is skipped.

        In a game with `anytime` actions, the players who could react now are asked first:
        a reaction window (see open_window)."""
        if window and not self._in_move(player) and self._react_first(player, ("ask", player, actions)):
            return
        legal: list[int] = []
        if player == self.me:
            for act in actions:
                act.legal(self, legal)
        else:
            prev, self.me = self.me, player
            try:
                for act in actions:
                    act.legal(self, legal)
            finally:
                self.me = prev
        if legal:
            self.pending = (player, legal, actions)
            if self.moves >= self.move_limit:
                self.limit_hit = True
                self.end_game()
        else:  # skipped: nobody may decide on nothing for ever
            self.skips += 1
            self.count_step(ops.SKIP_STEPS)

    def _in_move(self, player: int) -> bool:
        """Whether this decision is part of a move the player is still making (a colour to name
        after a joker, a card to lay after the first): no reaction window comes in between."""
        if player != self.me or not self.prog.reactions:
            return False
        bodies = self.prog.action_bodies
        return any(fr[0] in bodies for fr in self.stack)

    def race(self, racers: list, actions: tuple, window: bool = True):
        """Every racer answers at once with one of the actions; the answers run fastest first.

        Like any decision, a race is preceded by a reaction window: the move that starts it may
        also have left a player with something to say (their last card but one) before anyone races."""
        if window and self._react_first((self.me + 1) % self.np, ("race", tuple(racers), actions)):
            return
        self.open_window("race", None, list(racers), actions)

    def decide(self, deferred, window: bool = True):
        """Ask the decision a reaction window deferred: ("ask", player, actions) or ("race", racers, actions)."""
        what, who, actions = deferred
        if what == "race":
            self.race(who, actions, window)
        else:
            self.ask(who, actions, window)

    def _react_first(self, first: int, deferred) -> bool:
        """Open a reaction window before a decision if some player (asked in turn order from `first`)
        could react now; the decision waits in it."""
        if not self.prog.reactions or self.window is not None or self.terminal:
            return False
        eligible = [p for p in _from(self.alive, first) if self.can_react(p)]
        if eligible:
            self.open_window("react", deferred, eligible, self.prog.reactions)
        return bool(eligible)

    def can_react(self, player: int) -> bool:
        """Whether a player has an anytime move now (stops at the first one found)."""
        legal: list[int] = []
        prev, self.me = self.me, player
        try:
            for act in self.prog.reactions:
                act.legal(self, legal)
                if legal:
                    return True
        finally:
            self.me = prev
        return False

    def reactions_of(self, player: int) -> list[int]:
        """The anytime moves a player could make now."""
        legal: list[int] = []
        prev, self.me = self.me, player
        try:
            for act in self.prog.reactions:
                act.legal(self, legal)
        finally:
            self.me = prev
        return legal

    def open_window(self, kind: str, deferred, players: list, actions: tuple):
        """Ask several players at once: each answers without seeing the others' answers, with a
        reaction time; then the answers run fastest first, each only if it is still legal then.

        kind "react": the anytime moves, or no reaction; afterwards the deferred decision is asked.
        kind "race": every listed player must answer with one of the race's actions."""
        self.window = [kind, deferred, list(players), [], actions, self.last_actor if kind == "react" else -1]
        self.window_start = self.moves
        self._pose_window()

    def _pose_window(self, keep: bool = False):
        """Ask the next player in the window; one with nothing to answer is skipped (with keep, as
        in a re-dealt copy of this moment, they are asked anyway and may only let it pass: who is
        asked must not depend on cards others cannot see)."""
        kind, _, queue, _, actions, _ = self.window
        while queue:
            player = queue[0]
            if kind == "react":
                legal = self.reactions_of(player)
                offered = actions + (self.prog.no_reaction,)
                if legal or keep:
                    legal.append(self.prog.no_reaction.first_id)
            else:
                legal, prev, self.me = [], self.me, player
                try:
                    for act in actions:
                        act.legal(self, legal)
                finally:
                    self.me = prev
                offered = actions
            if legal:
                self.pending = (player, legal, offered)
                if self.moves >= self.move_limit:
                    self.limit_hit = True
                    self.end_game()
                return
            queue.pop(0)
        self._close_window()

    def _close_window(self):
        """Every answer is in: run them fastest first (ties in the order asked)."""
        kind, deferred, _, answers, _, first = self.window
        self.window = None
        # The player whose move opened a reaction window is still in motion: their answer
        # comes first ("say ЛОЛ! as you play"); the others count fastest first.
        answers.sort(key=lambda a: (a[2] != first, a[0], a[1]))
        self.stack.append([(ops.resolve_window,), 0, None, None, [answers, deferred, False]])

    def still_legal(self, player: int, action: int) -> bool:
        act, _ = self.game._decode[action]
        legal: list[int] = []
        prev, self.me = self.me, player
        try:
            act.legal(self, legal)
        finally:
            self.me = prev
        return action in legal

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
        if self.window is not None:
            drawn = round(self.rng.uniform(0.3, 1.5), 3)
            t = drawn if time is None else float(time)
            self.times[self.moves - 1] = t
            self.card_moves.append((player, -1, False, -1, False))
            window = self.window
            no_reaction = self.prog.no_reaction
            if no_reaction is not None and action == no_reaction.first_id:
                self.passes[player] += 1
            window[3].append((t, len(window[3]), player, action, self.moves - 1))
            window[2].pop(0)
            self._pose_window()
            if self.pending is None:
                self.run()
        else:
            self.start_action(player, action, self.moves - 1)
            self.run()
        if self.checking:
            self.check_invariants("move")

    def start_action(self, player: int, action: int, index: int):
        """Put a move's rules on the stack, to run next (its speech triggers after them)."""
        act, arg = self.game._decode[action]
        if act.spoken and "speech" in self.prog.triggers:
            for t in self.prog.triggers["speech"]:
                env = [None] * t.nlocals
                env[0] = player
                if t.cond is None or t.cond(self, env):
                    self.stack.append([t.body, 0, env, ops.restore_me, self.me])
        env = [None] * act.nlocals
        if act.domain is not None:
            env[0] = arg
        if act.param_type == "card":
            # where the card went is read when the move's own rules are done, before the flow goes on
            src = self.loc[arg]
            self.stack.append([act.body, 0, env, ops.card_action_exit, (self.me, index, arg)])
            entry = (player, src, self.z[src][-1] == arg, src, False)
        else:
            entry = (player, -1, False, -1, False)
            self.stack.append([act.body, 0, env, None if player == self.me else ops.restore_me, self.me])
        if index - self.hbase == len(self.card_moves):
            self.card_moves.append(entry)
        elif index >= self.hbase:
            self.card_moves[index - self.hbase] = entry
        self.me = player
        self.last_actor = player

    def explain(self, action: int) -> str:
        """Why a move is not legal now, in words."""
        return self.why_not(action)[1]

    @_rules_run
    def why_not(self, action: int) -> tuple[int, str]:
        """(how far the move gets, why it is not legal): -3 no such move, -2 not offered now,
        -1 not among its choices, k: the first k of its conditions hold."""
        if self.pending is None:
            return -3, "the game is over"
        try:
            act, arg = self.game.decode(action)
        except (IndexError, TypeError):
            return -3, f"there is no move number {action}"
        player, legal, actions = self.pending
        text = self.action_to_string(action)
        who = self.game.player_name(player)
        if act not in actions:
            offered = ", ".join(dict.fromkeys(a.label for a in actions))
            return -2, f"'{text}' is not possible now: {who} must choose: {offered}"
        prev, self.me = self.me, player
        try:
            env = [None] * act.nlocals
            if act.domain is not None:
                env[0] = arg
                if arg not in tuple(act.domain(self, env)):
                    where = self.game.domain_text(act)
                    return -1, f"'{text}' is not possible: {self.game.arg_name(act, arg)} is not in {where}"
            for k, (fn, message, source) in enumerate(act.requires):
                if not fn(self, env):
                    return k, f"'{text}' is not allowed: " + (message or f"the rule '{source}' does not hold")
        finally:
            self.me = prev
        return len(act.requires), f"'{text}' is not possible now"

    def action_to_string(self, action: int) -> str:
        return self.game.action_to_string(action)

    @property
    def round_number(self) -> int:
        """How many rounds (deals) have started."""
        return self.round

    def is_terminal(self) -> bool:
        return self.terminal

    def returns(self) -> list[float]:
        """Per player: +1 for a win, -1 for a loss, 0 otherwise (and while the game runs)."""
        if not self.terminal or self.limit_hit:
            return [0.0] * self.np
        return [1.0 if r == "win" else -1.0 if r == "lose" else 0.0 for r in self.results]

    # ---- effects on cards
    def move(self, card: int, dest: int, bottom: bool = False):
        if card is None or card < 0:
            raise GameRuntimeError("there is no card to move")
        self.ver += 1
        src = self.loc[card]
        cards = self.z[src]
        if cards[-1] == card:
            cards.pop()
        else:
            cards.remove(card)
        if bottom:
            self.z[dest].insert(0, card)
        else:
            self.z[dest].append(card)
        self.loc[card] = dest
        if self.known:
            self.known.pop(card, None)
        if self.move_hooks:
            self._moved(card, src, dest)

    def move_top(self, n: int, src: int, dest: int, bottom: bool = False):
        source = self.z[src]
        self.ver += 1
        if self.move_hooks or bottom:
            for _ in range(min(n, len(source))):
                self.move(source[-1], dest, bottom)
            return
        target, loc = self.z[dest], self.loc
        for _ in range(min(n, len(source))):
            card = source.pop()
            target.append(card)
            loc[card] = dest
            if self.known:
                self.known.pop(card, None)

    def move_all(self, src: int, dest: int, bottom: bool = False):
        cards = list(self.z[src])
        self.ver += 1
        if self.move_hooks or bottom:
            for c in (reversed(cards) if bottom else cards):
                self.move(c, dest, bottom)
            return
        self.z[dest].extend(cards)
        self.z[src].clear()
        loc = self.loc
        for c in cards:
            loc[c] = dest
        if self.known:
            self.forget(cards)

    def deal(self, n: int, src: int, base: int, start: int):
        for p in _from(self.alive, start):
            self.move_top(n, src, base + p)

    def eliminate(self, player: int):
        """Take a player out of the game: `players`, `next` and the turns skip them from now on."""
        if not self.out >> player & 1:
            self.ver += 1
            self.out |= 1 << player
            self.alive = tuple(p for p in self.alive if p != player)

    def shuffle(self, zone: int):
        """Shuffle a zone with the seeded RNG (or into the next fixed order of a scenario)."""
        fixed = self.fixed_shuffles.pop(0) if self.fixed_shuffles else None
        self.ver += 1
        if fixed is not None:  # a scenario's fixed order (None there: this shuffle is left to the seed)
            order = self.game.same_cards(fixed, self.z[zone])
            if order is None:
                raise GameRuntimeError(f"the fixed shuffle does not hold the cards of "
                                       f"'{self.game.zone_instance_name(zone)}'")
            self.z[zone] = order
        else:
            self.rng.shuffle(self.z[zone])
        if self.known:
            self.forget(self.z[zone])  # known to be here, but no longer where

    def gather(self, zone: int):
        """Every card, from every zone, into one zone, in card order; cards in zones marked `out`
        (out of the game) stay where they are."""
        out = self.prog.out_zones
        self.ver += 1
        if not out:
            for cards in self.z:
                cards.clear()
            self.known.clear()
            self.z[zone] = list(range(len(self.loc)))
            self.loc = [zone] * len(self.loc)
            return
        kept = [c for c in range(len(self.loc)) if self.loc[c] not in out]
        for k, cards in enumerate(self.z):
            if k not in out:
                cards.clear()
        self.forget(kept)
        self.z[zone] = kept
        for c in kept:
            self.loc[c] = zone

    def in_play(self) -> tuple:
        """Every card not in a zone marked `out` (out of the game)."""
        out = self.prog.out_zones
        return tuple(c for c, zone in enumerate(self.loc) if zone not in out)

    def reveal(self, card: int, player: int | None):
        """Show a card to one player (or to everyone) where it lies: they know it until it moves."""
        if card is None or card < 0:
            raise GameRuntimeError("there is no card to reveal")
        mask = (1 << self.np) - 1 if player is None else 1 << player
        self.known[card] = self.known.get(card, 0) | mask

    def knows(self, player: int, card: int) -> bool:
        """Whether a player has been shown this card since it last moved."""
        return bool(self.known.get(card, 0) >> player & 1)

    def sees_card(self, player: int, card: int) -> bool:
        """Whether a player sees a card where it lies, or knows it from a reveal."""
        if card is None or card < 0:
            raise GameRuntimeError("there is no card here")
        zone = self.loc[card]
        cards = self.z[zone]
        return self.game.sees(self, zone, player, cards[-1] == card) or self.knows(player, card)

    def forget(self, cards):
        for c in cards:
            self.known.pop(c, None)

    def top(self, zone: int) -> int:
        cards = self.z[zone]
        if not cards:
            raise GameRuntimeError(f"zone '{self.game.zone_instance_name(zone)}' is empty: it has no top card")
        return cards[-1]

    def bottom(self, zone: int) -> int:
        cards = self.z[zone]
        if not cards:
            raise GameRuntimeError(f"zone '{self.game.zone_instance_name(zone)}' is empty")
        return cards[0]

    def pick(self, items):
        """A random element, from the seeded RNG (or the next fixed choice of a scenario)."""
        if not items:
            raise GameRuntimeError("random() of an empty collection")
        if self.fixed_random:
            choice = self.fixed_random.pop(0)
            if choice not in items:
                raise GameRuntimeError(f"the fixed random choice {choice} is not among {list(items)}")
            return choice
        return items[self.rng.randrange(len(items))]

    def _moved(self, card: int, src: int, dest: int):
        if self.arrivals is not None and dest in self.arrivals:
            self.arrivals[dest][card] += 1
        for t in self.prog.move_triggers(src, dest):
            env = [None] * t.nlocals
            env[0] = card
            if not (_zone_matches(t.source, src, env) and _zone_matches(t.dest, dest, env)):
                continue
            if t.cond is None or t.cond(self, env):
                self.fired.append([t.body, 0, env, None, None])

    # ---- reading the state
    def clone(self, past: bool = True) -> "State":
        """An independent copy: changing one never changes the other.

        With past=False the copy leaves out the record of past moves (history, what each move
        showed, reaction times): a bot trying moves needs none of it, and copying it costs
        more as a game grows longer."""
        other = State.__new__(State)
        other.game, other.prog, other.np = self.game, self.prog, self.np
        other.z = [list(c) for c in self.z]
        other.loc = list(self.loc)
        other.v = list(self.v)
        other.opt = self.opt
        envs: dict[int, list] = {}
        stack = []
        for fr in self.stack:
            env = fr[2]
            if env is not None:
                env = envs.setdefault(id(env), list(env))
            data = fr[4]
            if isinstance(data, list):  # loop counters, a window's answers still to run
                data = [list(x) if isinstance(x, list) else x for x in data]
            stack.append([fr[0], fr[1], env, fr[3], data])
        other.stack = stack
        other.me, other.turn = self.me, self.turn
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.pending = self.pending
        if past:
            other.history, other.card_moves, other.hbase = list(self.history), list(self.card_moves), self.hbase
            other.log, other.times, other.late = list(self.log), dict(self.times), set(self.late)
        else:
            other.history, other.card_moves, other.hbase = [], [], self.moves
            other.log, other.times, other.late = self.log[-8:], {}, set()
        other.moves, other.round = self.moves, self.round
        other.results, other.places = list(self.results), list(self.places)
        other.terminal, other.limit_hit = self.terminal, self.limit_hit
        other.fired = []
        other.move_hooks, other.turn_hooks, other.steps, other.skips = "move" in self.prog.triggers, self.turn_hooks, 0, 0
        other.arrivals = None  # a copy's moves (a bot looking ahead) are not the game's
        other.checking, other.move_limit = self.checking, self.move_limit
        other.fixed_random = list(self.fixed_random)
        other.fixed_shuffles = [None if o is None else list(o) for o in self.fixed_shuffles]
        other.known = dict(self.known)
        other.out, other.alive = self.out, self.alive
        w = self.window
        other.window = None if w is None else [w[0], w[1], list(w[2]), list(w[3]), w[4], w[5]]
        other.window_start = self.window_start
        other.last_actor = self.last_actor
        other.passes = list(self.passes)
        other.ver, other.spec_cache, other.spec_ver = 0, {}, -1
        return other

    def zone_cards(self, zone: str, player: int | None = None) -> list[int]:
        """The card ids in a zone, bottom to top."""
        return list(self.z[self.game.zone_instance(zone, player)])

    def var(self, name: str, who: int | None = None):
        """A variable's value; `who` is the player (or the card) of a per-player (per-card) variable."""
        var = self.prog.var_by_name[name]
        if var.per_player or var.per_card:
            if who is None:
                raise KeyError(f"variable '{name}' belongs to each {'player' if var.per_player else 'card'}: "
                               "give the player or card")
            return self.v[var.base + who]
        return self.v[var.base]

    def set_var(self, name: str, value, who: int | None = None):
        var = self.prog.var_by_name[name]
        self.ver += 1
        self.v[var.base + (who if var.per_player or var.per_card else 0)] = value

    def rig(self, zones: dict, rest: int | None = None):
        """Put exactly the given cards in the given zones (a scenario's fixed deal).

        Cards that were in those zones and are not listed take the places the listed cards
        leave (any left over go to the `rest` zone), so every card stays in exactly one zone.
        """
        listed = [c for cards in zones.values() for c in cards]
        self.ver += 1
        if len(set(listed)) != len(listed):
            dup = next(c for c in listed if listed.count(c) > 1)
            raise ValueError(f"{self.game.card_name(dup)} is listed twice")
        wanted = set(listed)
        self.forget(listed)
        for zone in zones:
            self.forget(self.z[zone])
        displaced = [c for zone in zones for c in self.z[zone] if c not in wanted]
        vacancies = [(self.loc[c], self.z[self.loc[c]].index(c)) for c in listed if self.loc[c] not in zones]
        extra = []
        if rest is not None:
            extra = displaced[len(vacancies):]
            displaced = displaced[:len(vacancies)]
        if len(displaced) > len(vacancies):
            left = displaced[len(vacancies):]
            names = ", ".join(self.game.card_name(c) for c in left[:8]) + (
                f" and {len(left) - 8} more" if len(left) > 8 else "")
            raise ValueError(f"these cards would be left without a zone: {names}; say where they go, "
                             "or name a zone for the rest with 'rest: ZONE'")
        for (zone, i), c in zip(vacancies, displaced):
            self.z[zone][i] = c
            self.loc[c] = zone
        for zone, i in vacancies[len(displaced):]:
            self.z[zone][i] = None
        for zone in {zone for zone, _ in vacancies}:
            self.z[zone] = [c for c in self.z[zone] if c is not None]
        for zone, cards in zones.items():
            self.z[zone] = list(cards)
            for c in cards:
                self.loc[c] = zone
        if extra:
            self.z[rest][0:0] = extra  # under what the zone holds (or was given): its top cards stay on top
            for c in extra:
                self.loc[c] = rest

    @_rules_run
    def refresh(self, window: bool = True):
        """Recompute the pending decision after a scenario changed the state by hand.

        With window=False (a re-dealt copy of the same moment), no new reaction window opens."""
        self.ver += 1  # a scenario may have set zones or variables by hand
        if self.pending is not None and self.window is not None and window and self.window[0] == "react" \
                and not self.window[3]:  # a reaction window nobody answered yet: the moment starts again
            deferred, self.window, self.pending = self.window[1], None, None
            self.decide(deferred)
            if self.pending is None and not self.terminal:
                self.run()
        elif self.pending is not None and self.window is not None:  # an answer in a window: ask it again
            self.pending = None
            self._pose_window(keep=not window)
            if self.pending is None and not self.terminal:
                self.run()
        elif self.pending is not None:
            player, _, actions = self.pending
            self.pending = None
            self.ask(player, actions, window=window)
            if self.pending is None and not self.terminal:
                self.run()

    @_rules_run
    def evaluate(self, player: int):
        """The game's heuristic for one player (its returns once the game is over; 0 without one)."""
        if self.terminal:
            return 1000.0 * self.returns()[player]
        fn = self.prog.heuristic
        if fn is None:
            return 0.0
        prev, self.me = self.me, player
        try:
            return fn(self, None)
        finally:
            self.me = prev

    def digest(self) -> str:
        """A fingerprint of everything in the state, to check that two runs reached the same place."""
        text = repr((self.z, self.v, sorted(self.known.items()), self.out, self.window, sorted(self.times.items()),
                     self.round, self.moves, self.results, self.places, self.terminal,
                     self.pending[:2] if self.pending else None, self.rng.getstate()))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @_rules_run
    def observation(self, player: int) -> dict:
        """Exactly what one player may see now."""
        return self.game.observe(self, player)


def _from(seats: tuple, first: int) -> tuple:
    """The seats in turn order from `first` (or from the next seat after it still in the game)."""
    for k, p in enumerate(seats):
        if p >= first:
            return seats[k:] + seats[:k]
    return seats


def _zone_matches(pattern, zone: int, env: list) -> bool:
    if pattern is None:
        return True
    base, per_player, slot = pattern
    if not per_player:
        return zone == base
    if not base <= zone < base + MAX_SEATS:
        return False
    if slot is not None:
        env[slot] = zone - base
    return True
