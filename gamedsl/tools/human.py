"""A human at the console: shown only their own view, asked for a move by number or by name."""
from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.text import Text

from . import render
from ..errors import IllegalAction

QUIT_WORDS = ("quit", "exit")
HELP_WORDS = ("help", "?")
SHOW_WORDS = ("show", "view")

HELP = """\
Choose a move by its number, or type it (for example: {example}).
Cards can be typed as shown (10♥), or as 10h, 10 hearts, 10 of hearts.
  show   draw the table again
  help   this text
  quit   stop here; the game is saved and can be resumed"""


class Quit(Exception):
    """The human stopped the game: typed quit, or their input ended."""


def _read_line(prompt: str) -> str:
    line = input(prompt)
    if not sys.stdin.isatty():
        print(line)  # piped input is not echoed by a terminal: echo it, so a transcript reads well
    return line


class HumanSeat:
    """A seat played from the console. choose() returns a legal move or raises Quit."""

    kind = "human"

    def __init__(self, seat: int, console: Console | None = None, read=None, clock=time.monotonic):
        self.seat = seat
        self.console = console or Console(highlight=False, emoji=False)
        self.read = read or _read_line
        self.clock = clock
        self.reaction_time: float | None = None  # in a window or race: seconds from the prompt to the answer

    def choose(self, state) -> int:
        game = state.game
        if state.current_player() != self.seat:
            raise ValueError(f"it is not seat {self.seat}'s move")
        legal = game.display_order(state.legal_actions())
        texts = [game.action_to_string(a) for a in legal]
        render.draw_view(self.console, state.observation(self.seat), texts)
        name = game.player_name(self.seat)
        reserved = set(game.prog.action_by_name) | {t.casefold() for t in texts}
        prompt = f"{name}, your move [1-{len(legal)}]: " if len(legal) > 1 else f"{name}, your move [1]: "
        window = state.window is not None
        quick = None
        if window:  # Enter alone answers at once: the only move, or letting the moment pass
            no_reaction = game.prog.no_reaction.first_id if game.prog.no_reaction is not None else None
            quick = legal[0] if len(legal) == 1 else (no_reaction if no_reaction in legal else None)
            if quick is not None:
                prompt = f"{name}, quick! [1-{len(legal)}, Enter: {game.action_to_string(quick)}]: "
        started = self.clock()
        action = self._ask(state, legal, texts, prompt, reserved, quick)
        self.reaction_time = round(self.clock() - started, 3) if window else None
        return action

    def _ask(self, state, legal, texts, prompt, reserved, quick) -> int:
        game = state.game
        while True:
            try:
                line = self.read(prompt)
            except EOFError:
                self.console.print()
                raise Quit("the input ended") from None
            text = line.strip()
            word = text.casefold()
            if not text:
                if quick is not None:
                    return quick
                continue
            if word not in reserved:
                if word in QUIT_WORDS:
                    raise Quit("quit")
                if word in HELP_WORDS:
                    self.console.print(Text(HELP.format(example=texts[0])))
                    continue
                if word in SHOW_WORDS:
                    render.draw_view(self.console, state.observation(self.seat), texts)
                    continue
            if text.isdigit():
                k = int(text)
                if 1 <= k <= len(legal):
                    return legal[k - 1]
                self._refuse(f"there is no move {k}: choose a number from 1 to {len(legal)}, or type a move")
                continue
            try:
                return game.string_to_action(state, text)
            except IllegalAction as exc:
                self._refuse(str(exc))

    def _refuse(self, reason: str):
        self.console.print(Text.assemble(("✗ ", "bold red"), render.card_text(reason)), soft_wrap=True)
