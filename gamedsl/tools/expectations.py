"""The `expect:` checks of a rule scenario (scenario.py), one method per key."""
from __future__ import annotations

from .yamlnodes import ScenarioError, check_keys, integer, mapping, scalar, sequence

EXPECT_KEYS = {"vars", "zones", "count", "top", "to_move", "legal", "legal_includes", "legal_excludes",
               "results", "places", "returns", "over", "round", "said", "known", "seen", "told"}


class Expectations:
    """The `expect:` checks of a scenario, one expect_* method per key (a mixin of Runner)."""

    def expect(self, node):
        check_keys(node, EXPECT_KEYS, "'expect'")
        for key, value in mapping(node):
            getattr(self, "expect_" + scalar(key))(value)

    def equal(self, node, got, want, what: str):
        self.checks += 1
        if got != want:
            self.fail(node, f"{what}: expected {want}, got {got}")

    def expect_vars(self, node):
        for k, v in mapping(node):
            name = scalar(k)
            var = self.game.prog.var_by_name.get(name)
            if var is None:
                raise ScenarioError(k, f"unknown variable '{name}'")
            if var.per_player:
                for pk, pv in mapping(v, f"a value per player for '{name}'"):
                    p = self.player(pk)
                    got = self.display(var.type, self.state.v[var.base + p])
                    self.equal(pv, got, self.display(var.type, self.value(var.type, pv)),
                               f"{name} of {self.game.player_name(p)}")
            elif var.per_card:
                for ck, cv in mapping(v, f"a value per card for '{name}'"):
                    c = self.card(ck)
                    got = self.display(var.type, self.state.v[var.base + c])
                    self.equal(cv, got, self.display(var.type, self.value(var.type, cv)),
                               f"{name} of {self.game.card_name(c)}")
            else:
                got = self.display(var.type, self.state.v[var.base])
                self.equal(v, got, self.display(var.type, self.value(var.type, v)), name)

    def expect_zones(self, node):
        for k, v in mapping(node):
            zone = self.zone(k)
            got = sorted(self.game.card_name(c) for c in self.state.z[zone])
            want = sorted(self.game.card_name(c) for c in self.cards(v))
            self.equal(v, " ".join(got), " ".join(want), f"cards in {scalar(k)}")

    def expect_count(self, node):
        for k, v in mapping(node):
            self.equal(v, len(self.state.z[self.zone(k)]), integer(v), f"number of cards in {scalar(k)}")

    def expect_top(self, node):
        for k, v in mapping(node):
            cards = self.state.z[self.zone(k)]
            got = self.game.card_name(cards[-1]) if cards else "nothing"
            self.equal(v, got, self.game.card_name(self.card(v)), f"top card of {scalar(k)}")

    def expect_to_move(self, node):
        p = self.state.current_player()
        got = self.game.player_name(p) if p >= 0 else "nobody"
        want = scalar(node)
        self.equal(node, got, want if want == "nobody" else self.game.player_name(self.player(node)), "to move")

    def legal_strings(self) -> list[str]:
        return sorted({self.state.action_to_string(a) for a in self.state.legal_actions()})

    def move_name(self, text: str) -> str:
        """A move as the game writes it, however it was typed (a card by its value names, say)."""
        return self.game.canonical_move(self.state, text)

    def expect_legal(self, node):
        want = sorted({self.move_name(scalar(x)) for x in sequence(node, "a list of moves")})
        self.equal(node, self.legal_strings(), want, "legal moves")

    def expect_legal_includes(self, node):
        legal = self.legal_strings()
        for x in sequence(node, "a list of moves"):
            self.checks += 1
            if self.move_name(scalar(x)) not in legal:
                self.fail(x, f"'{scalar(x)}' is not a legal move; the legal moves are: {', '.join(legal)}")

    def expect_legal_excludes(self, node):
        legal = self.legal_strings()
        for x in sequence(node, "a list of moves"):
            self.checks += 1
            if self.move_name(scalar(x)) in legal:
                self.fail(x, f"'{scalar(x)}' is a legal move, but the scenario expects it not to be")

    def expect_results(self, node):
        for k, v in mapping(node):
            p = self.player(k)
            got = self.state.results[p] or "none"
            if self.state.grades is not None and self.state.grades[p] is not None:
                got = "{} of {}".format(*self.state.grades[p])  # a graded result: "3 of 52"
            self.equal(v, got, scalar(v), f"result of {self.game.player_name(p)}")

    def expect_places(self, node):
        for k, v in mapping(node):
            p = self.player(k)
            self.equal(v, self.state.places[p], integer(v), f"place of {self.game.player_name(p)}")

    def expect_returns(self, node):
        want = [float(integer(x, "a number")) for x in sequence(node, "a list of numbers")]
        self.equal(node, self.state.returns(), want, "returns")

    def expect_over(self, node):
        want = scalar(node).lower() in ("true", "yes")
        self.equal(node, self.state.is_terminal(), want, "game over")

    def expect_round(self, node):
        self.equal(node, self.state.round_number, integer(node), "round")

    def expect_said(self, node):
        text = scalar(node)
        self.checks += 1
        if not any(text in said for _, _, said, _ in self.state.log):
            self.fail(node, f"nobody said anything containing '{text}'")

    def expect_known(self, node):
        for k, v in mapping(node, "cards known per player"):
            p = self.player(k)
            got = sorted(self.game.card_name(c) for c in self.state.known if self.state.knows(p, c))
            want = sorted(self.game.card_name(c) for c in self.cards(v))
            self.equal(v, " ".join(got), " ".join(want), f"cards revealed to {self.game.player_name(p)}")

    def expect_seen(self, node):
        """The exact cards a player sees in zones, as their observation shows them: every card of a
        zone shown to them, the top card of a 'top' zone, and the cards they were shown."""
        for k, zones in mapping(node, "zones seen per player"):
            p = self.player(k)
            for zk, v in mapping(zones, "cards seen per zone"):
                inst = self.zone(zk)
                got = sorted(self.game.card_name(c) for c in self.game.cards_seen(self.state, inst, p))
                want = sorted(self.game.card_name(c) for c in self.cards(v))
                self.equal(v, " ".join(got), " ".join(want),
                           f"cards {self.game.player_name(p)} sees in {self.game.zone_instance_name(inst)}")


    def expect_told(self, node):
        """What a player was told of the cards of zones (`reveal c.ATTR`), place by place from the
        bottom, as their view shows it: 'red', 'not red, 5', '?' for nothing."""
        for k, zones in mapping(node, "zones per player"):
            p = self.player(k)
            for zk, v in mapping(zones, "what was told per place of a zone"):
                inst = self.zone(zk)
                got = [self.game.told_text(self.state, p, c) or "?" for c in self.state.z[inst]]
                want = [str(scalar(x, "what was told of one card: red, not 5, ?")) for x in
                        sequence(v, "a list, one item per card from the bottom")]
                self.equal(v, got, want,
                           f"what {self.game.player_name(p)} was told of {self.game.zone_instance_name(inst)}")
