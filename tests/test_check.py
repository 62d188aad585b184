"""Semantic checks: every problem is reported with its line and column, not only the first."""
from pathlib import Path

import pytest

import gamedsl

ROOT = Path(__file__).resolve().parent.parent

BASE = '''game "T"
players 2 to 4
attribute rank: 2, 3, 4
attribute suit: red, blue
cards rank * suit
zone deck: hidden
zone discard: public
zone hand per player: owner
var score per player = 0
var dealer: player
'''


def diagnostics(body: str) -> list[str]:
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(BASE + body, "t.game")
    return [line for line in info.value.format().splitlines() if ": error: " in line]


def line(n: int) -> int:
    return BASE.count("\n") + n


def test_all_semantic_errors_are_reported_with_positions():
    errs = diagnostics('''action play (c in me.hand) if c.rnak == 2 { move c to discrad }
action unused { score = 1 }
round {
  deal 3 from deck to hnd
  move top(deck) to hand
  turn next(dealr) { choose play, pley }
  end round
  say "never"
}
''')
    assert errs == [
        f"t.game:{line(1)}:33: error: unknown card attribute or value 'rnak'",
        f"t.game:{line(1)}:55: error: unknown zone 'discrad'",
        f"t.game:{line(2)}:8: error: action 'unused' is never offered: no 'choose' names it",
        f"t.game:{line(2)}:17: error: 'score' belongs to each player: write p.score",
        f"t.game:{line(4)}:23: error: unknown zone 'hnd'",
        f"t.game:{line(5)}:21: error: zone 'hand' belongs to each player: write p.hand (or me.hand)",
        f"t.game:{line(6)}:13: error: unknown name 'dealr'",
        f"t.game:{line(6)}:35: error: unknown action 'pley'",
        f"t.game:{line(8)}:3: error: this statement can never run: it follows 'end round'",
    ]


def test_hints_suggest_the_closest_name():
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(BASE + "round { move top(deck) to discrad }\n", "t.game")
    assert "hint: did you mean 'discard'?" in info.value.format()


def test_wrong_kinds_are_reported():
    errs = diagnostics('''round {
  move 3 to discard
  dealer = top(deck)
  let n = count(deck) + dealer.hand
  if count(deck) == red { say "x" }
}
''')
    assert errs == [
        f"t.game:{line(2)}:8: error: expected a card, found a number",
        f"t.game:{line(3)}:12: error: expected a player, found a card",
        f"t.game:{line(4)}:25: error: expected a number, found a zone",
        f"t.game:{line(5)}:6: error: cannot compare a number with a suit",
    ]


def test_declarations_are_checked():
    errs = diagnostics('''zone deck: hidden
zone pile: hiden
var x: colour
round { say "x" }
''')
    assert errs == [
        f"t.game:{line(1)}:6: error: 'deck' is already declared as a zone",
        f"t.game:{line(2)}:12: error: unknown zone property 'hiden'",
        f"t.game:{line(3)}:5: error: unknown type 'colour'",
    ]


def test_a_game_needs_players_cards_and_a_flow():
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source('game "Empty"\n', "e.game")
    out = info.value.format()
    # whole-file problems have no line to point at
    assert "e.game: error: the game does not say how many players it is for" in out
    assert "e.game: error: the game has no cards" in out
    assert "nothing ever happens" in out


def test_cards_need_a_zone():
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source('game "T"\nplayers 2\nattribute rank: 1, 2\ncards rank\nround { say "x" }\n', "z.game")
    assert info.value.format().startswith("z.game: error: the game has cards but no zone to put them in")


def test_the_outcome_cannot_ask_for_a_move():
    errs = diagnostics('''action a { say "a" }
round { choose a }
outcome { choose a }
''')
    assert errs == [f"t.game:{line(3)}:11: error: the outcome cannot ask for a move"]


def test_ambiguous_value_names_need_an_attribute():
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source('''game "T"
players 2
attribute colour: red, blue
attribute back: red, green
cards colour * back
zone deck: hidden
var shade: colour = red
round { if red == blue and shade == red { say "x" } let x = red }
''', "t.game")
    errs = [x for x in info.value.format().splitlines() if ": error: " in x]
    # 'blue', 'shade' and the declared type tell which 'red' is meant; a bare 'red' cannot.
    assert errs == ["t.game:8:61: error: 'red' is a value of several attributes (colour, back)"]


def test_variable_visibility_words_are_checked():
    errs = diagnostics('''secret var a = 0
owner var b = 0
round { say "x" }
''')
    assert errs == [
        f"t.game:{line(1)}:1: error: unknown visibility 'secret'",
        f"t.game:{line(2)}:1: error: only a per-player variable has an owner to show it to",
    ]


def test_a_function_cannot_name_a_parameter_twice():
    errs = diagnostics('''def f(x, y, x) = x + y
round { say "x" }
''')
    assert errs == [f"t.game:{line(1)}:5: error: function 'f' names its parameter 'x' twice"]


def test_real_time_constructs_are_checked():
    errs = diagnostics('''option mode: a, b, a "dup"
option style: red
action x anytime spoken { }
action y { race nosuch among players  eliminate 3 }
on speech p if p.score > 0 { }
round { choose y }''')
    text = "\n".join(errs)
    assert "'a' appears twice in option 'mode'" in text
    assert "'red' is already a value of 'suit'" in text
    assert "unknown action 'nosuch'" in text
    assert "expected a player, found a number" in text
    assert "is never offered" not in text          # an anytime action is offered by the engine


def test_the_words_of_the_language_cannot_be_declared():
    errs = diagnostics('''var in_play = 0
def players(p) = 1
round { end game }
''')
    assert errs == [
        f"t.game:{line(1)}:5: error: 'in_play' is a word of the language and cannot be declared",
        f"t.game:{line(2)}:5: error: 'players' is a word of the language and cannot be declared",
    ]


def test_a_declaration_shadows_a_built_in_function_with_a_warning():
    """Issue 42: a Gin Rummy written last week declared `def deadwood`; the built-in added since
    broke it. The file's own meaning wins, and it is told so."""
    game = gamedsl.load_source(BASE + '''def deadwood(p) = count(p.hand) * 10
setup { deal 1 from deck to hand  say "deadwood {deadwood(seat(1))}" }
round { end game }
''', "t.game")
    (warning,) = game.prog.warnings
    assert (warning.severity, warning.span.line, warning.span.column) == ("warning", line(1), 5)
    assert warning.message == "'deadwood' is also the name of a built-in function: in this file 'deadwood' is a " \
                              "function declared here"
    state = game.new_state(players=2, seed=1)
    assert [str(entry[2]) for entry in state.log] == ["deadwood 10"]


def test_a_shadowed_built_in_cannot_be_called_and_errors_keep_the_warning():
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(BASE + '''var count = 0
round { count += count(deck)  end game }
''', "t.game")
    text = info.value.format()
    assert f"t.game:{line(1)}:5: warning: 'count' is also the name of a built-in function" in text
    assert f"t.game:{line(2)}:18: error: 'count' is a variable in this file and cannot be called" in text
    assert "hint: this file's declaration hides the built-in count(...)" in text


def test_every_game_checks_and_plays_alike_with_every_built_in_name_it_does_not_use_declared():
    """A built-in added later never breaks a file: each game in games/, with a declaration of every
    built-in function name it does not use (as a variable, and as a function), checks with one
    warning per name and plays the same random games."""
    import random
    import re

    from gamedsl.language.context import BUILTINS, PRONOUNS

    root = Path(gamedsl.__file__).parents[1] / "games"
    for path in sorted(root.glob("*.game")):
        text = path.read_text(encoding="utf-8")
        read = text + "".join((root / name).read_text(encoding="utf-8") for name in re.findall(r'extends "([^"]+)"', text))
        free = sorted(n for n in BUILTINS - PRONOUNS if not re.search(rf"\b{n}\b", read))
        assert free, path.name
        plain = gamedsl.load_game(str(path))
        for form in ("var {} = 0", "def {}(x) = x + 1"):
            copy = text.rstrip("\n") + "\n" + "\n".join(form.format(n) for n in free) + "\n"
            game = gamedsl.load_source(copy, str(path))
            assert sorted(w.message.split("'")[1] for w in game.prog.warnings) == free, path.name
            for seed in range(2):
                runs = []
                for g in (plain, game):
                    state, rng = g.new_state(players=g.min_players, seed=seed), random.Random(seed)
                    while not state.is_terminal() and state.moves < 300:
                        legal = sorted(state.legal_actions())
                        state.apply_action(legal[rng.randrange(len(legal))])
                    runs.append((list(state.history), [str(entry[2]) for entry in state.log]))
                assert runs[0] == runs[1], (path.name, form, seed)


def test_card_needs_values_that_name_one_card():
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(BASE + 'round { move card(3) to discard  end game }', "t.game")
    text = info.value.format()
    assert f"t.game:{line(1)}:14: error: 'card' takes one value per attribute: these values name several cards" in text
    assert "hint: give a value of 'suit' too" in text


MIXED = """game "Mixed"
players 2
attribute rank: 2, 3, 4
attribute suit: spades, hearts
attribute special: dog "Dog", dragon "Dragon"
cards rank * suit
cards special
zone deck: hidden, stack
zone pile: public
setup { move CARD to pile }
round { end game }
outcome { }
"""


@pytest.mark.parametrize("card, hint", [("card(2, spades)", None), ("card(dog)", None), ("card(c.rank, hearts)", None),
                                        ("card(2)", "hint: give a value of 'suit' too")])
def test_card_names_a_card_of_a_deck_whose_cards_have_different_attributes(card, hint):
    """Issue 42: Tichu's deck has ranked cards and four specials without rank or suit; `card(2, spades)`
    was refused ("these values name several cards"), with a hint naming 'special'."""
    text = MIXED.replace("CARD", card)
    if "c.rank" in text:
        text = text.replace("move CARD to pile".replace("CARD", card), f"for each c in deck {{ if c.rank == 3 {{ move {card} to pile }} }}")
    if hint is None:
        state = gamedsl.load_source(text, "t.game").new_state(players=2, seed=1)
        assert len(state.z[state.prog.zone_by_name["pile"].base]) >= 1
        return
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(text, "t.game")
    assert "these values name several cards" in info.value.format() and hint in info.value.format()


def test_parameters_that_depend_on_themselves_through_modifiers_are_errors():
    errs = diagnostics('''param a = 1
param b = 2
def doubled_b() = 2 * b
modifier m1 while count(discard) > 0 { a += doubled_b() }
modifier m2 while a > 1 { b += 1 }
round { end game }
''')
    assert errs == [f"t.game:{line(4)}:40: error: parameter 'a' depends on itself: 'a' -> 'b' -> 'a'"]
    errs = diagnostics('''param hand_limit = 7
modifier generous while hand_limit > 5 { hand_limit += 1 }
round { end game }
''')
    assert errs == [f"t.game:{line(2)}:42: error: parameter 'hand_limit' depends on itself: "
                    "'hand_limit' -> 'hand_limit'"]


def test_a_step_the_player_orders_needs_words_no_action_has():
    errs = diagnostics('''action discard_one "discard" (c in me.hand) { move c to discard }
on turn end "discard" { choose discard_one }
round { turn seat(1) { } end game }
''')
    assert errs == [f"t.game:{line(2)}:1: error: the step 'discard' has the words of the action 'discard_one': "
                    "a typed move would be read as either"]


def test_with_at_least_counts_cards_of_an_attribute_other_than_the_run():
    errs = diagnostics('''pattern run3: 3 cards, run of rank, with at least 2 red, with at least 2 3
round { if has(deck, run3) { say "yes" } }
''')
    assert errs == [f"t.game:{line(1)}:58: error: a run holds one card of each rank: 'with at least' counts "
                    "the cards of another attribute"]


def test_a_loop_that_surely_never_ends_is_an_error():
    errs = diagnostics('''var n = 0
action go { n += 1 }
round {
  while true { n += 1 }
  while count(deck) > 0 { say "waiting" }
  while n < 3 { n += 1 }
  while count(deck) > 0 { move top(deck) to discard }
  while n < 9 { choose go }
  while false { say "never" }
  while not knows(seat(2), top(deck)) { reveal top(deck) to seat(2) }
}
''')
    message = "this loop never ends once it begins: nothing in it changes what its condition reads"
    assert errs == [f"t.game:{line(4)}:3: error: {message}", f"t.game:{line(5)}:3: error: {message}"]


# ---- what the table shows: messages with values, labels, `when`, `shows` --------------------

def test_a_message_s_values_are_checked_where_they_are_written():
    errs = diagnostics('''def pick() = random(players)
round {
  say "{scroe} for {me.scroe}, {deck} cards, {random(players)} or {pick()} {{ok}}"
  say "{count(deck)} {dealer == 1}"
  end game
}
''')
    assert errs == [
        f"t.game:{line(3)}:9: error: unknown name 'scroe'",
        f"t.game:{line(3)}:24: error: unknown per-player variable or zone 'scroe'",
        f"t.game:{line(3)}:33: error: a message cannot say a zone",
        f"t.game:{line(3)}:47: error: a message cannot draw at random: saying it would change what happens next",
        f"t.game:{line(3)}:68: error: a message cannot draw at random: saying it would change what happens next",
        f"t.game:{line(4)}:23: error: cannot compare a player with a number",
    ]


def test_a_misspelt_name_in_a_message_gets_a_did_you_mean_and_a_zone_a_hint():
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(BASE + 'round { say "{dealr} has {discard}"  end game }\n', "t.game")
    text = info.value.format()
    assert f"t.game:{line(1)}:15: error: unknown name 'dealr'" in text and "hint: did you mean 'dealer'?" in text
    assert "hint: say how many cards it holds: {count(discard)}" in text


def test_braces_in_a_message_are_syntax_reported_at_their_column():
    errs = diagnostics('''round {
  say "a {me" say "b } c" say "{} and {  }"
  say "{me.}" say "{1 +* 2}" say "fine {{}} {me}"
  end game
}
''')
    assert errs == [
        f"t.game:{line(2)}:10: error: this '{{' is never closed",
        f"t.game:{line(2)}:22: error: a '}}' with no '{{' before it",
        f"t.game:{line(2)}:32: error: '{{}}' holds no value",
        f"t.game:{line(2)}:39: error: '{{}}' holds no value",
        f"t.game:{line(3)}:12: error: the value in braces is not complete: expected a name before '}}'",
        f"t.game:{line(3)}:24: error: expected an expression, found '*'",
    ]


def test_labels_when_and_shows_are_checked():
    errs = diagnostics('''hidden var steps = 0 "steps"
hidden var flag = false when true
var empty = 0 ""
var named: suit "suit named" when dealer
zone pot: public, shows pile
zone trick: public, shows top
zone blank: hidden, shows count ""
zone twice: hidden, shows count, shows nothing
round { end game }
''')
    assert errs == [
        f"t.game:{line(1)}:1: error: 'steps' is hidden: the table never shows it, so it has no label",
        f"t.game:{line(2)}:1: error: 'flag' is hidden: the table never shows it, so it has no condition to be shown",
        f"t.game:{line(3)}:5: error: the label of 'empty' is empty",
        f"t.game:{line(4)}:35: error: expected a yes/no condition, found a player",
        f"t.game:{line(5)}:25: error: unknown way to show a zone 'pile'",
        f"t.game:{line(6)}:27: error: only a pile has a top card to show",
        f"t.game:{line(7)}:6: error: the label of 'blank' is empty",
        f"t.game:{line(8)}:40: error: zone 'twice' says twice how it shows",
    ]


# ---- one mistake, one message: a typo in a name gives one error, naming it, with the right hint

def _typo(name: str) -> str | None:
    """The name with two letters swapped (hand -> hnad), as a typing slip makes it."""
    for i in range(1, len(name) - 1):
        if name[i] != name[i + 1] and name[i].isalpha() and name[i + 1].isalpha():
            return name[:i] + name[i + 1] + name[i] + name[i + 2:]
    return None


def _uses(text: str, name: str):
    """Where a name is used (not declared, not in a comment or a string), as offsets in the text."""
    import re
    declaring = re.compile(rf"^\s*(hidden |public )?(zone|var|action|def|option|attribute|value|param|pattern)\s+{name}\b")
    offset, values = 0, False
    for line in text.splitlines(keepends=True):
        code = line.split("#", 1)[0]
        values = line.lstrip().startswith("attribute ") or values  # values are declared there (and on
        if not declaring.match(line) and not values:                 # the lines an attribute goes on to)
            for m in re.finditer(rf"(?<![\w\"]){re.escape(name)}(?![\w\"])", code):
                if code[:m.start()].count('"') % 2 == 0:  # not inside a string
                    yield offset + m.start()
        values = values and code.rstrip().endswith(",")
        offset += len(line)


def _names(game):
    """(kind, name) of the names a game declares and uses by name: functions and steps, card
    attributes, zones, variables (shared, per player, per card), actions, options, attribute values."""
    import re
    prog = game.prog
    yield from (("function", f) for f in re.findall(r"^def (\w+)\(", prog.text, re.M))
    yield from (("attribute", a) for a, _, _ in prog.attributes)
    yield from (("zone", z.family or z.name) for z in prog.zones)  # (a family of zones by its name: column)
    yield from (("variable", v.name) for v in prog.vars)
    yield from (("action", a) for a in prog.action_by_name)
    yield from (("option", o) for o in prog.options)
    for _, values, _ in prog.attributes:
        yield from (("value", v) for v in values if not v[:1].isdigit())


GAME_FILES = sorted((ROOT / "games").glob("*.game"))


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.stem)
def test_a_typo_in_any_name_gives_one_error_naming_it_with_the_name_meant(path):
    import random
    text = path.read_text(encoding="utf-8")
    game = gamedsl.load_game(path)
    known = {n for _, n in _names(game)}
    cases = sorted({(k, n) for k, n in _names(game) if len(n) >= 4})
    random.Random(path.stem).shuffle(cases)
    tried = 0
    for kind, name in cases:
        typo = _typo(name)
        uses = list(_uses(text, name))
        if typo is None or typo in known or not uses:
            continue
        at = uses[len(uses) // 2]
        broken = text[:at] + typo + text[at + len(name):]
        with pytest.raises(gamedsl.SourceError) as caught:
            gamedsl.load_source(broken, str(path))
        diags = caught.value.diagnostics
        line = broken.count("\n", 0, at) + 1
        assert len(diags) == 1, f"{kind} {name} -> {typo} at line {line}: {[d.message for d in diags]}"
        assert f"'{typo}'" in diags[0].message and diags[0].span.line == line, (kind, name, diags[0].message)
        assert diags[0].hint and f"'{name}'" in diags[0].hint, (kind, name, diags[0].message, diags[0].hint)
        tried += 1
        if tried == 16:
            break
    assert tried >= (3 if "extends" in text else 10)  # a variant uses few of its base's names


def test_a_clashing_declaration_is_one_error_not_one_per_use():
    """A variable named like a card value is refused once, at its declaration; its uses are not
    each reported again as unknown (they follow from the clash)."""
    text = (ROOT / "games" / "sushi_go.game").read_text(encoding="utf-8").replace("nigiri_points", "nigiri")
    with pytest.raises(gamedsl.SourceError) as caught:
        gamedsl.load_source(text, "sushi_go.game")
    assert [(d.span.line, d.message, d.hint) for d in caught.value.diagnostics] == [
        (49, "'nigiri' is already declared as a card value", "choose another name")]


def test_a_value_of_numbers_is_read_as_its_number_where_a_number_is_wanted():
    """Issue 42: a rank could not be read as a number (`c.rank + 1`) without number(...)."""
    game = gamedsl.load_source(BASE + '''var total = 0
setup { move card(3, red) to discard
        total = card(3, red).rank * 10 - card(2, blue).rank
        seat(1).score += top(discard).rank
        say "{total} {-card(4, red).rank} {seat(1).score}" }
round { end game }
''', "t.game")
    state = game.new_state(players=2, seed=1)
    assert [str(entry[2]) for entry in state.log] == ["28 -4 3"]
    errs = diagnostics('''attribute face: 9, J
var face_total = 0
setup { face_total = face_total + J }
round { end game }
''')
    assert errs == [f"t.game:{line(3)}:35: error: expected a number, found a face"]
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(BASE + "attribute face: 9, J\nvar t = 0\nsetup { t = t + J }\nround { end game }\n", "t.game")
    assert "hint: J has no number: give each face a number in a `value` table and read that" in info.value.format()



def test_a_value_with_no_number_read_while_the_game_runs_is_a_located_error():
    # number(...) of a face: 9 is 9; J has no number, which only the deal can tell
    game = gamedsl.load_source(BASE.replace("cards rank * suit", "attribute face: 9, J\ncards face * suit") + '''var total = 0
setup { move all from deck to discard
        for each c in discard { total += number(c.face) } }
round { end game }
''', "t.game")
    with pytest.raises(gamedsl.GamedslError) as info:
        game.new_state(players=2, seed=1)
    assert "this value has no number" in str(info.value) and "t.game:14:42: error" in str(info.value)
    nines = gamedsl.load_source(BASE.replace("cards rank * suit", "attribute face: 9, J\ncards 9 * suit") + '''var total = 0
setup { move all from deck to discard
        for each c in discard { total += number(c.face) } }
round { end game }
''', "t.game")
    assert nines.new_state(players=2, seed=1).var("total") == 18


TYPED = """game "Typed"
players 2
attribute rank: 2, 3, 4
attribute suit: spades, hearts
cards rank * suit
zone deck: hidden, stack
zone pile: public
var total: number
def twice(number n) = n * 2
def shade(suit s) = if s == spades then 1 else 2
def into(card c, zone z) { move c to z }
setup { shuffle deck  move top(deck) to pile  total = CALLS }
round { end game }
outcome { }
"""


def test_a_function_may_say_what_kind_each_parameter_is():
    """Issue 42: `number` and `card` parameters were refused. A kind written before a parameter is
    checked at each call: one error at the argument, none in the body."""
    game = gamedsl.load_source(TYPED.replace("CALLS", "twice(3) + twice(top(pile).rank) + shade(top(pile).suit)  "
                                                      "into(top(deck), pile)"), "t.game")
    state = game.new_state(players=2, seed=1)
    first, second = state.z[game.prog.zone_by_name["pile"].base]
    rank, suit = (game.prog.card_attrs[a][first] for a in ("rank", "suit"))  # indices into the values
    assert state.v[game.prog.var_by_name["total"].base] == 6 + 2 * (rank + 2) + (1 if suit == 0 else 2)
    assert second != first
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(TYPED.replace("CALLS", "twice(top(pile)) + shade(top(pile).rank)  into(pile, top(deck))")
                            .replace("def shade", "def odd(cardd c) = c\ndef shade"), "t.game")
    errors = [line for line in info.value.format().splitlines() if ": error: " in line]
    assert [e.split(": error: ")[1] for e in errors] == [
        "unknown kind of parameter 'cardd'",
        "'twice' takes a number as 'n', given a card",
        "'shade' takes a suit as 's', given a rank",
        "'into' takes a card as 'c', given a zone",
        "'into' takes a zone as 'z', given a card",
    ]
