"""Runtime building blocks of compiled rules: statement ops, loop exits and small helpers.

A frame on a state's stack is a list [ops, pc, env, exit, data]: the ops of a block, the
next op to run, the unit's local variables, a function run when the block finishes, and
that function's data. Frames are plain lists so a state clones cheaply.
"""
from __future__ import annotations

from .errors import GameRuntimeError


UNSET = object()  # a hoisted value not computed yet


def located(fn, span):
    """Attach the source span of the statement an op comes from (for runtime errors)."""
    fn.span = span
    return fn


def rotate(items: tuple, first) -> tuple:
    """The items starting at `first` (players in turn order from a given seat)."""
    if first in items:
        i = items.index(first)
        return items[i:] + items[:i]
    return items


LOOP_LIMIT = 100_000  # a single 'repeat' count past this is surely a mistake
STEP_LIMIT = 1_000_000  # loop turns and new rounds without a move, before the rules are declared looping
POWER_LIMIT = 10_000  # an exponent past this is surely a mistake (and would take forever)


def repeat_count(n: int) -> int:
    if n > LOOP_LIMIT:
        raise GameRuntimeError(f"'repeat {n}' is more than {LOOP_LIMIT} times without asking for a move")
    return n


def power(a: int, b: int) -> int:
    if b < 0:
        raise GameRuntimeError(f"a negative power ({a} ** {b}) is not a whole number")
    if b > POWER_LIMIT or (abs(a) > 1 and b * max(1, abs(a).bit_length()) > 64 * POWER_LIMIT):
        raise GameRuntimeError(f"{a} ** {b} is too large a number")
    return a ** b


def seat(s, n: int) -> int:
    """The n-th seat, counting from 1."""
    if not 1 <= n <= s.np:
        raise GameRuntimeError(f"there is no seat {n} in a {s.np}-player game")
    return n - 1


_OTHERS: dict = {}


def others(s) -> tuple:
    """Every player still in the game but the one deciding (`me`), from their left round the table."""
    key = (s.np, s.me, s.out)
    found = _OTHERS.get(key)
    if found is None:
        found = _OTHERS[key] = tuple(p for p in ((s.me + k) % s.np for k in range(1, s.np)) if not s.out >> p & 1)
    return found


def next_seat(s, p: int, step: int) -> int:
    """The next (step 1) or previous (step -1) seat still in the game."""
    q = (p + step) % s.np
    while s.out >> q & 1 and q != p:
        q = (q + step) % s.np
    return q


def number(table: tuple, index: int) -> int:
    value = table[index] if index >= 0 else None
    if value is None:
        raise GameRuntimeError("this value has no number")
    return value


def divide(a, b, op):
    if b == 0:
        raise GameRuntimeError("division by zero")
    return a // b if op == "//" else a % b


def param_function(base, changes):
    """A parameter's reader: the base value, then every active modifier in file order."""
    def read(s, owner=None):
        e = [s.me if owner is None else owner]
        v = base(s, e)
        for cond, op, amount in changes:
            if cond(s, e):
                a = amount(s, e)
                if op == "=":
                    v = a
                elif op == "+=":
                    v += a
                elif op == "-=":
                    v -= a
                else:
                    v *= a
        return v
    return read


def if_op(branches, other):
    def op(s, fr):
        e = fr[2]
        for cond, block in branches:
            if cond(s, e):
                if block:
                    s.stack.append([block, 0, e, None, None])
                return
        if other:
            s.stack.append([other, 0, e, None, None])
    return op


def repeat_op(count, body):
    def op(s, fr):
        n = repeat_count(count(s, fr[2]))
        if n > 0 and body:
            s.stack.append([body, 0, fr[2], repeat_exit, n])
    return op


def repeat_exit(s, fr):
    fr[4] -= 1
    if fr[4] > 0:
        fr[1] = 0
        s.stack.append(fr)


def while_op(cond, body):
    def op(s, fr):
        if cond(s, fr[2]):
            s.stack.append([body, 0, fr[2], while_exit, cond])
    return op


def while_exit(s, fr):
    s.count_step()
    if fr[4](s, fr[2]):
        fr[1] = 0
        s.stack.append(fr)


def for_op(domain, slot, start, body):
    def op(s, fr):
        e = fr[2]
        items = domain(s, e)
        if start is not None and items:
            items = rotate(items, start(s, e))
        if not items or not body:
            return
        e[slot] = items[0]
        s.stack.append([body, 0, e, for_exit, [items, 0, slot]])
    return op


def for_exit(s, fr):
    data = fr[4]
    data[1] += 1
    if data[1] < len(data[0]):
        fr[2][data[2]] = data[0][data[1]]
        fr[1] = 0
        s.stack.append(fr)


def turn_op(player, body):
    def op(s, fr):
        p = player(s, fr[2])
        s.stack.append([body, 0, fr[2], turn_exit, (s.me, s.turn)])
        s.me = s.turn = p
        if s.turn_hooks[0]:
            s.fire("turn start")
    return op


def turn_exit(s, fr):
    if s.turn_hooks[1]:
        s.stack.append([(), 0, None, restore_turn, fr[4]])
        s.fire("turn end")
    else:
        s.me, s.turn = fr[4]


def restore_turn(s, fr):
    s.me, s.turn = fr[4]


def restore_me(s, fr):
    s.me = fr[4]


def card_action_exit(s, fr):
    """A move with a card is done: note where its card went (for what others saw), restore 'me'."""
    s.me, index, card = fr[4]
    note_card_move(s, index, card)


def note_card_move(s, index: int, card: int):
    k = index - s.hbase
    if k < 0:
        return  # a copy made without its past (a bot's trial) does not keep this record
    player, src, src_top, _, _ = s.card_moves[k]
    dst = s.loc[card]
    s.card_moves[k] = (player, src, src_top, dst, s.z[dst][-1] == card)


def round_exit(s, fr):
    """The round block finished: run the 'round end' triggers, then decide what comes next."""
    if s.checking:
        s.check_invariants("round end")
    s.stack.append([(), 0, None, after_round, fr])
    s.fire("round end")


def after_round(s, fr):
    s.end_of_round(fr[4])


def round_start(s, fr):
    s.fire("round start")


def finish_exit(s, fr):
    s.terminal = True
    if s.checking:
        s.check_invariants("game end")


def choose_op(actions, by):
    def op(s, fr):
        player = by(s, fr[2]) if by is not None else s.me
        s.ask(player, actions)
    return op


def race_op(actions, players):
    def op(s, fr):
        racers = players(s, fr[2])
        if racers:
            s.open_window("race", None, list(racers), actions)
    return op


def resolve_window(s, fr):
    """Run a window's answers fastest first, each if still legal; then ask the decision it deferred."""
    answers, deferred, ran = fr[4]
    while answers:
        _, _, player, action, index = answers.pop(0)
        if s.game._decode[action][0] is s.prog.no_reaction:
            continue
        if not s.still_legal(player, action):
            s.late.add(index)  # someone faster changed the game: this answer no longer applies
            continue
        fr[4][2] = True
        fr[1] = 0  # come back here for the next answer
        s.start_action(player, action, index)
        return
    if deferred is not None:
        s.ask(deferred[0], deferred[1], window=ran)  # after a reaction, others may react to it


def end_op(what):
    def op(s, fr):
        if what == "game":
            s.end_game()
            return
        stop = turn_exit if what == "turn" else round_exit
        stack = s.stack
        while stack:
            f = stack.pop()
            if f[3] is stop:
                stop(s, f)
                return
            if f[3] is restore_me or f[3] is restore_turn or f[3] is card_action_exit:
                f[3](s, f)
        raise GameRuntimeError(f"'end {what}' outside a {what}")
    return op


def result_op(kind, player):
    def op(s, fr):
        s.results[player(s, fr[2])] = kind
    return op


def say_op(text):
    def op(s, fr):
        s.say(text)
    return op
