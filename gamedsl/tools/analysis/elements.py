"""The parts of a .game file a game can set off, and how to tell from a played game which ones fired.

An *element* is an action, a trigger, a modifier, a named `steps` block, a `say` line or any
other statement. What fired in a game is read three ways, none of them on the engine's hot path:

- an action fired when one of its moves was made (the game's history);
- a modifier fired when its condition held for some player at some decision (read after every move);
- a statement fired when the generated code of its line ran during a move of the real game:
  `Tracer` watches the lines of the game's generated module while a move is applied (never
  while a bot thinks), and the module's line map (Program.spans) names the statements they
  come from. A trigger or a `steps` block fired when one of its statements did.
"""
from __future__ import annotations

import sys

import attrs

from ...language import model as m


@attrs.frozen
class Element:
    kind: str  # action, trigger, modifier, steps, say, statement
    name: str
    line: int
    column: int
    text: str  # the source line, trimmed

    def where(self, filename: str) -> str:
        return f"{filename}:{self.line}:{self.column}"


_STATEMENT_NAMES = {"ForEach": "for each", "MoveN": "move", "CallSteps": "call"}


class Elements:
    """Every element of one game, and the tables that turn what a game did into the elements that fired."""

    def __init__(self, game):
        from ...language.build import build  # the parser: only the report needs the model again

        prog = game.prog
        self.filename = prog.filename
        lines = prog.text.splitlines()
        model = build(prog.text, prog.filename)
        self.elements: list[Element] = []
        self.actions: dict[str, int] = {}  # action name -> element
        self.modifiers: list[tuple[int, object]] = []  # (element, condition fn(state, [owner]))
        spans: list[tuple[int, m.Stmt]] = []  # (element, statement) for every statement
        parents: list[tuple[int, object]] = []  # (element, declaration): fired when a statement inside it did

        def add(kind: str, name: str, span) -> int:
            text = lines[span.line - 1].strip() if 0 < span.line <= len(lines) else ""
            self.elements.append(Element(kind, name, span.line, span.column, text))
            return len(self.elements) - 1

        conditions = {name: cond for name, cond, _ in prog.modifiers}
        for d in model.decls:
            if isinstance(d, m.ActionDecl):
                self.actions[d.name] = add("action", d.name, d.span)
            elif isinstance(d, m.TriggerDecl):
                parents.append((add("trigger", d.label or d.event.kind, d.span), d))
            elif isinstance(d, m.StepsDecl):
                parents.append((add("steps", d.name, d.span), d))
            elif isinstance(d, m.ModifierDecl) and d.name in conditions:
                self.modifiers.append((add("modifier", d.name, d.span), conditions[d.name]))
        seen = set()
        for node in m.walk(list(model.decls)):
            if isinstance(node, m.Stmt) and node.span.line and node.span not in seen:
                seen.add(node.span)
                kind = "say" if isinstance(node, m.Say) else "statement"
                name = _STATEMENT_NAMES.get(type(node).__name__, type(node).__name__.lower())
                spans.append((add(kind, name, node.span), node))
        spans.sort(key=lambda es: (es[1].span.line, es[1].span.column))
        self.by_line = self._line_table(prog.spans, spans)
        by_span = {st.span: e for e, st in spans}
        self.inside = [(e, [by_span[st.span] for st in m.walk(list(d.body)) if isinstance(st, m.Stmt)
                            and st.span in by_span]) for e, d in parents]
        self.module_name = prog.module_name

    @staticmethod
    def _line_table(module_spans: list, statements: list) -> dict:
        """Module line (1-based) -> the statement elements whose span holds that line's span."""
        found: dict = {}
        for span in set(module_spans):
            if span.line:
                found[span] = tuple(e for e, st in statements if _within(span, st.span))
        return {i + 1: found[span] for i, span in enumerate(module_spans) if found.get(span)}

    def fired(self, lines: set, actions: set, modifiers: set) -> set[int]:
        """The elements that fired, from the module lines run, the actions made and the modifiers in force."""
        fired = set(modifiers)
        fired.update(self.actions[a] for a in actions if a in self.actions)
        for line in lines:
            fired.update(self.by_line.get(line, ()))
        fired.update(e for e, inside in self.inside if not fired.isdisjoint(inside))
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


def _within(inner, outer) -> bool:
    return ((outer.line, outer.column) <= (inner.line, inner.column)
            and (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column))


class Tracer:
    """While active, records the lines of one generated module that run (sys.settrace)."""

    def __init__(self, module_name: str):
        self.module_name = module_name
        self.lines: set[int] = set()
        lines = self.lines

        def local(frame, event, arg):
            if event == "line":
                lines.add(frame.f_lineno)
            return local

        def calls(frame, event, arg):
            return local if frame.f_code.co_filename == module_name else None

        self._calls = calls

    def __enter__(self):
        self._before = sys.gettrace()
        sys.settrace(self._calls)
        return self

    def __exit__(self, *exc):
        sys.settrace(self._before)
        return False
