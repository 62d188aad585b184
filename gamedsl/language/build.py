"""Turns a Lark parse tree into the frozen model classes of model.py (structure only)."""
from __future__ import annotations

from lark import Token, Transformer, Tree, v_args
from lark.exceptions import VisitError

from . import model as m
from ..errors import Diagnostic, SourceError, Span
from .cache import built_declarations
from .syntax import parse, parse_expression
from .variant import extend


def _s(meta) -> Span:
    return Span.of(meta)


def _tok(tok: Token) -> Span:
    return Span(tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + len(tok))


_OPS = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "%", "**": "**"}


@v_args(meta=True)
class _Statements(Transformer):
    """The statement rules (a part of Builder)."""

    def block(self, meta, c):
        return tuple(x for x in c if isinstance(x, m.Stmt))

    def assign(self, meta, c):
        return m.Assign(span=_s(meta), target=c[0], op=str(c[1]), value=c[2])

    def let_stmt(self, meta, c):
        return m.Let(span=_s(meta), name=str(c[0]), value=c[1])

    def move_stmt(self, meta, c):
        return m.Move(span=_s(meta), card=c[0], dest=c[1], bottom=bool(c[2]))

    def move_n_stmt(self, meta, c):
        return m.MoveN(span=_s(meta), count=c[0], source=c[1], dest=c[2], bottom=bool(c[3]))

    def move_all_stmt(self, meta, c):
        return m.MoveN(span=_s(meta), count=None, source=c[0], dest=c[1], bottom=bool(c[2]))

    def at_bottom(self, meta, c):
        return True

    def deal_stmt(self, meta, c):
        return m.Deal(span=_s(meta), count=c[0], source=c[1], zone=str(c[2]), zone_span=_tok(c[2]), start=c[3])

    def starting(self, meta, c):
        return c[0]

    def shuffle_stmt(self, meta, c):
        return m.Shuffle(span=_s(meta), zone=c[0])

    def gather_stmt(self, meta, c):
        return m.Gather(span=_s(meta), zone=c[0])

    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])] + [b for b in c[2:-1] if b is not None]
        return m.If(span=_s(meta), branches=tuple(branches), otherwise=c[-1])

    def elif_clause(self, meta, c):
        return (c[0], c[1])

    def repeat_stmt(self, meta, c):
        return m.Repeat(span=_s(meta), count=c[0], body=c[1])

    def while_stmt(self, meta, c):
        return m.While(span=_s(meta), cond=c[0], body=c[1])

    def for_stmt(self, meta, c):
        return m.ForEach(span=_s(meta), var=str(c[0]), domain=c[1], start=c[2], body=c[3])

    def turn_stmt(self, meta, c):
        return m.Turn(span=_s(meta), player=c[0], body=c[1])

    def choose_stmt(self, meta, c):
        count = c[0]
        names = tuple((str(t), _tok(t)) for t in c[1:-1])
        return m.Choose(span=_s(meta), actions=names, by=c[-1], up_to=count[0] if count else None,
                        repeated=count is not None)

    def choose_up_to(self, meta, c):
        return (c[0],)

    def choose_any(self, meta, c):
        return (None,)

    def end_turn(self, meta, c):
        return m.End(span=_s(meta), what="turn")

    def end_round(self, meta, c):
        return m.End(span=_s(meta), what="round")

    def end_game(self, meta, c):
        return m.End(span=_s(meta), what="game")

    def win_stmt(self, meta, c):
        return m.Result(span=_s(meta), kind="win", player=c[0])

    def lose_stmt(self, meta, c):
        return m.Result(span=_s(meta), kind="lose", player=c[0])

    def grade_stmt(self, meta, c):
        return m.Result(span=_s(meta), kind="grade", player=c[0], score=c[1], out_of=c[2])

    def places_stmt(self, meta, c):
        return m.Places(span=_s(meta), var=str(c[0]), domain=c[1], key=c[2], then=tuple(c[3:-1]),
                        descending=c[-1] == "descending")

    def ascending(self, meta, c):
        return "ascending"

    def descending(self, meta, c):
        return "descending"

    def say_stmt(self, meta, c):
        return m.Say(span=_s(meta), text=c[0][1:-1], parts=self.message_parts(c[0]), to=c[1])

    def message_parts(self, tok: Token) -> tuple:
        """A message's pieces: texts, and the expressions written in braces (`{{` and `}}` are
        braces themselves). Every expression is parsed at its own place in the file."""
        text, line, first = str(tok)[1:-1], tok.line, tok.column + 1  # first: the column of text[0]
        parts: list = []
        literal: list[str] = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch in "{}" and text[i + 1: i + 2] == ch:
                literal.append(ch)
                i += 2
                continue
            if ch == "}":
                self.errors.append(Diagnostic("a '}' with no '{' before it", Span(line, first + i, line, first + i + 1),
                                              "write '}}' for a brace in the text"))
                i += 1
                continue
            if ch != "{":
                literal.append(ch)
                i += 1
                continue
            close = text.find("}", i + 1)
            if close < 0:
                self.errors.append(Diagnostic("this '{' is never closed", Span(line, first + i, line, first + i + 1),
                                              "write the value as {EXPRESSION}, or '{{' for a brace in the text"))
                break
            source = text[i + 1: close]
            if not source.strip():
                self.errors.append(Diagnostic("'{}' holds no value", Span(line, first + i, line, first + close + 1),
                                              "write the value as {EXPRESSION}, or '{{' for a brace in the text"))
            else:
                tree, problem = parse_expression(source, line, first + i + 1, first + close)
                if problem is not None:
                    self.errors.append(problem)
                else:
                    if literal:
                        parts.append("".join(literal))
                        literal = []
                    parts.append(self.transform(tree) if isinstance(tree, Tree) else tree)
            i = close + 1
        if literal:
            parts.append("".join(literal))
        return tuple(parts)

    def reveal_stmt(self, meta, c):
        return m.Reveal(span=_s(meta), card=c[0], to=c[1])

    def race_stmt(self, meta, c):
        names = tuple((str(t), _tok(t)) for t in c[:-1])
        return m.Race(span=_s(meta), actions=names, players=c[-1])

    def simultaneous_stmt(self, meta, c):
        names = tuple((str(t), _tok(t)) for t in c[:-1])
        return m.Race(span=_s(meta), actions=names, players=c[-1], kind="simultaneous")

    def eliminate_stmt(self, meta, c):
        return m.Eliminate(span=_s(meta), player=c[0])

    def call_stmt(self, meta, c):
        return m.CallSteps(span=_s(meta), func=str(c[0]), args=tuple(a for a in c[1:] if a is not None))


@v_args(meta=True)
class _Expressions(Transformer):
    """The expression rules (a part of Builder)."""

    def cond_expr(self, meta, c):
        """`if C then A elif D then B else E`: nested choices, the last `else` innermost."""
        other = c[-1]
        for cond, then, span in reversed(c[2:-1]):
            other = m.CondExpr(span=span, cond=cond, then=then, other=other)
        return m.CondExpr(span=_s(meta), cond=c[0], then=c[1], other=other)

    def elif_expr(self, meta, c):
        return (c[0], c[1], _s(meta))

    def range(self, meta, c):
        return m.Range(span=_s(meta), low=c[0], high=c[1])

    def or_op(self, meta, c):
        return m.Logic(span=_s(meta), op="or", left=c[0], right=c[1])

    def and_op(self, meta, c):
        return m.Logic(span=_s(meta), op="and", left=c[0], right=c[1])

    def not_op(self, meta, c):
        return m.Not(span=_s(meta), operand=c[0])

    def compare(self, meta, c):
        return m.Compare(span=_s(meta), op=str(c[1]), left=c[0], right=c[2])

    def member(self, meta, c):
        return m.Member(span=_s(meta), item=c[0], collection=c[1])

    def not_member(self, meta, c):
        return m.Member(span=_s(meta), item=c[0], collection=c[1], negated=True)

    def binop(self, meta, c):
        return m.BinOp(span=_s(meta), op=_OPS[str(c[1])], left=c[0], right=c[2])

    def neg(self, meta, c):
        return m.Neg(span=_s(meta), operand=c[1])

    def attr(self, meta, c):
        return m.Attr(span=_s(meta), obj=c[0], name=str(c[1]), name_span=_tok(c[1]))

    def number(self, meta, c):
        return m.Number(span=_s(meta), value=int(c[0]))

    def string(self, meta, c):
        return m.String(span=_s(meta), value=c[0][1:-1])

    def true(self, meta, c):
        return m.Bool(span=_s(meta), value=True)

    def false(self, meta, c):
        return m.Bool(span=_s(meta), value=False)

    def name(self, meta, c):
        return m.Name(span=_s(meta), name=str(c[0]))

    def list(self, meta, c):
        return m.ListExpr(span=_s(meta), items=tuple(x for x in c if x is not None))

    def call(self, meta, c):
        func = c[0]
        args, for_clause, where, by = c[1:-3], c[-3], c[-2], c[-1]
        descending = False
        if by is not None:
            by, descending, where = by[0], by[1] == "descending", where if where is not None else by[2]
        return m.Call(
            span=_s(meta), func=str(func), args=tuple(a for a in args if a is not None),
            for_var=for_clause[0] if for_clause else None, for_domain=for_clause[1] if for_clause else None,
            where=where, by=by, descending=descending)

    def target_call(self, meta, c):  # a call an assignment's target reads from: f(x).mark = 1
        return m.Call(span=_s(meta), func=str(c[0]), args=tuple(a for a in c[1:] if a is not None))

    def for_clause(self, meta, c):
        return (str(c[0]), c[1])

    def where_clause(self, meta, c):
        return c[0]

    def by_clause(self, meta, c):
        return (c[0], c[1], c[2])


@v_args(meta=True)
class Builder(_Statements, _Expressions):
    """Builds model nodes, one method per grammar rule, named after it (declarations here,
    statements and expressions in the parts above). The mistakes found inside messages' braces
    are collected in `errors`."""

    def __init__(self):
        super().__init__()
        self.errors: list[Diagnostic] = []  # (of the declaration being built)
        self.all_errors: list[Diagnostic] = []

    # ---- declarations
    def start(self, meta, items):
        return tuple(i for i in items if i is not None)

    def game_decl(self, meta, c):
        return m.GameName(span=_s(meta), name=c[0][1:-1])

    def extends_decl(self, meta, c):
        return m.ExtendsDecl(span=_tok(c[0]), path=c[0][1:-1])

    def remove_decl(self, meta, c):
        kind, name = c
        if name is None:
            return m.RemoveDecl(span=_tok(kind), kind=str(kind))
        text = name[1:-1] if name.type == "STRING" else str(name)
        return m.RemoveDecl(span=_tok(kind), kind=str(kind), name=text, name_span=_tok(name))

    def players_decl(self, meta, c):
        least = int(c[0])
        return m.PlayersDecl(span=_s(meta), least=least, most=int(c[1]) if c[1] is not None else least,
                             teams=int(c[2]) if c[2] is not None else None)

    def option_decl(self, meta, c):
        return m.OptionDecl(span=_tok(c[0]), name=str(c[0]), default=c[1], doc=c[2][1:-1] if c[2] else None)

    def option_choice_decl(self, meta, c):
        names = [t for t in c[1:] if t is not None and t.type == "NAME"]
        doc = c[-1][1:-1] if c[-1] is not None and c[-1].type == "STRING" else None
        return m.OptionChoiceDecl(span=_tok(c[0]), name=str(c[0]), choices=tuple((str(t), _tok(t)) for t in names),
                                  doc=doc)

    def heuristic_decl(self, meta, c):
        return m.Heuristic(span=_s(meta), value=c[0])

    def invariant_decl(self, meta, c):
        return m.InvariantDecl(span=_s(meta), name=c[0][1:-1], when=c[1] or "move", cond=c[2])

    def at_round_end(self, meta, c):
        return "round end"

    def at_game_end(self, meta, c):
        return "game end"

    def limit_decl(self, meta, c):
        return m.LimitDecl(span=_s(meta), moves=int(c[0]))

    def attribute_decl(self, meta, c):
        return m.AttributeDecl(span=_tok(c[0]), name=str(c[0]), values=tuple(c[1:]))

    def attr_value(self, meta, c):
        return m.AttrValue(span=_tok(c[0]), name=str(c[0]), symbol=c[1][1:-1] if c[1] else None)

    def cards_decl(self, meta, c):
        factors = tuple(x for x in c if isinstance(x, m.CardFactor))
        where = c[-3]
        times = int(c[-2]) if c[-2] is not None else 1
        named = c[-1][1:-1] if c[-1] is not None else None
        return m.CardsDecl(span=_s(meta), factors=factors, where=where, times=times, named=named)

    def back_decl(self, meta, c):
        return m.BackDecl(span=_s(meta), attributes=tuple((str(t), _tok(t)) for t in c))

    def factor_name(self, meta, c):
        return m.CardFactor(span=_tok(c[0]), names=(str(c[0]),))

    def factor_set(self, meta, c):
        return m.CardFactor(span=_s(meta), names=tuple(str(x) for x in c), is_set=True)

    def value_decl(self, meta, c):
        return m.ValueDecl(span=_tok(c[0]), name=str(c[0]), entries=tuple(c[1:]))

    def value_entry(self, meta, c):
        return m.ValueEntry(span=_s(meta), pattern=c[0], value=c[1])

    def value_default(self, meta, c):
        return m.ValueEntry(span=_s(meta), pattern=None, value=c[0])

    def pattern(self, meta, c):
        return tuple((str(t), _tok(t)) for t in c)

    def zone_decl(self, meta, c):
        props = tuple((str(t), _tok(t)) for t in c[3:-1] if isinstance(t, Token))
        shows = tuple(x for x in c[3:-1] if isinstance(x, tuple))
        return m.ZoneDecl(span=_tok(c[0]), name=str(c[0]), per_player=c[2] is not None, props=props,
                          shows=shows, label=c[-1][1:-1] if c[-1] is not None else None, family=c[1])

    def zone_numbered(self, meta, c):
        return ("number", int(c[0]), _tok(c[0]))

    def zone_per_value(self, meta, c):
        return ("value", str(c[0]), _tok(c[0]))

    def index(self, meta, c):
        return m.Index(span=_s(meta), obj=c[0], index=c[1])

    def zone_shows(self, meta, c):
        return (str(c[0]), _tok(c[0]))

    def per_player(self, meta, c):
        return True

    def var_decl(self, meta, c):
        vis, name, per, typ, init, label, shown = c
        return m.VarDecl(span=_tok(name), name=str(name), per_player=per is True,
                         type=str(typ) if typ is not None else None, init=init,
                         visibility=(str(vis), _tok(vis)) if vis is not None else None, per_card=per == "card",
                         per_team=per == "team",
                         label=label[1:-1] if label is not None else None, shown=shown)

    def shown_when(self, meta, c):
        return c[0]

    def per_card(self, meta, c):
        return "card"

    def per_team(self, meta, c):
        return "team"

    def param_decl(self, meta, c):
        return m.ParamDecl(span=_tok(c[0]), name=str(c[0]), per_player=c[1] is not None, init=c[2])

    def def_param(self, meta, c):
        return (str(c[1]), (str(c[0]), _tok(c[0])) if c[0] is not None else None)

    def def_decl(self, meta, c):
        params = [t for t in c[1:-1] if t is not None]
        return m.DefDecl(span=_tok(c[0]), name=str(c[0]), params=tuple(p for p, _ in params), body=c[-1],
                         kinds=tuple(k for _, k in params))

    def steps_decl(self, meta, c):
        params = [t for t in c[1:-1] if t is not None]
        return m.StepsDecl(span=_tok(c[0]), name=str(c[0]), params=tuple(p for p, _ in params), body=c[-1],
                           kinds=tuple(k for _, k in params))

    def action_decl(self, meta, c):
        name, label, param = c[0], c[1], c[2]
        requires = tuple(x for x in c[3:-1] if isinstance(x, m.Requirement))
        flags = {x for x in c[3:-1] if isinstance(x, str)}
        return m.ActionDecl(
            span=_tok(name), name=str(name), label=label[1:-1] if label else None,
            param=param[0] if param else None, domain=param[1] if param else None,
            more=tuple(zip(param[2::2], param[3::2])) if param else (),
            requires=requires, body=c[-1], anytime="anytime" in flags, spoken="spoken" in flags)

    def anytime(self, meta, c):
        return "anytime"

    def spoken(self, meta, c):
        return "spoken"

    def action_param(self, meta, c):
        return tuple(str(x) if k % 2 == 0 else x for k, x in enumerate(c))

    def requirement(self, meta, c):
        return m.Requirement(span=_s(meta), cond=c[0], message=c[1][1:-1] if c[1] else None)

    def trigger_decl(self, meta, c):
        return m.TriggerDecl(span=_s(meta), event=c[0], label=c[1][1:-1] if c[1] else None, cond=c[2], body=c[3])

    def move_event(self, meta, c):
        return m.Event(span=_s(meta), kind="move", var=str(c[0]), source=c[1], dest=c[2])

    def speech_event(self, meta, c):
        return m.Event(span=_s(meta), kind="speech", var=str(c[0]))

    def turn_start_event(self, meta, c):
        return m.Event(span=_s(meta), kind="turn start")

    def turn_end_event(self, meta, c):
        return m.Event(span=_s(meta), kind="turn end")

    def round_start_event(self, meta, c):
        return m.Event(span=_s(meta), kind="round start")

    def round_end_event(self, meta, c):
        return m.Event(span=_s(meta), kind="round end")

    def modifier_decl(self, meta, c):
        return m.ModifierDecl(span=_tok(c[0]), name=str(c[0]), cond=c[1], changes=tuple(c[2:]))

    def param_change(self, meta, c):
        return m.ParamChange(span=_tok(c[0]), param=str(c[0]), op=str(c[1]), value=c[2])

    def visibility_change(self, meta, c):
        return m.VisibilityChange(span=_tok(c[0]), zone=str(c[0]), field=(str(c[1]), _tok(c[1])),
                                  word=(str(c[2]), _tok(c[2])))

    def same_change(self, meta, c):
        return m.SameChange(span=_tok(c[0]), attribute=str(c[0]), values=tuple((str(t), _tok(t)) for t in c[1:]))

    def wild_change(self, meta, c):
        return m.WildChange(span=_tok(c[0]), attribute=str(c[0]), pattern=c[1])

    # ---- patterns
    def pattern_decl(self, meta, c):
        return m.PatternDecl(span=_tok(c[0]), name=str(c[0]), clauses=tuple(c[1:]))

    def pattern_size(self, meta, c):
        return m.PatternClause(span=_s(meta), kind="size", expr=c[0])

    def pattern_size_least(self, meta, c):
        return m.PatternClause(span=_s(meta), kind="size", expr=c[0], open=True)

    def pattern_size_range(self, meta, c):
        return m.PatternClause(span=_s(meta), kind="size", expr=c[0], most=c[1])

    def pattern_same(self, meta, c):
        return m.PatternClause(span=_s(meta), kind="same", names=((str(c[0]), _tok(c[0])),))

    def pattern_run(self, meta, c):
        return m.PatternClause(span=_s(meta), kind="run", names=tuple((str(t), _tok(t)) for t in c))

    def pattern_groups(self, meta, c):
        return m.PatternClause(span=_s(meta), kind="groups", names=((str(c[0]), _tok(c[0])),),
                               sizes=tuple(int(t) for t in c[1:]))

    def pattern_each(self, meta, c):
        return m.PatternClause(span=_s(meta), kind="each", sizes=(int(c[0]),))

    def pattern_with(self, meta, c):
        return m.PatternClause(span=_s(meta), kind="with", names=((str(c[0]), _tok(c[0])),), expr=c[1])

    def pattern_with_count(self, meta, c):
        return m.PatternClause(span=_s(meta), kind="with", names=((str(c[1]), _tok(c[1])),), expr=c[2],
                               count=c[0])

    def pattern_if(self, meta, c):
        return m.PatternClause(span=_s(meta), kind="if", expr=c[0])

    def setup_decl(self, meta, c):
        return m.FlowBlock(span=_s(meta), kind="setup", body=c[0])

    def round_decl(self, meta, c):
        return m.FlowBlock(span=_s(meta), kind="round", body=c[0])

    def outcome_decl(self, meta, c):
        return m.FlowBlock(span=_s(meta), kind="outcome", body=c[0])

    def end_when_decl(self, meta, c):
        return m.EndWhen(span=_s(meta), cond=c[0])


def build(text: str, filename: str = "<string>", files: dict | None = None, chain: tuple = ()) -> m.GameModel:
    """Parse and build the model of a .game source (no semantic checks yet); a variant's merged with
    the game it extends (variant.py), read from `files` (name -> text) if there, else from disk.
    `chain`: the variants being built that extend this file."""
    tree = parse(text, filename)
    builder = Builder()
    try:
        decls = built_declarations(builder, tree, filename)
    except (RecursionError, VisitError) as exc:
        if isinstance(exc, VisitError) and not isinstance(exc.orig_exc, RecursionError):
            raise
        line = getattr(getattr(exc, "obj", None), "meta", None)
        span = Span(line.line, line.column) if line is not None and not getattr(line, "empty", True) else Span()
        raise SourceError(filename, text, [Diagnostic("the file nests expressions or blocks too deeply", span,
                                                      "split deep expressions with 'let' or 'def'")]) from None
    if builder.all_errors:  # mistakes inside messages' braces: syntax errors, reported all at once
        raise SourceError(filename, text, builder.all_errors)
    return extend(m.GameModel(filename=filename, text=text, decls=decls), build, files, chain)
