"""The State's decisions: asking a player, reaction windows and races, and why a move is not
legal (a mixin of State)."""
from __future__ import annotations

from .cards import _ROTATIONS, _from
from .flow import SKIP_STEPS, action_exit, resolve_window


class Decisions:
    """ask, race, reaction windows; refresh after a change by hand; why_not."""

    __slots__ = ()

    def answer(self, player: int, action: int, time: float | None):
        """An answer in a reaction window or race: it waits, with its reaction time, until everyone
        has answered (the next player is asked; the last answer runs them all). A simultaneous
        choice has no time: the choices run in the order the players were asked."""
        window = self.window
        if window[0] == "simultaneous":
            t = 0.0
        else:
            drawn = round(self.own_rng().uniform(0.3, 1.5), 3)
            t = drawn if time is None else float(time)
            self.times[self.moves - 1] = t
        self.card_moves.append((player, -1, False, -1, False))
        no_reaction = self.prog.no_reaction
        if no_reaction is not None and action == no_reaction.first_id:
            self.passes[player] += 1
        window[3].append((t, len(window[3]), player, action, self.moves - 1))
        window[2].pop(0)
        self._pose_window()

    def ask(self, player: int, actions, window: bool = True):
        """Offer a decision to a player; with no legal move, the decision is skipped.

        In a game with `anytime` actions, the players who could react now are asked first:
        a reaction window (see open_window)."""
        if window and self.prog.reactions:
            # A decision inside a move the player is still making (a colour to name after a joker,
            # a card to lay after the first): no reaction window comes in between.
            in_move = False
            if player == self.me:
                for fr in self.stack:
                    if fr[3] is action_exit:
                        in_move = True
                        break
            if not in_move and self._react_first(player, ("ask", player, actions)):
                return True
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
                self.limit_reached()
            return True
        self.skipped()
        return False

    def limit_reached(self):
        """The game has made as many moves as its `limit` allows: it stops unfinished."""
        self.limit_hit = True
        self.end_game()

    def skipped(self):
        """A decision nobody could make was skipped: counted, so that it is not skipped for ever."""
        self.skips += 1
        self.count_step(SKIP_STEPS)

    def race(self, racers: list, actions: tuple, window: bool = True):
        """Every racer answers at once with one of the actions; the answers run fastest first.

        Like any decision, a race is preceded by a reaction window: the move that starts it may
        also have left a player with something to say (their last card but one) before anyone races."""
        if not racers:
            return False
        if window and self._react_first((self.me + 1) % self.np, ("race", tuple(racers), actions)):
            return True
        self.open_window("race", None, list(racers), actions)
        return True

    def simultaneous(self, players: list, actions: tuple, window: bool = True):
        """Every listed player chooses at once, in secret; when all have chosen, the choices are
        revealed together and run in the order the players were listed, each if still legal.

        Like any decision, it is preceded by a reaction window."""
        if not players:
            return False
        if window and self._react_first((self.me + 1) % self.np, ("simultaneous", tuple(players), actions)):
            return True
        self.open_window("simultaneous", None, list(players), actions)
        return True

    def default_answer(self) -> int | None:
        """The answer that lets the moment pass in an open reaction window or race, if the player
        asked may give it: in a window, no reaction; in a race, the last action it lists (its
        default: `race slap, hands_off among players` defaults to hands off), and likewise in a
        simultaneous choice (the first of that action's moves). Enter gives a race's at the
        terminal, and bots expect it of the players who answer after them."""
        if self.window is None or self.pending is None:
            return None
        legal = self.pending[1]
        if self.window[0] == "react":
            a = self.prog.no_reaction.first_id
            return a if a in legal else None
        last = self.window[4][-1]
        return next((a for a in legal if last.first_id <= a < last.first_id + last.size), None)

    def window_matters(self, player: int, passed) -> bool:
        """Whether the open question to `player` is worth asking a person who let the last reaction
        window pass with the anytime moves `passed` (their ids): a race or secret choice always is;
        a reaction window is when the decision it waits for is theirs (they may react before their
        own move) or when a move it offers was not among those let pass. Otherwise the interface
        may answer "no reaction" for them: nothing is new to them since they last said no. Reads
        nothing the player cannot see (their own legal moves and whose decision comes)."""
        if self.window is None or self.window[0] != "react" or self.pending is None:
            return True
        what, who, _ = self.window[1]
        if who == player if what == "ask" else player in who:
            return True
        none = self.prog.no_reaction.first_id
        return any(a != none and a not in passed for a in self.pending[1])

    def decide(self, deferred, window: bool = True):
        """Ask the decision a reaction window deferred: ("ask", player, actions), ("race", racers,
        actions) or ("simultaneous", players, actions)."""
        what, who, actions = deferred
        if what == "race":
            self.race(who, actions, window)
        elif what == "simultaneous":
            self.simultaneous(who, actions, window)
        else:
            self.ask(who, actions, window)

    def _react_first(self, first: int, deferred) -> bool:
        """Open a reaction window before a decision if some player (asked in turn order from `first`)
        could react now; the decision waits in it."""
        reactions = self.prog.reactions
        if not reactions or self.window is not None or self.terminal:
            return False
        some, legal_of = self.game.reaction_check, self.game.reaction_legal
        eligible = {}  # each player who could react: their moves, which the window asks them at once
        prev = self.me
        key = (self.alive, first)  # _from, its table read in place: asked before every decision
        try:
            for p in (_ROTATIONS[key] if key in _ROTATIONS else _from(*key)):
                self.me = p
                if some(self):  # (stops at the first move found: most players have none)
                    legal: list[int] = []
                    legal_of(self, legal)
                    eligible[p] = legal
        finally:
            self.me = prev
        if eligible:
            self.open_window("react", deferred, list(eligible), self.prog.reactions, eligible)
            return True
        return False

    def reactions_of(self, player: int) -> list[int]:
        """The anytime moves a player could make now."""
        legal: list[int] = []
        prev, self.me = self.me, player
        try:
            self.game.reaction_legal(self, legal)
        finally:
            self.me = prev
        return legal

    def open_window(self, kind: str, deferred, players: list, actions: tuple, ready: dict | None = None):
        """Ask several players at once: each answers without seeing the others' answers, with a
        reaction time; then the answers run fastest first, each only if it is still legal then.

        kind "react": the anytime moves, or no reaction; afterwards the deferred decision is asked.
        kind "race": every listed player must answer with one of the race's actions.
        kind "simultaneous": the same, without reaction times: the answers run in the order asked.

        `ready` holds the moves of players already worked out for this moment (nothing the answers
        change is read by them): each is asked them as they are."""
        self.window = [kind, deferred, list(players), [], actions, self.last_actor if kind == "react" else -1, ready]
        self.window_start = self.moves
        self._pose_window()

    def _pose_window(self, keep: bool = False):
        """Ask the next player in the window; one with nothing to answer is skipped (with keep, as
        in a re-dealt copy of this moment, they are asked anyway and may only let it pass: who is
        asked must not depend on cards others cannot see)."""
        kind, _, queue, _, actions, _, ready = self.window
        while queue:
            player = queue[0]
            if kind == "react":
                legal = ready.pop(player, None) if ready and not keep else None
                if legal is None:
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
        """Every answer is in: run them fastest first (ties, and simultaneous choices, in the order asked)."""
        kind, deferred, _, answers, _, first, _ = self.window
        self.window = None
        # The player whose move opened a reaction window is still in motion: their answer
        # comes first ("say it as you play"); the others count fastest first.
        answers.sort(key=lambda a: (a[2] != first, a[0], a[1]))
        self.stack.append([resolve_window, [answers, deferred, False], [], None, None])

    def still_legal(self, player: int, action: int) -> bool:
        act, _ = self.game.decoded[action]
        legal: list[int] = []
        prev, self.me = self.me, player
        try:
            act.legal(self, legal)
        finally:
            self.me = prev
        return action in legal

    def _refresh(self, window: bool = True):
        """Recompute the pending decision after a scenario changed the state by hand.

        With window=False (a re-dealt copy of the same moment), no new reaction window opens."""
        self.all_rules_changed()  # a scenario may have set zones or variables by hand
        if window:
            self.chances = None  # (changed by hand: no replay of the game's course leads here)
        if self.window is not None:
            self.window[6] = None  # the moves worked out for the players still to answer
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

    def explain(self, action: int) -> str:
        """Why a move is not legal now, in words."""
        return self.why_not(action)[1]

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
            offered = ", ".join(dict.fromkeys(a.title for a in actions))
            return -2, f"'{text}' is not possible now: {who} must choose: {offered}"
        prev, self.me = self.me, player
        try:
            env = [None] * act.nlocals
            if act.params:  # several choices: each in its domain, worked out with those before it
                for k, ((name, typ, _, domain, where), value) in enumerate(zip(act.params, self.game.args[action])):
                    if name in act.shapes:  # several cards at once: a shape the cards hold, that makes a pattern
                        found = dict(domain(self, env)).get(value)
                        if found is None:
                            return -1, (f"'{text}' is not possible: {where} does not hold these cards, "
                                        "or they make none of the patterns")
                        env[k] = found
                        continue
                    if value not in tuple(domain(self, env)):
                        return -1, f"'{text}' is not possible: {self.game.value_name(typ, value)} is not in {where}"
                    env[k] = value
            elif act.domain is not None:
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

