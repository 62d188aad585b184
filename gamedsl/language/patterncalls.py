"""The built-ins that read a game's patterns and arrangements: same, has, makes, can_make, deadwood,
melded and first_meld, each read for a player (its `owner`). A mixin of the ExpressionCompiler."""
from __future__ import annotations

from . import model as m
from . import types as T
from ..errors import did_you_mean
from .builtins import _NOPE


class PatternCalls:
    def owner_arg(self, e, scope, k: int) -> str:
        """The optional player a rule is read for (its `owner`): argument k, or `me`."""
        if len(e.args) > k:
            return self.fn_code(e.args[k], scope, T.PLAYER)
        return "s.me"

    def call_same(self, e, scope):
        """same(a, b [, p]): two values of one attribute are the same, or count as one for player p."""
        if len(e.args) not in (2, 3) or e.for_var or e.where or e.by:
            self.c.error("'same' compares two values: same(c.suit, hearts), or same(c.suit, hearts, p)", e.span)
            return _NOPE
        a, at = self.expr(e.args[0], scope)
        b, bt = self.expr(e.args[1], scope, at)
        if T.is_value(bt) and not T.is_value(at):
            a, at = self.expr(e.args[0], scope, bt)
        if not T.is_value(at) or at != bt:
            self.c.error(f"'same' compares two values of one card attribute, not {T.describe(at)} and "
                       f"{T.describe(bt)}", e.span)
            return _NOPE
        return f"_same(s, {at[6:]!r}, {a}, {b}, {self.owner_arg(e, scope, 2)})", T.BOOL

    def pattern_arg(self, e, k: int):
        arg = e.args[k] if len(e.args) > k else None
        if not isinstance(arg, m.Name) or arg.name not in self.c.pattern_index:
            self.c.error(f"'{e.func}' needs the name of a pattern here", (arg or e).span,
                       did_you_mean(arg.name, self.c.pattern_index) if isinstance(arg, m.Name) else None)
            return None
        return self.c.pattern_index[arg.name]

    def cards_arg(self, arg, scope) -> str:
        """A zone, a card or a list of cards, as a sequence of cards."""
        code, typ = self.expr(arg, scope)
        if typ == T.ZONE:
            return f"s.z[{code}]"
        if typ == T.CARD:
            return f"({code},)"
        if typ == T.ANY:  # a function's argument: a zone or a list of cards
            return f"_as_cards(s, {code})"
        if T.element(typ) not in (T.CARD, T.ANY):
            self.c.error(f"expected cards (a zone or a list), found {T.describe(typ)}", arg.span)
        return code

    def _pattern_call(self, e, scope, nzones: int, what: str):
        if len(e.args) not in (nzones + 1, nzones + 2) or e.for_var or e.where or e.by:
            self.c.error(f"'{e.func}' takes {what}", e.span)
            return _NOPE
        k = self.pattern_arg(e, nzones)
        if k is None:
            return _NOPE
        zones = [self.cards_arg(a, scope) for a in e.args[:nzones]]
        owner = self.owner_arg(e, scope, nzones + 1)
        return k, zones, owner

    def call_has(self, e, scope):
        """has(Z, P [, p]): some cards of Z make pattern P (read for player p, by default me)."""
        found = self._pattern_call(e, scope, 1, "cards and a pattern: has(me.hand, flush)")
        if found == _NOPE:
            return _NOPE
        k, (zone,), owner = found
        return f"_can_make(s, {k}, (), {zone}, {owner})", T.BOOL

    def call_makes(self, e, scope):
        """makes(Z, P [, p]): exactly the cards of Z make pattern P."""
        found = self._pattern_call(e, scope, 1, "cards and a pattern: makes(me.meld, flush)")
        if found == _NOPE:
            return _NOPE
        k, (zone,), owner = found
        return f"_makes(s, {k}, {zone}, {owner})", T.BOOL

    def call_can_make(self, e, scope):
        """can_make(A, B, P [, p]): the cards of A, with some more of B, make pattern P."""
        found = self._pattern_call(e, scope, 2, "the cards chosen, the cards to add from, and a pattern: "
                                   "can_make(me.meld + [c], me.hand, flush)")
        if found == _NOPE:
            return _NOPE
        k, (chosen, pool), owner = found
        return f"_can_make(s, {k}, {chosen}, {pool}, {owner})", T.BOOL

    def _arrangement_call(self, e, scope):
        """`F(Z, P or Q ... [, p] by TABLE)`: (the cards' code, the patterns' numbers, the player's
        code, the table's code), or None after an error."""
        form = f"cards, patterns joined by 'or', and a value table: {e.func}(me.hand, run or set by points)"
        if len(e.args) not in (2, 3) or e.for_var or e.where or e.descending:
            self.c.error(f"'{e.func}' takes {form}", e.span)
            return None
        names, stack = [], [e.args[1]]
        while stack:
            x = stack.pop()
            if isinstance(x, m.Logic) and x.op == "or":
                stack += [x.right, x.left]
            elif isinstance(x, m.Name) and x.name in self.c.pattern_index:
                names.append(self.c.pattern_index[x.name])
            else:
                self.c.error(f"'{e.func}' needs the name of a pattern here, or several joined by 'or'", x.span,
                             did_you_mean(x.name, self.c.pattern_index) if isinstance(x, m.Name) else
                             "as in 'run or set'")
                return None
        if not isinstance(e.by, m.Name) or e.by.name not in self.c.value_names:
            self.c.error(f"'{e.func}' needs 'by' and the value table that says what a card left out costs",
                         (e.by or e).span, did_you_mean(e.by.name, self.c.value_names)
                         if isinstance(e.by, m.Name) else f"as in '{e.func}(me.hand, run or set by points)'")
            return None
        cards = self.cards_arg(e.args[0], scope)
        owner = self.owner_arg(e, scope, 2)
        return cards, tuple(dict.fromkeys(names)), owner, f"V_{e.by.name}"

    def _arranged(self, e, scope, helper: str, typ: str):
        found = self._arrangement_call(e, scope)
        if found is None:
            return _NOPE
        cards, ks, owner, table = found
        return f"{helper}(s, {ks!r}, {cards}, {table}, {owner})", typ

    def call_deadwood(self, e, scope):
        """deadwood(Z, P or Q [, p] by T): the least total of T over the cards of Z left out of melds."""
        return self._arranged(e, scope, "_deadwood", T.NUM)

    def call_melded(self, e, scope):
        """melded(Z, P or Q [, p] by T): the cards of Z in the melds of its best arrangement."""
        return self._arranged(e, scope, "_melded", T.list_of(T.CARD))

    def call_first_meld(self, e, scope):
        """first_meld(Z, P or Q [, p] by T): the cards of the first meld of Z's best arrangement."""
        return self._arranged(e, scope, "_first_meld", T.list_of(T.CARD))

    def call_combinations(self, e, scope):
        """combinations(Z, P or Q by ATTR) is a move's choice of several cards (language/combinations.py), not a value."""
        self.c.error("'combinations' lists the choices of a move: it is an action's domain, not a value", e.span,
                     "as in 'action play \"play {cs}\" (cs in combinations(me.hand, pair or straight by rank))'")
        return _NOPE
