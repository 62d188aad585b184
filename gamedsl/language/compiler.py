"""Checks a game model and compiles it to a Program: every diagnostic is collected, not just the first.

The passes run in a fixed order: first every name is declared (so no rule depends on the order of
the file), then the rules are compiled into one Python module (language/codegen.py), then the
checks that need the whole game. Each pass is a small class of its own: cards.py,
declarations.py, modifiers.py, rules.py, actions.py, flow.py; expressions.py compiles the
expressions they all read.
"""
from __future__ import annotations

from ..version import __version__
from ..errors import Diagnostic, SourceError
from . import model as m
from .actions import Actions
from .cards import Cards
from .context import Context, Scope
from .declarations import Declarations
from .expressions import ExpressionCompiler
from .flow import FlowCompiler
from .progress import checkpoint
from .loops import LoopChecker
from .modifiers import Modifiers
from .program import MAX_SEATS, Program, Unit
from .rules import Rules
from .secrecy import Secrecy
from .watch import reads_by_pattern, watched

FLOWS = ("setup", "round", "outcome")


class Compiler:
    """Runs the passes over one game model and assembles the Program."""

    def __init__(self, gm: m.GameModel, coverage: bool = False):
        self.c = c = Context(gm, coverage)
        self.x = ExpressionCompiler(c)
        self.flow = FlowCompiler(c, self.x)
        self.cards = Cards(c, self.x)
        self.decls = Declarations(c)
        self.mods = Modifiers(c, self.x)
        self.actions = Actions(c, self.x, self.flow)
        self.rules = Rules(c, self.x, self.flow)

    def compile(self, secrecy: bool = True) -> Program:
        c = self.c
        self.declare()
        self.mods.compile()
        self.mods.cycles()
        self.decls.steps()
        checkpoint()  # (between the passes, a language server's check of an older text stops)
        for name in c.def_info:
            self.x.compile_def(name)
        self.rules.compile_patterns()
        self.rules.var_initializers()
        checkpoint()
        self.actions.headers()
        reactions, no_reaction, reaction_check, reaction_legal = self.actions.reactions()
        self.actions.done()
        checkpoint()
        flows = self.flows()
        checkpoint()
        self.actions.bodies()
        checkpoint()
        self.rules.compile_triggers()
        for act in self.rules.step_actions:  # a step is a move of its own, numbered after the actions
            act.first_id = self.actions.ids
            self.actions.ids += 1
            self.actions.actions.append(act)
        invariants, heuristic, end_when = self.rules.invariants(), self.rules.heuristic(), self.rules.end_when()
        self.rules.finish(flows["declared"])
        self.actions.never_offered()
        self.endless_loops()
        checkpoint()
        secrets = ((), set(), {})
        if not c.diags and secrecy:  # what the file shows each player, once it reads without another error
            secrets = Secrecy(c).run()  # (its errors are kept in Program.leaks: a log replays despite them)
        if c.diags:
            raise SourceError(c.gm.filename, c.gm.text, c.one_message_each() + c.warnings, c.gm.sources)
        return self.program(flows, (reactions, no_reaction, reaction_check, reaction_legal), invariants, heuristic,
                            end_when, secrets)

    def declare(self):
        """The passes that name things and lay out cards, zones and variables."""
        self.decls.header()
        self.cards.attributes()
        self.cards.choice_options()
        self.cards.cards()
        self.cards.backs()
        self.cards.value_tables()
        self.decls.zones()
        self.decls.variables()
        c = self.c
        if c.gm.of(m.ParamDecl) or c.gm.of(m.PatternDecl) or c.gm.of(m.ModifierDecl):  # what their answers read
            zones = set(c.zone_by_name) | set(c.families)  # (a family is read as one: game.py)
            c.watch_zones, c.watch_vars = watched(c.gm, zones, set(c.var_by_name))
            if "*" in (c.watch_zones, c.watch_vars):
                c.watch_items = ("*",)
            else:  # each with a version of its own (engine/runtime.py: pattern_answers)
                c.watch_items = (*sorted(c.watch_zones), *sorted(c.watch_vars))
                c.pattern_reads = reads_by_pattern(c.gm, zones, set(c.var_by_name), c.watch_items)
        self.decls.params()
        self.decls.defs()
        self.decls.patterns()

    def flows(self) -> dict:
        """setup, round and outcome, each a unit of blocks (an absent setup or outcome does nothing)."""
        c = self.c
        blocks = {}
        for b in c.gm.of(m.FlowBlock):
            if b.kind in blocks:
                c.error(f"a game has one '{b.kind}' block; this is a second one", b.span)
            else:
                blocks[b.kind] = b
        units = {}
        for kind in FLOWS:
            b = blocks.get(kind)
            if b is None and kind == "round":
                continue
            c.in_outcome = kind == "outcome"
            scope = Scope()
            entry = self.flow.compile_unit(b.body if b else (), scope, kind, kind, b.span if b else c.where,
                                           table=True)  # outside its turns, no player acts
            units[kind] = Unit(entry, scope.size, b.span if b else c.where)
        c.in_outcome = False
        return {"units": units, "declared": blocks}

    def endless_loops(self):
        """Report every `while` loop that surely never ends once it begins (see loops.py)."""
        c, gm = self.c, self.c.gm
        checker = LoopChecker(gm, set(c.zone_by_name) | set(c.families), set(c.param_info), c.has_move_triggers)
        for decl in (*gm.of(m.FlowBlock), *gm.of(m.ActionDecl), *gm.of(m.TriggerDecl), *gm.of(m.StepsDecl)):
            checker.check(decl.body)
        for loop in checker.found:
            c.error("this loop never ends once it begins: nothing in it changes what its condition reads",
                    loop.span, "change what the condition reads inside the loop, or leave it with 'end'")

    def program(self, flows, anytime, invariants, heuristic, end_when, secrets) -> Program:
        c, acts = self.c, self.actions
        reactions, no_reaction, reaction_check, reaction_legal = anytime
        units = flows["units"]
        return Program(
            name=c.name, filename=c.gm.filename, text=c.gm.text, sources=dict(c.gm.sources),
            min_players=c.least, max_players=c.most,
            options=c.options, option_index=c.option_index, option_choices=c.option_choices, move_limit=c.limit,
            attributes=c.attr_list, card_attrs=c.card_attr_tables, card_names=c.card_names, twins=c.twins,
            back=tuple(c.back_attrs), attr_sizes={name: len(values) for name, values, _ in c.attr_list},
            zones=c.zone_list, zone_by_name=c.zone_by_name, zone_count=c.zone_count,
            out_zones=frozenset(z.base + k for z in c.zone_list if z.out
                                for k in range(MAX_SEATS if z.per_player else 1)),
            vars=c.var_list, var_by_name=c.var_by_name, var_count=c.var_count,
            actions=acts.actions, action_by_name={a.name: a for a in acts.actions if a.step < 0},
            action_count=acts.ids, reactions=reactions, no_reaction=no_reaction, reaction_check=reaction_check,
            reaction_legal=reaction_legal,
            setup=units["setup"], round=units.get("round"), outcome=units["outcome"],
            triggers=self.rules.triggers, ordered=self.rules.ordered, params=self.mods.params,
            patterns=self.rules.patterns,
            same_changes={a: tuple(ch) for a, ch in self.mods.same_changes.items()},
            wild_changes={a: tuple(ch) for a, ch in self.mods.wild_changes.items()},
            modifiers=tuple(self.mods.modifiers),
            end_when=end_when, heuristic=heuristic, invariants=invariants,
            act_sets={name: names for names, name in self.flow.act_sets.items()},
            has_move_triggers=c.has_move_triggers, trigger_spans=self.rules.block_spans,
            watch_zones=c.watch_zones, watch_players=c.watch_vars == "*" or " players" in c.watch_vars,
            watch_items=c.watch_items, pattern_reads=c.pattern_reads,
            module=c.module.source(), spans=c.module.spans, loops=c.module.loops, via=c.module.via,
            coverage=c.module.coverage, markers=c.module.markers, data=c.data, messages=c.messages,
            private_says=any(st.to is not None for st in c.nodes(m.Say)),
            races=any(st.kind == "race" for st in c.nodes(m.Race)),
            teams=c.teams, graded=any(st.kind == "grade" for st in c.nodes(m.Result)),
            leaks=tuple(secrets[0]), warnings=tuple(c.warnings), hidden_params=frozenset(secrets[1]), secret_vars=tuple(sorted(secrets[2])),
            version=__version__)


def compile_model(gm: m.GameModel, coverage: bool = False) -> Program:
    """Check a model and compile it; raises SourceError listing every problem. A coverage build
    records in its run which statements ran (see codegen.py); otherwise its code is the same."""
    return _compiled(Compiler(gm, coverage))


def check_model(gm: m.GameModel):
    """Check a model as compile_model does, but for the secrecy analysis: the program (its `leaks`
    empty), and a function that runs that analysis on it and returns its errors (a language server
    shows the other errors first: the analysis reads the whole game, and takes longest)."""
    compiler = Compiler(gm)
    prog = _compiled(compiler, secrecy=False)

    def secrecy() -> list[Diagnostic]:
        try:
            return list(Secrecy(compiler.c).run()[0])
        except (RecursionError, MemoryError):
            return [Diagnostic("this rule is nested too deeply to compile", compiler.c.where,
                               "split it with 'let' or 'def'")]
    return prog, secrecy


def _compiled(compiler: "Compiler", secrecy: bool = True) -> Program:
    gm = compiler.c.gm
    try:
        return compiler.compile(secrecy)
    except (RecursionError, MemoryError):
        span = compiler.c.where
        raise SourceError(gm.filename, gm.text, compiler.c.diags + [Diagnostic(
            "this rule is nested too deeply to compile", span, "split it with 'let' or 'def'")],
            gm.sources) from None
