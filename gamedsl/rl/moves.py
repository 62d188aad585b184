"""Move ids as a seat can tell them apart: copies of one card named by kind and zone, not by copy.

gamedsl gives the move of a card the id of the very card, and offers one move per kind of card and
zone. A seat often cannot know which copy it holds (it saw a card like another go by), so two
states it cannot tell apart could offer it different ids for the same move. The adapters use
these ids instead: the move of a card takes the id of its kind's first copy, or of the next
copies when the kind is legal from several zones (in the order of the zones).
"""
from __future__ import annotations

from ..language import types as T


class MoveIds:
    """The legal moves of a game's states as ids a seat can tell apart: `legal(state)`."""

    def __init__(self, game):
        self.game = game
        twins = game.prog.twins or ()
        # per card kind (its first copy): its copies, in order (none if no two cards are alike)
        self.copies = {} if not any(t != k for k, t in enumerate(twins)) else \
            {kind: [c for c, t in enumerate(twins) if t == kind] for kind in set(twins)}

    def legal(self, state) -> dict:
        """The legal moves now: the adapters' id -> gamedsl's."""
        legal = state.legal_actions()
        if not self.copies:
            return {a: a for a in legal}
        out, groups = {}, {}
        decoded, loc, twins = self.game.decoded, state.loc, self.game.prog.twins
        for a in legal:
            act, arg = decoded[a]
            if act.param_type == T.CARD:  # (a move of several choices: its card's stride, the others' part)
                stride = next(st for _, typ, st, *_ in act.params if typ == T.CARD) if act.params else 1
                rest = a - act.first_id - arg * stride
                groups.setdefault((act.first_id, twins[arg], stride, rest), []).append((loc[arg], a))
            else:
                out[a] = a
        for (first, kind, stride, rest), found in groups.items():
            for (_, a), copy in zip(sorted(found), self.copies[kind]):
                out[first + copy * stride + rest] = a
        return out
