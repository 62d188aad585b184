"""The helpers a game's generated module calls by name (`_next`, `_div`, `_can_make`...), and the
errors they raise: the runtime library of the compiled rules."""
from __future__ import annotations

import functools
import itertools

from ..errors import GameRuntimeError
from ..language.program import Spec
from ..language.tables import KEPT as TABLES_KEPT

UNSET = object()  # a hoisted value not computed yet
# The version of what the rules that change rules read (language/watch.py): a new number at each
# change, unique over every state, so a state and its copies share the answers of one version.
next_version = itertools.count(1).__next__

LOOP_LIMIT = 100_000  # a single 'repeat' count past this is surely a mistake
POWER_LIMIT = 10_000  # an exponent past this is surely a mistake (and would take forever)


def rotate(items: tuple, first) -> tuple:
    """The items starting at `first` (players in turn order from a given seat)."""
    if first in items:
        i = items.index(first)
        return items[i:] + items[:i]
    return items


ROTATIONS: dict = {}  # (items, first) -> rotate(items, first), read in place by the generated code


def rotate_kept(key: tuple) -> tuple:
    """rotate(*key), kept in ROTATIONS (a few thousand at most: tables of players and their seats)."""
    found = rotate(*key)
    if len(ROTATIONS) < 4096:
        ROTATIONS[key] = found
    return found


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


def divide(a, b, op):
    if b == 0:
        raise GameRuntimeError("division by zero")
    return a // b if op == "//" else a % b


def above(s, card: int) -> list:
    """The cards on top of a card in its zone, from the one just above it to the top."""
    cards = s.z[s.loc[card]]
    return cards[cards.index(card) + 1:]


def partners(s, p: int, teams: int) -> list:
    """The other players of p's team (seat k plays in team k mod teams), in seat order."""
    return [q for q in range(p % teams, s.np, teams) if q != p]


def card_of(table: dict, key: tuple) -> int:
    """The card with these attribute values (card(9, spades) when the values are not constants)."""
    card = table.get(key)
    if card is None:
        raise GameRuntimeError("no card of the game has these values")
    return card


def as_cards(s, x):
    """A function's argument given where cards are expected: a zone's cards, or the list itself."""
    if isinstance(x, int):  # a pile whose order is secret ('contents') is gone through in the cards' order
        return sorted(s.z[x]) if x in s.game.secret_order else s.z[x]
    return x


def tops(s, zones: tuple) -> tuple:
    """The top card of each zone that has cards."""
    z = s.z
    return tuple(z[k][-1] for k in zones if z[k])


# ---- values that count as one, patterns
def classes_of(s, attr: str, owner: int):
    """Per value of an attribute, the class it counts as for `owner` under the `same` changes in
    force (merged transitively); None when no such change is in force. Worked out once until what
    the changes read changes."""
    changes = s.prog.same_changes.get(attr)
    if not changes:
        return None
    cache = s.pcache if s.pver is s.ver else rules_cache(s)  # rules_cache, inlined: `same` asks often
    key = ("classes", attr, owner, s.me)
    found = cache.get(key, cache)
    if found is cache:
        found = cache[key] = _classes_of(s, attr, owner, changes)
    return found


def _classes_of(s, attr: str, owner: int, changes):
    e = [owner]
    active = tuple(values for cond, values in changes if cond(s, e))
    if not active:
        return None
    return _merged(s.prog.attr_sizes[attr], active)


@functools.lru_cache(maxsize=1024)
def _merged(n: int, groups: tuple) -> tuple:
    """The class of each of n values when each group of values counts as one (transitively): the
    same tuple for the same groups, so that Specs built from it compare at once."""
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for values in groups:
        root = find(values[0])
        for v in values[1:]:
            parent[find(v)] = root
    return tuple(find(x) for x in range(n))


def same(s, attr: str, a: int, b: int, owner: int) -> bool:
    """Whether two values of an attribute are the same, or count as one for `owner`."""
    if a == b:
        return True
    if a < 0 or b < 0:
        return False
    classes = classes_of(s, attr, owner)
    return classes is not None and classes[a] == classes[b]


def rules_cache(s) -> dict:
    """The answers of the rules that change rules (parameters, patterns) for the state's version of
    what they read; shared with the state's copies until one of them changes it."""
    if s.pver is not s.ver:
        s.pcache, s.pver = {}, s.ver
    return s.pcache


def pattern_spec(s, k: int, owner: int):
    """What pattern k asks of `owner` now (a Spec), or None while it does not count; worked out
    once until what it reads changes."""
    cache = rules_cache(s)
    key = ("spec", k, owner, s.me)
    found = cache.get(key, cache)
    if found is cache:
        found = cache[key] = _spec_now(s, k, owner)
    return found


SPECS_KEPT = 4096  # the Specs a state and its copies keep, by the versions of what they read


def _spec_now(s, k: int, owner: int):
    """Pattern k's Spec for `owner`, worked out again only when something it reads has changed
    since (a change of the rules elsewhere, whose turn it is, leaves it as it was): kept by the
    versions of the watched zones and variables it reads (language/watch.py: reads_by_pattern)."""
    reads = s.prog.pattern_reads
    if reads is None:  # what it reads cannot be told
        return _pattern_spec(s, s.prog.patterns[k], owner)
    wv = s.wv
    key = (k, owner, s.me, *[wv[i] for i in reads[k]])
    specs = s.specs
    found = specs.get(key, specs)
    if found is specs:
        if len(specs) >= SPECS_KEPT:
            specs.clear()
        found = specs[key] = _pattern_spec(s, s.prog.patterns[k], owner)
    return found


def _pattern_spec(s, pat, owner: int):
    e = [owner]
    for cond in pat.conds:
        if not cond(s, e):
            return None
    size = max(1, pat.size(s, e))  # a pattern is at least one card, whatever the modifiers say
    most = 0
    if pat.most is not None:
        most = pat.most(s, e)
        most = most if most > size else 0  # `N to M cards` with M not above N: N cards
    withs = ()
    for a, i, cond, count in pat.withs:
        if cond is None or cond(s, e):
            n = 1 if count is None else count(s, e)
            if n > 0:
                withs += ((a, i, n),)
    cache = rules_cache(s)
    key = ("values", owner, s.me)  # the wild cards and merged values are the same for every pattern
    changes = cache.get(key)
    if changes is None:
        changes = cache[key] = _value_changes(s, owner)
    return _spec(size, withs, changes[0], changes[1], most)


@functools.lru_cache(maxsize=4096)
def _spec(size: int, withs: tuple, wild: tuple, classes: tuple, most: int) -> Spec:
    """The Spec of these arguments, one object for equal ones: a version of the rules that leaves a
    pattern as it was gives the same Spec, whose memo of answers (runtime.can_make) is found at once."""
    return Spec(size, withs, wild, classes, most)


def _value_changes(s, owner: int):
    """The `wild` and `same` changes in force for `owner`: ((attr, wild cards), ...), ((attr, classes), ...)."""
    e = [owner]
    wild = []
    for attr, changes in s.prog.wild_changes.items():
        cards = _union(tuple(c for cond, c in changes if cond(s, e)))
        if cards:
            wild.append((attr, cards))
    classes = []
    for attr in s.prog.same_changes:
        found = classes_of(s, attr, owner)
        if found is not None:
            classes.append((attr, found))
    return tuple(wild), tuple(classes)


@functools.lru_cache(maxsize=1024)
def _union(sets: tuple) -> frozenset:
    """The cards of any of these sets (one object for the same sets)."""
    return frozenset().union(*sets)


def can_make(s, k: int, chosen, pool, owner: int) -> bool:
    """Pattern k is made by the cards `chosen` plus some of `pool`, for player `owner`."""
    cache = s.pcache if s.pver is s.ver else rules_cache(s)  # rules_cache, inlined: asked very often
    answers = cache.get((k, owner, s.me))
    if answers is None:
        answers = cache[k, owner, s.me] = pattern_answers(s, k, owner)
    if answers is NO_ANSWERS:
        return False
    # the answers of one pattern's Spec outlive a change of the rules (a new version) that leaves
    # the Spec as it was: they depend on the Spec and the cards alone
    key = (tuple(chosen), tuple(pool)) if chosen else tuple(pool)
    found = answers.get(key)
    if found is None:
        found = answers.find(chosen, pool, key)
    return found


NO_ANSWERS = object()  # the answers of a pattern that does not count now: always False


def pattern_answers(s, k: int, owner: int):
    """The memo of pattern k's answers for `owner` now (shared by every version that gives it the
    same Spec), or NO_ANSWERS while the pattern does not count."""
    spec = pattern_spec(s, k, owner)
    if spec is None:
        return NO_ANSWERS
    return s.game.matcher.answers(s.prog.patterns[k].shape, spec)


def makes(s, k: int, cards, owner: int) -> bool:
    """Exactly these cards make pattern k, for player `owner`: for a pattern of one size, can_make
    with every card chosen and none to choose from, answered from the same memo."""
    cache = s.pcache if s.pver is s.ver else rules_cache(s)  # (as can_make: asked per legal move)
    answers = cache.get((k, owner, s.me))
    if answers is None:
        answers = cache[k, owner, s.me] = pattern_answers(s, k, owner)
    if answers is NO_ANSWERS:
        return False
    spec = answers.spec
    if spec.most:  # a range of sizes: the Spec of this many cards
        return s.game.matcher.makes_spec(answers.shape, spec, cards)
    if len(cards) != spec.size:
        return False
    key = (tuple(cards), ())
    found = answers.get(key)
    if found is None:
        found = answers.find(cards, (), key)
    return found


def arrangement(s, ks: tuple, cards, values: tuple, owner: int) -> tuple:
    """(deadwood, melds) of the best arrangement of the cards into melds of patterns ks, for player
    `owner`, a card left out costing its number in the value table `values` (engine/patterns.py)."""
    pats = []
    for k in ks:
        spec = pattern_spec(s, k, owner)
        if spec is not None:  # a pattern that does not count now makes no meld
            pats.append((s.prog.patterns[k].shape, spec))
    return s.game.matcher.arrange(tuple(pats), values, cards, lambda: _hand_of(s, cards))


def _hand_of(s, cards):
    """The zone's cards when `cards` are all in one zone that holds one card more (a hand less a
    card): the subsets asked next are likely the hand less its other cards (patterns.Arranger)."""
    if not cards:
        return None
    loc = s.loc
    zone = loc[next(iter(cards))]
    whole = s.z[zone]
    if len(whole) != len(cards) + 1 or any(loc[c] != zone for c in cards):
        return None
    return whole


def deadwood(s, ks: tuple, cards, values: tuple, owner: int) -> int:
    """The least total value of the cards left out of any arrangement into melds."""
    return arrangement(s, ks, cards, values, owner)[0]


def melded(s, ks: tuple, cards, values: tuple, owner: int) -> tuple:
    """The cards in the melds of the best arrangement, in the order given."""
    inside = set().union(*arrangement(s, ks, cards, values, owner)[1])
    return tuple(c for c in cards if c in inside)


def first_meld(s, ks: tuple, cards, values: tuple, owner: int) -> tuple:
    """The cards of the first meld of the best arrangement (the one of its lowest card), in the
    order given; none when no meld is worth making."""
    melds = arrangement(s, ks, cards, values, owner)[1]
    inside = set(melds[0]) if melds else ()
    return tuple(c for c in cards if c in inside)


def card_set(tables: dict, key: tuple, build):
    """The set of the cards that pass a condition read by a table (language/tables.py), for the
    values `key` it reads besides the card; None when it cannot be had (the condition fails for
    some card, a value is no key of a dict, or too many sets are kept): the code as written runs."""
    try:
        found = tables.get(key, UNSET)
        if found is UNSET:
            found = None
            if len(tables) < TABLES_KEPT:
                tables[key] = None  # kept None should the set fail
                found = tables[key] = build(*key)
        return found
    except Exception:  # noqa: BLE001 - the code as written runs instead, failing where it fails
        return None


def no_top(s, zone: int):
    """`top` of an empty zone (the generated code reads a zone's last card itself)."""
    raise GameRuntimeError(f"zone '{s.game.zone_instance_name(zone)}' is empty: it has no top card")


def no_bottom(s, zone: int):
    raise GameRuntimeError(f"zone '{s.game.zone_instance_name(zone)}' is empty")


def nth(items, n: int, from_end: bool, where: str | None):
    """The n-th element of a sequence, counting from 1 (from its end: a zone's top is its last card)."""
    if not 1 <= n <= len(items):
        what = f"from the {where} of a zone of {len(items)} card{'s' if len(items) != 1 else ''}" if where else \
            f"of a list of {len(items)}"
        raise GameRuntimeError(f"there is no element {n} {what}" if not where else f"there is no card {n} {what}")
    return items[-n] if from_end else items[n - 1]


def nth_any(s, x, n: int, top):
    """nth of a function's argument: a zone (an int) counts from its top (or as `top` says), a list from its first."""
    if isinstance(x, int):
        top = True if top is None else top
        return nth(s.z[x], n, top, "top" if top else "bottom")
    if top is not None:
        raise GameRuntimeError("nth's 'top' or 'bottom' is only for a zone, and this is a list")
    return nth(x, n, False, None)


def ends(cards, n: int, top: bool) -> tuple:
    """The n cards at the top of a zone (the top first) or at its bottom (the bottom first); fewer if it holds fewer."""
    if n < 0:
        raise GameRuntimeError(f"cannot take {n} cards: a number of cards is 0 or more")
    if top:
        return tuple(reversed(cards[max(0, len(cards) - n):])) if n else ()
    return tuple(cards[:n])


def numbers(items, most: int) -> tuple:
    """A numbered move's choices, each checked to be one of its move ids (0 to `most`)."""
    if items.__class__ is range and items.step == 1:  # (`1..count(me.hand)`): its ends tell
        bad = None if not items else items.start if not 0 <= items.start <= most else \
            most + 1 if items.stop - 1 > most else None
    else:
        items = tuple(items)
        bad = next((n for n in items if not 0 <= n <= most), None)
    if bad is not None:
        raise GameRuntimeError(f"a move's number must be between 0 and {most} (the most the check found "
                               f"for this action), not {bad}")
    return tuple(items)


MEMO_KEPT = 4096  # the answers a function of its arguments alone keeps (language/calls.py)


def memo(s, fn, answers: dict, args: tuple, loose: tuple = ()):
    """A function that reads nothing but its arguments, answered once per arguments; a list answer
    is given as a copy (a rule may add to the list it was given). The arguments at `loose` are of
    a kind known only now: a zone (an int there) is no key (its cards change), a list is keyed as
    a tuple."""
    for k in loose:
        x = args[k]
        if x.__class__ is int:
            return fn(s, *args)
        if x.__class__ is list:
            args = (*args[:k], tuple(x), *args[k + 1:])
    found = answers.get(args, UNSET)
    if found is UNSET:
        if len(answers) >= MEMO_KEPT:
            answers.clear()
        found = answers[args] = fn(s, *args)
    return found[:] if found.__class__ is list else found


def said_to(said, player):
    """A line said to one player alone (`say "..." to p`): the others never read it (view.Said.to)."""
    if player is None:
        raise GameRuntimeError("there is no player to say it to (nobody)")
    said.to = player
    return said


def namespace() -> dict:
    """The names a generated module reads besides its own functions and tables."""
    return {"_rotate": rotate, "_RT": ROTATIONS, "_rotate_kept": rotate_kept,
            "_div": divide, "_seat": seat, "_others": others, "_next": next_seat,
            "_U": UNSET, "_repeat_count": repeat_count, "_pow": power, "_card_of": card_of,
            "_as_cards": as_cards, "_above": above, "_partners": partners, "_tops": tops, "_same": same, "_can_make": can_make, "_makes": makes,
            "_deadwood": deadwood, "_melded": melded, "_first_meld": first_meld,
            "_no_card": lambda s: -1, "_nobody": lambda s: None, "_zero": lambda s: 0,
            "_next_version": next_version, "_no_top": no_top, "_no_bottom": no_bottom,
            "_ONCE": (None,), "_card_set": card_set, "_nth": nth, "_nth_any": nth_any, "_ends": ends, "_numbers": numbers,
            "_said_to": said_to, "_memo": memo}
