"""The parts of a .game file a game can set off, and how to tell from a played game which ones fired.

An *element* is an action, a trigger, a modifier, a named `steps` block, a `say` line or any
other statement. What fired in a game is read three ways, none of them on the engine's hot path:

- an action fired when one of its moves was made (the game's history);
- a modifier fired when its condition held for some player at some decision (read after every move);
- a statement (a call of steps included), a trigger or a `steps` block fired when it started to
  run during the setup or a move of the real game: the game is a coverage build, whose code
  sets marker k (Program.ran) as the statement of Program.markers[k] starts, in every inlined
  copy of steps; `Ran` keeps what was set while a move is applied (never while a bot thinks).
"""
from __future__ import annotations

import attrs

from ...language import model as m


@attrs.frozen
class Element:
    kind: str  # action, trigger, modifier, steps, say, statement
    name: str
    line: int
    column: int
    text: str  # the source line, trimmed
    file: str = ""  # the file it is in, when not the game's own: a variant's base

    def where(self, filename: str) -> str:
        return f"{self.file or filename}:{self.line}:{self.column}"


_STATEMENT_NAMES = {"ForEach": "for each", "MoveN": "move", "CallSteps": "call"}


class Elements:
    """Every element of one game, and the tables that turn what a game did into the elements that fired."""

    def __init__(self, game):
        from ...language.build import build  # the parser: only the report needs the model again

        prog = game.prog
        self.filename = prog.filename
        lines = {"": prog.text.splitlines(), **{name: text.splitlines() for name, text in prog.sources.items()}}
        model = build(prog.text, prog.filename, dict(prog.sources))
        self.elements: list[Element] = []
        self.actions: dict[str, int] = {}  # action name -> element
        self.modifiers: list[tuple[int, object]] = []  # (element, condition fn(state, [owner]))
        by_span: dict = {}  # the span of a statement, trigger or steps block -> its element

        def add(kind: str, name: str, span) -> int:
            shown = lines.get(span.file, ())
            text = shown[span.line - 1].strip() if 0 < span.line <= len(shown) else ""
            self.elements.append(Element(kind, name, span.line, span.column, text, span.file))
            return len(self.elements) - 1

        conditions = {name: cond for name, cond, _ in prog.modifiers}
        for d in model.decls:
            if isinstance(d, m.ActionDecl):
                self.actions[d.name] = add("action", d.name, d.span)
            elif isinstance(d, m.TriggerDecl):
                by_span[d.span] = add("trigger", d.label or d.event.kind, d.span)
            elif isinstance(d, m.StepsDecl):
                by_span[d.span] = add("steps", d.name, d.span)
            elif isinstance(d, m.ModifierDecl) and d.name in conditions:
                self.modifiers.append((add("modifier", d.name, d.span), conditions[d.name]))
        for node in m.walk(list(model.decls)):
            if isinstance(node, m.Stmt) and node.span.line and node.span not in by_span:
                kind = "say" if isinstance(node, m.Say) else "statement"
                name = _STATEMENT_NAMES.get(type(node).__name__, type(node).__name__.lower())
                by_span[node.span] = add(kind, name, node.span)
        self.by_span = by_span
        # per element: the action, trigger, steps or modifier it is written in (None: a declaration, or
        # a statement of the setup, a round or the outcome)
        self.parent: list[int | None] = [None] * len(self.elements)
        for d in model.decls:
            own = self.actions.get(d.name) if isinstance(d, m.ActionDecl) else by_span.get(d.span) \
                if isinstance(d, (m.TriggerDecl, m.StepsDecl)) else None
            if own is not None:
                for node in m.walk(list(d.body)):
                    e = by_span.get(node.span) if isinstance(node, m.Stmt) else None
                    if e is not None and e != own:
                        self.parent[e] = own
        # coverage marker k -> its element (None: a span the report does not list)
        self.by_marker = [by_span.get(span) for span in prog.markers]

    def fired(self, markers, actions: set, modifiers: set) -> set[int]:
        """The elements that fired, from the coverage markers set (their numbers), the actions made
        and the modifiers in force."""
        fired = set(modifiers)
        fired.update(self.actions[a] for a in actions if a in self.actions)
        fired.update(self.by_marker[k] for k in markers if self.by_marker[k] is not None)
        return fired

    def modifiers_in_force(self, state, players: int) -> set[int]:
        """The modifiers whose condition holds now for some player."""
        found = set()
        for e, cond in self.modifiers:
            for p in range(players):
                try:
                    if cond(state, [p]):
                        found.add(e)
                        break
                except Exception:  # noqa: BLE001 - a condition that cannot be read now does not hold now
                    continue
        return found


class Ran:
    """While active, collects the coverage markers a game's rules set (a coverage build's
    Program.ran, shared by every state of the game, a bot's copies too): they are cleared on
    entering and kept on leaving, so what runs between two uses (a bot thinking) is not counted."""

    def __init__(self, prog):
        if prog.ran is None:
            raise ValueError(f"{prog.filename} is not a coverage build: load it with coverage=True")
        self.flags = prog.ran
        self._clear = bytes(len(self.flags))
        self.kept = 0  # the markers set while active, a bit each (a marker's byte, read as a number)

    def __enter__(self):
        self.flags[:] = self._clear
        return self

    def __exit__(self, *exc):
        self.kept |= int.from_bytes(self.flags, "little")
        return False

    @property
    def markers(self) -> list[int]:
        """The numbers of the markers set while active."""
        return [k for k, flag in enumerate(self.kept.to_bytes(len(self.flags), "little")) if flag]
