"""Families of zones: numbered zones (`zone column[7]`), a zone per value of an attribute (`zone pile
per suit`), per player or shared, addressed by number or value in rules, moves, triggers and views;
`zone_of(c)` and `above(c)`."""
import pytest

import gamedsl
from gamedsl.language.format import format_source

FAMILIES = '''game "Families"
players 2
attribute rank: 1, 2, 3, 4, 5, 6, 7, 8
attribute suit: red "R", black "B"
cards rank * suit
zone deck: hidden, stack
zone column[3]: public, stack
zone pile per suit: public, stack "pile"
zone row[2] per player: owner
var moved: number
var blacks: number
param tall = if count(column[1]) > 2 then 1 else 0
action lay "lay on column" (k in 1..3) { move top(deck) to column[k]  moved += 1 }
action sort "sort" (c in me.row[1]) { move c to pile[c.suit] }
on move c to pile[black] { blacks += 1 }
setup {
  for each k in 1..3 { move top(deck) to column[k] }
  for each p in players { move top(deck) to p.row[1]  move top(deck) to p.row[2] }
}
round {
  for each p in players { turn p { choose lay, sort } }
  if count(deck) < 3 { end game }
}
outcome { places p in players by count(pile[red]) descending }
'''


def game_of(text=FAMILIES):
    return gamedsl.load_source(text, "f.game")


def names(game, cards):
    return [game.card_name(c) for c in cards]


def test_each_zone_of_a_family_is_a_zone_of_its_own_on_the_table():
    game = game_of()
    state = game.new_state(players=2, seed=1)
    zones = state.observation(0)["zones"]
    assert list(zones) == ["deck", "column[1]", "column[2]", "column[3]", "pile[red]", "pile[black]", "row[1]", "row[2]"]
    assert all(len(zones[f"column[{k}]"]) == 1 for k in (1, 2, 3))
    assert zones["row[1]"]["P2"] == {"count": 1} and len(zones["row[1]"]["P1"]) == 1
    assert [z.label for z in game.prog.zones if z.family == "pile"] == ["R pile", "B pile"]
    assert [state.action_to_string(a) for a in state.legal_actions()][:3] == \
        ["lay on column 1", "lay on column 2", "lay on column 3"]


def test_rules_reach_a_zone_by_its_number_or_value_and_triggers_and_parameters_follow():
    game = game_of()
    state = game.new_state(players=2, seed=1)
    col = [game.prog.zone_by_name[f"column[{k}]"].base for k in (1, 2, 3)]
    top = state.z[game.prog.zone_by_name["deck"].base][-1]
    state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == "lay on column 1"))
    assert state.z[col[0]][-1] == top and game.prog.params["tall"](state) == 0
    state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == "lay on column 1"))
    assert game.prog.params["tall"](state) == 1  # the parameter read column[1] again: its cache follows the family
    state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a).startswith("lay")))
    card = state.z[game.prog.zone_by_name["row[1]"].base + state.current_player()][0]  # the sorter's
    suit = game.prog.attributes[1][1][game.prog.card_attrs["suit"][card]]
    state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a).startswith("sort")))
    assert state.z[game.prog.zone_by_name[f"pile[{suit}]"].base] == [card]
    assert state.v[game.prog.var_by_name["blacks"].base] == (1 if suit == "black" else 0)


def test_zone_of_and_above():
    game = game_of(FAMILIES.replace(
        'action sort', 'action lift "lift" (c in column[2]) { for each x in [c] + above(c) { move x to column[3] } '
                       ' if zone_of(c) == column[3] { moved += 10 } }\naction sort').replace(
        "choose lay, sort", "choose lay, sort, lift"))
    state = game.new_state(players=2, seed=1)
    lay2 = next(a for a in state.legal_actions() if state.action_to_string(a) == "lay on column 2")
    state.apply_action(lay2)
    state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == "lay on column 2"))
    two, three = (game.prog.zone_by_name[f"column[{k}]"].base for k in (2, 3))
    bottom, *rest = state.z[two]
    before = list(state.z[three])
    state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == f"lift {game.card_name(bottom)}"))
    assert state.z[two] == [] and state.z[three] == before + [bottom, *rest]
    assert state.v[game.prog.var_by_name["moved"].base] == 12


@pytest.mark.parametrize("change, message", [
    ("move top(deck) to column[k]", None),
    ("move top(deck) to column[4]", "f.game:13:67: error: column[4] is not a zone: 'column' has 3 zones, 1 to 3"),
    ("move top(deck) to column", "f.game:13:60: error: 'column' is a family of 3 zones: name one of them\n"),
    ("move top(deck) to deck[k]", "f.game:13:60: error: only a family of zones is read with [...]"),
    ("move top(deck) to row[k]", "zones 'row' belong to each player: write p.row[...] (or me.row[...])"),
    ("move top(deck) to me.column[k]", "zones 'column' are shared: write column[...]"),
    ("move top(deck) to column[red]", "expected a number, found a suit"),
    ("move top(deck) to pile[k]", "expected a suit, found a number"),
])
def test_a_family_read_wrongly_is_an_error_at_its_place(change, message):
    text = FAMILIES.replace("move top(deck) to column[k]", change)
    if message is None:
        game_of(text)
        return
    with pytest.raises(gamedsl.SourceError) as info:
        game_of(text)
    assert message in info.value.format()


def test_a_number_out_of_the_family_while_the_game_runs_is_a_located_error():
    game = game_of(FAMILIES.replace("(k in 1..3) { move top(deck) to column[k]", "(k in 1..4) { move top(deck) to column[k]"))
    state = game.new_state(players=2, seed=1)
    with pytest.raises(gamedsl.GamedslError) as info:
        state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == "lay on column 4"))
    assert "column[4] is not a zone: 'column' has 3 zones, 1 to 3" in str(info.value)


def test_declarations_that_cannot_be_are_refused():
    for decl, message in (("zone column[0]: public", "a family of zones has 1 to 64 zones, not 0"),
                          ("zone column per colour: public", "unknown attribute 'colour'")):
        with pytest.raises(gamedsl.SourceError) as info:
            game_of(FAMILIES.replace("zone column[3]: public, stack", decl))
        assert message in info.value.format()


def test_the_formatter_keeps_a_family_s_brackets_tight():
    assert format_source(FAMILIES) == FAMILIES
    assert format_source(FAMILIES.replace("column[k]", "column [k]").replace("zone column[3]", "zone column [3]")) \
        == FAMILIES


def test_the_terminal_draws_a_shared_family_as_a_tableau():
    """A column per zone, headed by its label, its cards from the bottom down (Klondike's layout)."""
    from rich.console import Console

    from gamedsl.tools.render import draw_view

    game = game_of()
    state = game.new_state(players=2, seed=1)
    for _ in range(2):
        state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == "lay on column 2"))
    console = Console(width=100, record=True)
    draw_view(console, state.observation(0))
    lines = console.export_text().splitlines()
    head = next(k for k, line in enumerate(lines) if line.split() == ["column", "1", "column", "2", "column", "3"])
    column2 = [game.card_name(c) for c in state.z[game.prog.zone_by_name["column[2]"].base]]
    at = lines[head].index("column 2")
    assert [lines[head + 1 + k][at:at + 8].strip() for k in range(3)] == column2
    assert any(line.split() == ["R", "pile", "B", "pile"] for line in lines)


def test_tops_of_a_family_reads_every_zone_of_it_and_the_check_knows_whose_they_are():
    run = gamedsl.load_source(FAMILIES.replace(
        "setup {", 'setup {\n  say "{count(tops(column))} columns"').replace(
        "outcome {", 'action peek "peek" { say "{tops(me.row)}" to me }\noutcome {').replace(
        "choose lay, sort", "choose lay, sort, peek"), "f.game")
    state = run.new_state(players=2, seed=1)
    assert [str(entry[2]) for entry in state.log] == ["0 columns"]  # said before the deal: no top card yet
    state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == "peek"))
    rows = [state.z[run.prog.zone_by_name[f"row[{k}]"].base][-1] for k in (1, 2)]
    assert state.observation(0)["log"][-1].endswith(
        ", ".join(run.card_name(c) for c in rows))  # said to P1, who sees its own row
    with pytest.raises(gamedsl.SourceError) as info:  # another seat's row is not everyone's to hear
        gamedsl.load_source(FAMILIES.replace("setup {", 'setup {\n  say "{tops(seat(2).row)}"'), "f.game")
    assert "is known to" in info.value.format() and "row" in info.value.format()


def test_piles_seen_only_by_their_count_are_drawn_as_a_row():
    from rich.console import Console

    from gamedsl.tools.render import draw_view
    game = game_of(FAMILIES.replace('zone pile per suit: public, stack "pile"',
                                    'zone pile per suit: public, stack, shows count "pile"'))
    console = Console(width=100, record=True)
    draw_view(console, game.new_state(players=2, seed=1).observation(0))
    assert any("R pile: 0 cards" in line and "B pile: 0 cards" in line for line in console.export_text().splitlines())
