"""Runtime building blocks of compiled rules: statement ops, loop exits and small helpers.

A frame on a state's stack is a list [ops, pc, env, exit, data]: the ops of a block, the
next op to run, the unit's local variables, a function run when the block finishes, and
that function's data. Frames are plain lists so a state clones cheaply.
"""
from __future__ import annotations

from .errors import GameRuntimeError
from .patterns import Spec


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
# The work the rules may do between two decisions, in steps: a loop's turn is 1, a trigger fired
# 10, a decision skipped (nobody had a legal move) 100, a new round 1000. Past the limit the rules
# are declared looping: a designer's typo must never hang a game.
STEP_LIMIT = 1_000_000
TRIGGER_STEPS, SKIP_STEPS, ROUND_STEPS = 10, 100, 1000
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
    if fr[4](s, fr[2]):
        fr[1] = 0
        s.stack.append(fr)
        s.count_step()  # with the loop on the stack, to be named if it never ends


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
            s.race(racers, actions)
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
        s.decide(deferred, window=ran)  # after a reaction, others may react to it
    else:
        s.last_actor = -1  # a race is over: nobody is still in motion from it


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


# ---- cards by value, values that count as one, patterns
def card_of(table: dict, key: tuple) -> int:
    """The card with these attribute values (card(9, spades) when the values are not constants)."""
    card = table.get(key)
    if card is None:
        raise GameRuntimeError("no card of the game has these values")
    return card


def as_cards(s, x):
    """A function's argument given where cards are expected: a zone's cards, or the list itself."""
    return s.z[x] if isinstance(x, int) else x


def tops(s, zones: tuple) -> tuple:
    """The top card of each zone that has cards."""
    z = s.z
    return tuple(z[k][-1] for k in zones if z[k])


def classes_of(s, attr: str, owner: int):
    """Per value of an attribute, the class it counts as for `owner` under the `same` changes in
    force (merged transitively); None when no such change is in force."""
    changes = s.prog.same_changes.get(attr)
    if not changes:
        return None
    e = [owner]
    active = [values for cond, values in changes if cond(s, e)]
    if not active:
        return None
    parent = list(range(s.prog.attr_sizes[attr]))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for values in active:
        root = find(values[0])
        for v in values[1:]:
            parent[find(v)] = root
    return tuple(find(x) for x in range(len(parent)))


def same(s, attr: str, a: int, b: int, owner: int) -> bool:
    """Whether two values of an attribute are the same, or count as one for `owner`."""
    if a == b:
        return True
    if a < 0 or b < 0:
        return False
    classes = classes_of(s, attr, owner)
    return classes is not None and classes[a] == classes[b]


def pattern_spec(s, k: int, owner: int):
    """What pattern k asks of `owner` now (a Spec), or None while it does not count.

    Worked out once per state: the answer holds until the state changes (`s.ver`)."""
    if s.spec_ver != s.ver:
        s.spec_cache.clear()
        s.spec_ver = s.ver
    key = (k, owner, s.me)
    found = s.spec_cache.get(key, s)
    if found is s:
        found = s.spec_cache[key] = _pattern_spec(s, s.prog.patterns[k], owner)
    return found


def _pattern_spec(s, pat, owner: int):
    e = [owner]
    for cond in pat.conds:
        if not cond(s, e):
            return None
    size = max(1, pat.size(s, e))  # a pattern is at least one card, whatever the modifiers say
    withs = ()
    for a, i, cond, count in pat.withs:
        if cond is None or cond(s, e):
            n = 1 if count is None else count(s, e)
            if n > 0:
                withs += ((a, i, n),)
    key = (-1, owner, s.me)  # the wild cards and merged values are the same for every pattern
    changes = s.spec_cache.get(key)
    if changes is None:
        changes = s.spec_cache[key] = _value_changes(s, owner)
    return Spec(size, withs, changes[0], changes[1])


def _value_changes(s, owner: int):
    """The `wild` and `same` changes in force for `owner`: ((attr, wild cards), ...), ((attr, classes), ...)."""
    e = [owner]
    wild = []
    for attr, changes in s.prog.wild_changes.items():
        cards = frozenset().union(*(c for cond, c in changes if cond(s, e)))
        if cards:
            wild.append((attr, cards))
    classes = []
    for attr in s.prog.same_changes:
        found = classes_of(s, attr, owner)
        if found is not None:
            classes.append((attr, found))
    return tuple(wild), tuple(classes)


def can_make(s, k: int, chosen, pool, owner: int) -> bool:
    """Pattern k is made by the cards `chosen` plus some of `pool`, for player `owner`."""
    spec = pattern_spec(s, k, owner)
    if spec is None:
        return False
    return s.prog.matcher.check(s.prog.patterns[k].shape, spec, chosen, pool)


def makes(s, k: int, cards, owner: int) -> bool:
    """Exactly these cards make pattern k, for player `owner`."""
    spec = pattern_spec(s, k, owner)
    if spec is None:
        return False
    return len(cards) == spec.size and s.prog.matcher.check(s.prog.patterns[k].shape, spec, cards, ())


# ---- steps the player orders: labelled turn and round triggers
def ordered_steps(steps: tuple, actions: tuple) -> list:
    """A frame that runs labelled triggers ((condition or None, block, locals), ...) in the order the
    player on turn chooses, one move per trigger, each once, each only if its condition holds then."""
    # data: [steps done (bits), steps, their moves, the step chosen, whether the player was asked]
    return [(order_pick,), 0, None, order_exit, [0, steps, actions, None, False]]


def _order_available(s, data) -> list:
    return [k for k, (cond, _, n) in enumerate(data[1])
            if not data[0] >> k & 1 and (cond is None or cond(s, [None] * n))]


def order_pick(s, fr):
    """The steps not done whose condition holds: none ends the moment, one runs, several ask."""
    data = fr[4]
    avail = _order_available(s, data)
    data[4] = len(avail) > 1
    if len(avail) == 1:
        data[3] = avail[0]
    elif avail:
        s.ask(s.me, tuple(data[2][k] for k in avail))


def order_exit(s, fr):
    """Run the chosen step, then pick again; a question that a reaction made moot is asked again."""
    data = fr[4]
    k = data[3]
    if k is None:
        if data[4]:  # asked, but no step was chosen (a reaction changed the game): look again
            fr[1] = 0
            s.stack.append(fr)
        return
    data[3] = None
    data[0] |= 1 << k
    fr[1] = 0
    s.stack.append(fr)
    _, body, n = data[1][k]
    s.stack.append([body, 0, [None] * n, None, None])


def _order_frame(s):
    for f in reversed(s.stack):
        if f[3] is order_exit:
            return f
    return None


def order_legal(k: int, cond, nlocals: int, action_id: int):
    """The move 'this step next': legal while the step is not done and its condition holds."""
    def legal(s, out):
        f = _order_frame(s)
        if f is not None and not f[4][0] >> k & 1 and (cond is None or cond(s, [None] * nlocals)):
            out.append(action_id)
    return legal


def order_choice(k: int):
    """The body of the move 'this step next': tell the waiting steps which one comes now."""
    def op(s, fr):
        f = _order_frame(s)
        if f is not None:
            f[4][3] = k
    return op
