"""Where the rules that never fired do fire: a rule no fairness game set off may be dead, rare, or
one that cannot fire at this player count or with these options (Law's "and the hand of another
player" at 2 players, its first game's setup with first_game=false). Each is looked for in a few
games of random play at the same table (the bots may only avoid it), at every other player count
the game allows, and with every other value of each option that is a choice or true/false; the
report then says, rule by rule, where it fired (docs/analysis.md, Coverage).
"""
from __future__ import annotations

REACH_GAMES = 30  # random games per setting


def never_fired(records: list, elements) -> list[int]:
    """The elements no game of `records` set off, in index order."""
    fired: set[int] = set()
    for r in records:
        fired.update(r["fired"])
    return [i for i in range(len(elements.elements)) if i not in fired]


def settings(game, players: int, options: dict) -> list[tuple[str, int, dict]]:
    """(label, players, options) of every setting to look in: random play as given, each other
    player count, each other value of each option that is a choice or true/false."""
    out = [("random play", players, options)]
    out += [(f"{n} players", n, options) for n in range(game.min_players, game.max_players + 1) if n != players]
    for name, value in options.items():
        choices = game.prog.option_choices.get(name)
        others = [not value] if isinstance(value, bool) else \
            [k for k in range(len(choices)) if k != value] if choices is not None else []
        out += [(f"{name}={game.option_text(name, x)}", players, {**options, name: x}) for x in others]
    return out


def tasks(players: int, seed: int) -> list[tuple]:
    """The random games of one setting, as the fairness games' tasks (set, index, seed, seats)."""
    return [("reach", i, seed + i, ("random",) * players) for i in range(REACH_GAMES)]


def look(game, players: int, options: dict, never: list[int], seed: int, play) -> dict[int, list[str]]:
    """Per element of `never`, the labels of the settings in which some game set it off (an empty
    list: none of them). `play(players, options, tasks)` plays tasks and returns their records."""
    found: dict[int, list[str]] = {i: [] for i in never}
    for label, n, opts in settings(game, players, options):
        fired: set[int] = set()
        for r in play(n, opts, tasks(n, seed)):
            fired.update(r["fired"])
        for i in never:
            if i in fired:
                found[i].append(label)
    return found


def where_text(labels: list[str]) -> str:
    """Where a rule fired, in words: "fires at 3 players and with first_game=true", "fires in random play"."""
    if not labels:
        return ""
    counts = [x for x in labels if x.endswith(" players")]
    options = [x for x in labels if "=" in x]
    parts = (["in random play"] if "random play" in labels else []) + \
        ([f"at {', '.join(x.removesuffix(' players') for x in counts)} players"] if counts else []) + \
        ([f"with {', '.join(options)}"] if options else [])
    return "fires " + " and ".join(parts)
