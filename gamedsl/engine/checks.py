"""The rules' own checks on a game in progress: invariants, the step budget between two decisions,
and errors of the rules located at their line, with the moment of the game (a mixin of State)."""
from __future__ import annotations

from ..errors import GameRuntimeError, InvariantViolation
from ..language.program import STEP_LIMIT
from .located import innermost_line, rule_failure

_LOOPING = {"loop": "this loop never ends", "round": "the round ends and begins again without asking anyone",
            "trigger": "this trigger keeps firing: triggers set each other off"}


class Checks:
    """check_invariants, count_step, located, moment."""

    __slots__ = ()

    def check_invariants(self, when: str):
        """Raise InvariantViolation if one of the game's invariants for this moment does not hold."""
        if when == "game end" and self.limit_hit:
            return  # a game stopped by its move limit has no regular end to check
        for name, fn, span in self.prog.invariants.get(when, ()):
            try:
                ok = fn(self, None)
            except (GameRuntimeError, TypeError, IndexError, ValueError, KeyError) as exc:
                raise InvariantViolation(f"{span.file or self.prog.filename}:{span.line}:{span.column}: invariant "
                                         f"'{name}' cannot be evaluated: {exc}", located=True) from None
            if not ok:
                raise InvariantViolation(f"{span.file or self.prog.filename}:{span.line}:{span.column}: invariant "
                                         f"'{name}' does not hold (move {self.moves}, round {self.round})",
                                         located=True)

    def count_step(self, weight: int = 1, in_code: bool = False, trigger=None, round_over: bool = False):
        """Count the work done since the last decision: rules that never ask for a move are stopped,
        at the loop, round or trigger that keeps running (a loop of generated code, `in_code`, and a
        decision skipped again and again are found by the error's traceback)."""
        self.steps += weight
        if self.steps > STEP_LIMIT:
            raise self.looping(in_code, trigger, round_over)

    def looping(self, in_code: bool, trigger, round_over: bool) -> GameRuntimeError:
        prefix = f"the rules ran {STEP_LIMIT:,} steps without asking for a move: "
        hint = None
        if self.skips:
            hint = (f"a decision nobody can make is skipped: one was skipped {self.skips:,} times since the last "
                    "move; is a condition of its moves wrong?")
        if trigger is not None or round_over:
            kind = "trigger" if trigger is not None else "round"
            err = GameRuntimeError(prefix + _LOOPING[kind], hint)
            span = self.prog.trigger_spans[trigger][0] if trigger is not None else self.prog.round.span
            return err.located(self.prog.filename, self.prog.text, span, self.moment(), self.prog.sources)
        if in_code:
            return GameRuntimeError(prefix + _LOOPING["loop"], hint)
        prog, line = innermost_line()
        loop = prog.loops[line - 1] if prog is not None and 0 < line <= len(prog.loops) else None
        if loop is None:
            return GameRuntimeError(prefix + "nobody can make this decision, and it is asked again and again", hint)
        span, kind = loop
        return GameRuntimeError(prefix + _LOOPING[kind], hint).located(
            self.prog.filename, self.prog.text, span, self.moment(), self.prog.sources)

    def located(self, exc: BaseException, span=None, by: int | None = None) -> BaseException:
        """A rule's error at its line and column in the game file (`span` where the traceback
        finds none), with the moment of the game it happened in; an error of gamedsl's own
        (no rule on its way) is returned as it is. `by`: who is making the move."""
        err = rule_failure(exc, self.moment(by))
        if err is None and span is not None and isinstance(exc, GameRuntimeError):
            err = exc.located(self.prog.filename, self.prog.text, span, self.moment(by), self.prog.sources)
        return exc if err is None else err

    def moment(self, by: int | None = None) -> str:
        """When in the game it is, in a player's words: the move being made, by whom (`by`, else the
        maker of the last move noted), in which round."""
        if not self.moves:
            return "while the game is set up, before the first move"
        if by is None and self.card_moves:
            by = self.card_moves[-1][0]
        who = f" by {self.game.player_name(by)}" if by is not None else ""
        k, begun = self.moves - 1 - self.hbase, self._move_begun()
        what = ""
        if begun is not None and begun < k < len(self.history):  # a step of a move of several: name both
            what = (f"'{self.game.action_to_string(self.history[k])}': a step of "
                    f"'{self.game.action_to_string(self.history[begun])}', move {begun + 1 + self.hbase}; ")
        return f"during move {self.moves}{who} ({what}round {self.round})"

    def _move_begun(self) -> int | None:
        """The move whose rules are running (the outermost action on the stack: "lay a pair of 6",
        whose steps lay each 6), as its index in the history kept; None if none or not kept."""
        for fr in self.stack:
            name = getattr(fr[0], "__name__", "")
            if name.startswith("act_"):
                act = self.prog.action_by_name.get(name[4:].rsplit("_", 1)[0])
                decoded = self.game.decoded
                return next((k for k in range(len(self.history) - 1, -1, -1)
                             if act is not None and decoded[self.history[k]][0] is act), None)
        return None
