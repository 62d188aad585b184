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


def race_keys(texts: list[str]) -> list[str]:
    """A letter for each answer of a race, the first free letter of its text ("slap!" s, "hands
    off" h): the same answer has the same key in every race, and no key is a digit, which picks a
    move by its number at the next prompt."""
    keys: list[str] = []
    for text in texts:
        free = [ch for ch in text.casefold() + "abcdefghijklmnopqrstuvwxyz" if "a" <= ch <= "z" and ch not in keys]
        keys.append(free[0])
    return keys


class HumanSeat:
    """A seat played from the console. choose() returns a legal move or raises Quit."""

    kind = "human"

    def __init__(self, seat: int, console: Console | None = None, read=None, clock=time.monotonic,
                 every_window: bool = False):
        self.seat = seat
        self.console = console or Console(highlight=False, emoji=False)
        self.read = read or _read_line
        self.clock = clock
        self.reaction_time: float | None = None  # in a window or race: seconds from the prompt to the answer
        # A reaction window is asked only when it offers something new since the last one let pass,
        # or comes before the player's own decision (State.window_matters); every_window asks them all.
        self.every_window = every_window
        self.passed: frozenset = frozenset()  # the anytime moves of the last window let pass
        self.let_pass = False  # the last answer was given for the player: nothing new to react to

    def choose(self, state) -> int:
        if state.current_player() != self.seat:
            raise ValueError(f"it is not seat {self.seat}'s move")
        react = state.window is not None and state.window[0] == "react"
        self.let_pass = react and not self.every_window and not state.window_matters(self.seat, self.passed)
        if self.let_pass:
            self.reaction_time = 0.0
            return state.default_answer()
        action = self._choose(state)
        if react:
            self.passed = frozenset(state.legal_actions()) if action == state.default_answer() else frozenset()
        return action

    def _choose(self, state) -> int:
        game = state.game
        legal = game.display_order(state.legal_actions())
        texts = [game.action_to_string(a) for a in legal]
        race = state.window is not None and state.window[0] == "race"
        render.draw_view(self.console, state.observation(self.seat), None if race else texts)
        name = game.player_name(self.seat)
        reserved = set(game.prog.action_by_name) | {t.casefold() for t in texts}
        prompt = f"{name}, your move [1-{len(legal)}]: " if len(legal) > 1 else f"{name}, your move [1]: "
        window = state.window is not None and state.window[0] != "simultaneous"  # timed: a secret choice is not
        quick = keys = None
        if window:  # Enter alone answers at once: the only move, or letting the moment pass
            quick = legal[0] if len(legal) == 1 else state.default_answer()
            if race:  # a letter per answer, the same in every race: never a digit
                keys = race_keys(texts)
                render.draw_moves(self.console, texts, keys)
                choices = " ".join(f"{k}: {t}" for k, t in zip(keys, texts))
                prompt = f"{name}, quick! [{choices}; Enter: {game.action_to_string(quick)}]: " if quick is not None \
                    else f"{name}, quick! [{choices}]: "
            elif quick is not None:
                prompt = f"{name}, quick! [1-{len(legal)}, Enter: {game.action_to_string(quick)}]: "
        started = self.clock()
        action = self._ask(state, legal, texts, prompt, reserved, quick, keys)
        self.reaction_time = round(self.clock() - started, 3) if window else None
        return action

    def _ask(self, state, legal, texts, prompt, reserved, quick, keys=None) -> int:
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
                    render.draw_view(self.console, state.observation(self.seat), None if keys else texts)
                    if keys:
                        render.draw_moves(self.console, texts, keys)
                    continue
            if keys is not None:
                if word in keys:
                    return legal[keys.index(word)]
                if text.isdigit():  # a number picks a move elsewhere: here it would be a slip of the finger
                    self._refuse("in a race, answer with a letter: "
                                 + ", ".join(f"{k} ({t})" for k, t in zip(keys, texts))
                                 + (f", or Enter ({game.action_to_string(quick)})" if quick is not None else ""))
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
