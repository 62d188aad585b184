"""What the pages are told of the served game, from its file: the lobby's form (players, options,
seat kinds) and the table's Rules and moves panel (the file's opening comment, each move with the
reasons it may be refused) and the colours its cards are drawn in."""
from __future__ import annotations

from ...language.actions import NO_REACTION
from ...language.flow import DONE
from ..render import card_colours


def game_info(game, seat_kinds) -> dict:
    """The served game as /api/game answers it."""
    options = []
    for name, (default, text) in game.prog.options.items():
        choices = game.prog.option_choices.get(name)
        options.append({"name": name, "default": game.option_text(name, default), "help": text,
                        "choices": choices, "kind": "choice" if choices else
                        "bool" if isinstance(default, bool) else "number"})
    moves = [{"move": act.title, "anytime": act.anytime, "when": [m for _, m, _ in act.requires if m]}
             for act in game.prog.actions if act.step < 0 and act.name not in (NO_REACTION, DONE)]
    return {"name": game.name, "min_players": game.min_players, "max_players": game.max_players,
            "options": options, "seat_kinds": list(seat_kinds),
            "players": [game.player_name(k) for k in range(game.max_players)],
            "about": about(game.prog.text), "moves": moves, "colours": card_colours(game)}


def about(text: str) -> list[str]:
    """The paragraphs of a game file's opening comment (its rules, as the designer wrote them):
    the comment lines before its first line of code, a line of only '#' between paragraphs."""
    paragraphs, lines = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        words = stripped.lstrip("#").strip()
        if words.startswith("- ") and lines:  # a list's item: a paragraph of its own
            paragraphs.append(" ".join(lines))
            lines = []
        if words:
            lines.append(words)
        elif lines:
            paragraphs.append(" ".join(lines))
            lines = []
    if lines:
        paragraphs.append(" ".join(lines))
    return paragraphs
