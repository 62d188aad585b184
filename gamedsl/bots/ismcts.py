"""The ISMCTS bot: information-set Monte Carlo tree search (single observer, Cowling, Powley &
Whitehouse 2012) over worlds consistent with what it knows."""
from __future__ import annotations

import math
import random
import time

from ..engine.knowledge import SEARCH, Redealer

SEATS = 16  # a tree edge is keyed by move * SEATS + the player who makes it


class Node:
    """A node of the search tree: the moves made from the root to reach it (in any world).

    `total` and `visits` count the playouts through it, scored for the player whose move led here;
    `avail` counts how often that move was available when its parent was visited (a world decides
    which moves are legal), which UCB uses in place of the parent's visits."""

    __slots__ = ("children", "visits", "total", "avail", "player")

    def __init__(self, player: int):
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.player = player


class IsmctsAgent:
    """Searches a tree of moves over sampled worlds and plays the move it visited most.

    Each iteration deals one world with the Redealer (the hidden cards dealt again, the others'
    answers in an open window taken back, a fresh random future) and walks the tree in it from
    the root: at each decision, the player who moves there picks by UCB1 the move best for them
    among the moves legal in this world (a move's count of chances is how often it was legal);
    the first move not yet in the tree is added, then the game is played on at random (the
    playout) to its end, or for `cut` moves and scored by the game's `heuristic`. Every node on
    the way counts the result for the player who moved into it. Chance (shuffles, random picks,
    reaction times) is drawn from each world's own future; a reaction or a race answer is a move
    of the player who makes it; a move that asks its player for more is followed by their next
    decision. `iterations` bounds the search, or else `seconds` per move. Between two of its own
    moves, when every move made in between was seen in full, the subtree it reached is kept and
    the new search continues it (unless `fresh`); not in a game with reaction windows, where who
    was asked and what they answered is not seen, so that even whether to keep it would tell.
    """

    name = "ismcts"

    def __init__(self, seed: int = 0, iterations: int | None = 1000, seconds: float | None = None,
                 cut: int | None = None, heuristic: bool = False, c: float | None = None, fresh: bool = False,
                 rank: bool = False):
        self.rng = random.Random(seed)
        self.iterations = (iterations or 1000) if seconds is None else None
        self.seconds = seconds
        self.cut = cut
        self.biased = heuristic
        # UCB's exploration: a cut playout's score is softer than a win or a loss, and less of it
        # suits it (measured against greedy in the seed games: with a cut 0.5 did better, without 1.0)
        self.c = c if c is not None else 1.0 if cut is None else 0.5
        self.reuse = not fresh
        self.rank = rank
        self.spread, self.cuts = 0.0, 0  # the sum of |heuristic - the others' mean| over cut playouts, and their count
        self.kept = None  # (game, seat, the index of the move chosen, the move, the node after it)
        self.iterations_done = 0  # by the last search, reused ones not counted
        self.reused = 0  # the playouts the last search found in the subtree it kept

    # ---- choosing a move
    def choose(self, state) -> int:
        legal = state.legal_actions()
        me = state.current_player()
        self.reused = self.iterations_done = 0
        if len(legal) == 1:
            self.kept = None
            return legal[0]
        root = self._kept_root(state, me) or Node(-1)
        self.reused = root.visits
        worlds = Redealer(state, me)
        last_fit = None
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        n = 0
        while True:
            if deadline is None:
                if n >= self.iterations:
                    break
            elif n > 0 and time.perf_counter() >= deadline:
                break
            # Until one world fits what was shown, try harder (never the real cards: with no fit at
            # all, nothing is known to search on, and a legal move is played at random)
            if worlds:
                world = worlds.deal(self.rng, reseed=True, past=False, tries=20 if last_fit else 200,
                                    search=0 if last_fit else SEARCH)
            else:  # nothing hidden: the state itself, with a fresh future
                world = state.clone(past=False)
                world.reseed(self.rng.getrandbits(64))
            if world is None and last_fit is None:
                self.iterations_done, self.kept = n, None
                return legal[self.rng.randrange(len(legal))]
            if world is None:  # no deal fits this time: the last that did, with another future
                world = last_fit.clone(past=False)
                world.reseed(self.rng.getrandbits(64))
            elif last_fit is None:
                last_fit = world.clone(past=False)
            self._iterate(root, world)
            n += 1
        self.iterations_done = n
        best = max(sorted(legal), key=lambda a: _rank(root.children.get(a * SEATS + me)))
        self.kept = (state.game, me, state.moves, best, root.children.get(best * SEATS + me)) if self.reuse else None
        return best

    def _iterate(self, root: Node, world):
        """One iteration in one world: select, expand, play out, back up."""
        rng = self.rng
        path = []
        node = root
        c = self.c
        while not world.terminal:
            player = world.pending[0]
            legal = world.pending[1]
            children = node.children
            untried = []
            best, best_value = None, -math.inf
            for a in legal:
                child = children.get(a * SEATS + player)
                if child is None:
                    untried.append(a)
                    continue
                child.avail += 1
                if not untried:
                    value = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                    if value > best_value:
                        best, best_value = child, value
                        move = a
            if untried:
                move = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                child = Node(player)
                child.avail = 1
                children[move * SEATS + player] = child
                world.apply_action(move)
                path.append(child)
                break
            world.apply_action(move)
            path.append(best)
            node = best
        result = self._playout(world)
        for node in path:
            node.visits += 1
            node.total += result[node.player]
        root.visits += 1

    def _playout(self, world) -> list[float]:
        """Play on from here, at random (or biased by the heuristic), to the end or for `cut` moves:
        each player's score in [-1, 1]."""
        rng = self.rng
        left = self.cut if self.cut is not None else -1
        biased = self.biased and world.prog.heuristic is not None
        while not world.terminal and left != 0:
            legal = world.pending[1]
            if biased and len(legal) > 1 and rng.random() < 0.5:
                move = _best_of(world, legal, rng)
            else:
                move = legal[rng.randrange(len(legal))] if len(legal) > 1 else legal[0]
            world.apply_action(move)
            left -= 1
        if world.terminal:
            return world.returns()
        return _ranks(world) if self.rank else self._smooth(world)

    def _smooth(self, world) -> list[float]:
        """Scores of an unfinished game by the heuristic: each player's lead over the others' mean,
        in units of the typical lead seen so far, squashed into -1..1 (tanh)."""
        n = world.np
        if world.prog.heuristic is None or n < 2:
            return [0.0] * n
        values = [world.evaluate(p) for p in range(n)]
        total = sum(values)
        leads = [v - (total - v) / (n - 1) for v in values]
        self.spread += sum(map(abs, leads))
        self.cuts += n
        scale = self.spread / self.cuts or 1.0
        return [math.tanh(lead / scale) for lead in leads]

    # ---- keeping the tree between own moves
    def _kept_root(self, state, me: int):
        """The subtree reached since this bot's last move, if every move since was seen in full by it."""
        kept, self.kept = self.kept, None
        if kept is None:
            return None
        game, seat, index, move, node = kept
        if node is None or game is not state.game or seat != me or index < state.hbase:
            return None
        if game.prog.reactions:  # who was asked in a reaction window, and what they answered, is not seen
            return None
        history = state.history
        if index - state.hbase >= len(history) or history[index - state.hbase] != move:
            return None  # its move was not the one played
        strings = game._strings
        hidden_from = state.window_start if state.window is not None else state.moves
        for k in range(index + 1, state.moves):
            action = history[k - state.hbase]
            player = state.card_moves[k - state.hbase][0]
            if player != me and (k >= hidden_from or game.move_text(state, k, me) != strings[action]):
                return None  # a move it did not see in full (a secret answer not yet revealed): its node cannot be told
            node = node.children.get(action * SEATS + player)
            if node is None:
                return None
        return node


def _rank(node) -> tuple:
    """How good a root move looks: the most visited, then the best average."""
    if node is None:
        return (0, -math.inf)
    return (node.visits, node.total / node.visits if node.visits else -math.inf)


def _ranks(world) -> list[float]:
    """Scores of an unfinished game by the heuristic: from -1 (the lowest) to 1 (the highest), by rank."""
    n = world.np
    if world.prog.heuristic is None or n < 2:
        return [0.0] * n
    values = [world.evaluate(p) for p in range(n)]
    scores = []
    for v in values:
        below = sum(1 for w in values if w < v)
        equal = sum(1 for w in values if w == v) - 1
        scores.append(2.0 * (below + 0.5 * equal) / (n - 1) - 1.0)
    return scores


def _best_of(world, legal: list, rng, k: int = 3) -> int:
    """Of up to k moves drawn at random, the one after which the mover's heuristic is best."""
    player = world.pending[0]
    best, best_value = None, (-math.inf, -math.inf)
    for _ in range(min(k, len(legal))):
        move = legal[rng.randrange(len(legal))]
        after = world.clone(past=False)
        after.apply_action(move)
        value = after.value(player)  # a win first, whatever the heuristic's scale
        if value > best_value:
            best, best_value = move, value
    return best
