"""The flow of a game in progress: frames, what happens when a unit ends, triggers, rounds, the
end of a turn or round from another frame, and the engine's own blocks (resolving a reaction
window's answers, the steps a player orders).

A frame is `[block, locals, turn ends, exit, exit data]` (see language/flow.py). The engine's
own blocks follow the same rule as the generated ones: `block(s, fr)` returns the next block,
or None after storing where to resume, or after popping its frame.
"""
from __future__ import annotations

from ..errors import GameRuntimeError

TRIGGER_STEPS, SKIP_STEPS, ROUND_STEPS = 10, 100, 1000


# ---- what a unit leaves to do when it ends (a frame's exit)
def restore_me(s, fr):
    s.me = fr[4]


def action_exit(s, fr):
    """A move is done: 'me' is who it was before, and the record notes where its card went (what
    others saw of the move)."""
    s.me, index, card = fr[4]
    if card is not None:
        s.note_card_move(index, card)


def round_exit(s, fr):
    """The round block finished: run the 'round end' triggers, then decide what comes next."""
    if s.checking:
        s.check_invariants("round end")
    s.stack.append([after_round, None, [], None, fr])
    s.fire("round end")


def finish_exit(s, fr):
    s.terminal = True
    if s.checking:
        s.check_invariants("game end")


_UNWIND = (restore_me, action_exit)  # exits that still run when a turn or round is left early


# ---- the engine's own blocks
def after_round(s, fr):
    """The round and its 'round end' triggers are over: the game ends, or the next round begins."""
    s.stack.pop()
    s.end_of_round(fr[4])
    return None


def round_start(s, fr):
    """Setup is over: the first round's 'round start' triggers (the round itself waits below)."""
    s.stack.pop()
    s.fire("round start")
    return None


def setup_over(s, fr):
    """Setup is over and the game has no rounds: straight to the outcome."""
    s.stack.pop()
    s.end_game()
    return None


def resolve_window(s, fr):
    """Run a window's answers fastest first, each if still legal; then ask the decision it deferred."""
    data = fr[1]  # [answers still to run, the decision deferred, whether a reaction ran]
    deferred = data[1]
    no_reaction = s.prog.no_reaction
    decode = s.game.decoded
    while data[0]:
        _, _, player, action, index = data[0][0]
        data[0] = data[0][1:]  # a new list: a copy of the state shares the old one
        if decode[action][0] is no_reaction:
            continue
        if not s.still_legal(player, action):
            s.late.add(index)  # someone faster changed the game: this answer no longer applies
            continue
        data[2] = True
        if s.start_action(player, action, index):
            return None  # the answer's frames run first; this block comes back for the next answer
    s.stack.pop()
    if deferred is not None:
        s.decide(deferred, window=data[2])  # after a reaction, others may react to it
    else:
        s.last_actor = -1  # a race is over: nobody is still in motion from it
    return None


# ---- steps the player orders: labelled turn and round triggers
def order_frame(steps: list) -> list:
    """A frame that runs labelled triggers in the order the player on turn chooses, one move per
    step, each once, each only if its condition holds then. Its data: [steps done (bits), the
    steps, the step chosen, whether the player was asked]."""
    return [order_pick, [0, steps, None, False], [], None, None]


def order_pick(s, fr):
    """The steps not done whose condition holds: none ends the moment, one runs, several ask."""
    data = fr[1]
    done, steps = data[0], data[1]
    avail = [k for k, st in enumerate(steps)
             if not done >> k & 1 and (st.cond is None or st.cond(s, [None] * st.nlocals))]
    data[3] = len(avail) > 1
    if len(avail) == 1:
        data[2] = avail[0]
    elif avail and s.ask(s.me, tuple(steps[k].action for k in avail)):
        fr[0] = order_next
        return None
    return order_next


def order_next(s, fr):
    """Run the chosen step, then pick again; a question that a reaction made moot is asked again."""
    data = fr[1]
    k = data[2]
    if k is None:
        if data[3]:  # asked, but no step was chosen (a reaction changed the game): look again
            return order_pick
        s.stack.pop()
        return None
    data[2] = None
    data[0] |= 1 << k
    fr[0] = order_pick
    step = data[1][k]
    s.stack.append([step.entry, [None] * step.nlocals, [], None, None])
    return None


def _order_frame(s) -> int:
    """The index of the innermost frame of steps the player orders, or -1."""
    stack = s.stack
    for i in range(len(stack) - 1, -1, -1):
        if stack[i][0] is order_pick or stack[i][0] is order_next:
            return i
    return -1


def step_legal(k: int, action_id: int):
    """The move 'this step next': legal while the step is not done and its condition holds."""
    def legal(s, out):
        i = _order_frame(s)
        f = s.stack[i] if i >= 0 else None
        if f is not None and not f[1][0] >> k & 1:
            step = f[1][1][k]
            if step.cond is None or step.cond(s, [None] * step.nlocals):
                out.append(action_id)
    return legal


def step_choice(k: int):
    """The body of the move 'this step next': tell the waiting steps which one comes now."""
    def run(s, e):
        i = _order_frame(s)
        if i >= 0:
            s.own(i)[1][2] = k
    return run


class Flow:
    """The State's part that moves its frames along (a mixin of State)."""

    __slots__ = ()

    def done(self, fr):
        """A unit is over: its frame goes, and its exit runs."""
        self.stack.pop()
        if fr[3] is not None:
            fr[3](self, fr)
        return None

    def done_move(self, fr):
        """An action's unit is over: done(fr) with its exit, action_exit, inlined (every move whose
        rules wait ends here)."""
        self.stack.pop()
        self.me, index, card = fr[4]
        if card is not None:
            k = index - self.hbase
            if k >= 0:  # a copy made without its past (a bot's trial) does not keep this record
                moves, dst = self.card_moves, self.loc[card]
                moves[k] = moves[k][:3] + (dst, self.z[dst][-1] == card)
                if self.game.changing is not None or card in self.known:
                    self.saw_landing(index, card)
        return None

    def fire(self, kind: str) -> bool:
        """Queue the triggers of an event that binds nothing (turn and round start and end): those
        whose condition holds, in file order, then the labelled ones in the order the player
        chooses. True if anything was queued (it runs before the rest of the caller's unit)."""
        stack = self.stack
        before = len(stack)
        steps = self.prog.ordered.get(kind)
        if steps:
            stack.append(order_frame(steps))
        frames = []
        for t in self.prog.triggers.get(kind, ()):
            env = [None] * t.nlocals
            if t.cond is None or t.cond(self, env):
                frames.append([t.entry, env, [], None, None])
        stack.extend(reversed(frames))
        return len(stack) > before

    def push_fired(self) -> bool:
        """The triggers the last statement's moves set off run now, first fired first."""
        fired = self.fired
        if not fired:
            return False
        self.fired = []
        self.count_step(TRIGGER_STEPS * len(fired), trigger=fired[0][0])  # triggers firing triggers must end
        self.stack.extend(reversed(fired))
        return True

    def end_turn(self):
        """`end turn` from a frame above the turn's (a move that ends the turn it interrupted).

        A window's answers still to run when a faster one ended the turn are not lost: they run
        next, each if still legal, before the turn's end (the decision the window deferred goes)."""
        stack = self.stack
        left: list = []
        while stack:
            f = stack[-1]
            if f[2]:  # inside a turn: go on at the block that ends it
                f = self.own_top()
                f[0] = f[2][-1]
                self._answers_left(left)
                return None
            stack.pop()
            self._unwound(f, left)
        raise GameRuntimeError("'end turn' outside a turn")

    def end_round(self):
        """`end round` from a frame above the round's (a window's answers still to run: as end_turn)."""
        stack = self.stack
        left: list = []
        while stack:
            f = stack.pop()
            if f[3] is round_exit:
                round_exit(self, f)
                self._answers_left(left)
                return None
            self._unwound(f, left)
        raise GameRuntimeError("'end round' outside a round")

    def _unwound(self, f, left: list):
        """A frame left early: its exit runs if it must; a window's answers still to run are kept."""
        if f[3] in _UNWIND:
            f[3](self, f)
        elif f[0] is resolve_window:
            left[:0] = f[1][0]  # a window further down was answered earlier: its answers come first

    def _answers_left(self, left: list):
        if left:
            self.stack.append([resolve_window, [left, None, True], [], None, None])

    def end_of_round(self, fr):
        """The round block finished: check the end of the game, else start the next round."""
        prog = self.prog
        if prog.end_when is not None and prog.end_when(self, None):
            self.end_game()
            return
        self.count_step(ROUND_STEPS, round_over=True)  # a thousand rounds without a move: the game is stuck
        self.round += 1
        self.stack.append([prog.round.entry, [None] * prog.round.nlocals, [], fr[3], fr[4]])  # (a copy may share fr)
        self.fire("round start")

    def end_game(self):
        """Stop the flow and decide the outcome (a window's answers still to run come too late)."""
        self.pending = None
        for f in self.stack:
            if f[0] is resolve_window:
                self.late.update(a[4] for a in f[1][0] if self.game.decoded[a[3]][0] is not self.prog.no_reaction)
        outcome = self.prog.outcome
        self.stack[:] = [[outcome.entry, [None] * outcome.nlocals, [], finish_exit, None]]
