"""The secrecy check (language/secrecy.py): a game that shows a player what they may not know is
refused by `check`, at the place of the flow; the ways a file says what the real game shows
(`reveal`, `say ... to`, hidden variables) are accepted and do what they say."""
from pathlib import Path

import pytest

import gamedsl
from gamedsl.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent

# A two-player game: each player holds two cards; P2 guesses P1's first card's rank.
BASE = '''game "Guess"
players 2
attribute rank: 1, 2, 3, 4, 5
attribute suit: red, blue
cards rank * suit
zone deck: hidden, stack
zone hand per player: owner
zone pile: top, stack
zone shown: public
var score per player = 0
'''
PLAY = '''
action pass "pass" { }
round { shuffle deck  deal 2 from deck to hand  for each p in players { turn p { choose pass } }  end game }
outcome { for each p in players { win p } }
'''


def errors(body: str, play: str = PLAY) -> list[str]:
    """The secrecy errors of BASE + body + play, as `file:line:col: error: message` lines."""
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(BASE + body + play, "guess.game")
    return [line for line in info.value.format().splitlines() if ": error: " in line]


def at(n: int) -> str:
    """The line number of the n-th line of a body."""
    return f"guess.game:{BASE.count(chr(10)) + n}:"


def loads(body: str, play: str = PLAY):
    return gamedsl.load_source(BASE + body + play, "guess.game")


def test_a_line_saying_a_hidden_cards_attribute_is_refused_at_its_value():
    errs = errors('''on round start { }
setup { say "the next card is a {top(deck).rank}" }
''')
    assert errs == [f"{at(2)}34: error: this line says it, but 'top(deck).rank' is known to nobody: 'deck' shows "
                    "its cards to nobody"]


def test_a_line_said_under_a_hidden_condition_is_refused():
    errs = errors('''action look "look" { if top(deck).rank == 5 { say "lucky" } }
round { shuffle deck  deal 2 from deck to hand  for each p in players { turn p { choose look } }  end game }
outcome { for each p in players { win p } }
''', play="")
    assert len(errs) == 1 and errs[0].startswith(f"{at(1)}47: error: whether this line is said is seen by those it "
                                                 "is said to, but this line is known to nobody")


def test_a_condition_the_player_moving_knows_may_steer_what_is_said():
    """"Draw until you can play": the table sees the player could not; that is the rule, not a leak."""
    loads('''action draw_on "draw" { while not any(c in me.hand if c.rank == 5) and count(deck) > 0 {
    move top(deck) to me.hand  say "draws again" } }
round { shuffle deck  deal 2 from deck to hand  for each p in players { turn p { choose draw_on } }  end game }
outcome { for each p in players { win p } }
''', play="")


def test_a_per_card_mark_said_aloud_is_refused():
    errs = errors('''var mark per card = 0
setup { shuffle deck  top(deck).mark = 1 }
round { shuffle deck  deal 2 from deck to hand  say "{top(deck).mark}"  end game }
outcome { for each p in players { win p } }
''', play="")
    assert errs == [f"{at(3)}55: error: this line says it, but 'top(deck).mark' is known to nobody: 'mark' is written "
                    "on a card not everyone sees"]


def test_the_length_of_a_said_list_of_hidden_cards_is_refused():
    errs = errors('''setup { say "hearts in the deck: {filter(c in deck if c.suit == red)}" }
''')
    assert errs == [f"{at(1)}35: error: how many things this line lists is said, but 'filter(c in deck if c.suit == "
                    "red)' is known to nobody: 'deck' shows its cards to nobody"]


def test_a_parameter_a_hidden_card_changes_is_refused_where_it_is_said():
    errs = errors('''param bonus = 1
modifier lucky while count(deck) > 0 and top(deck).rank == 5 { bonus += 1 }
setup { say "the bonus is {bonus}" }
''')
    assert len(errs) == 1 and errs[0].startswith(f"{at(3)}28: error: this line says it, but 'bonus' is known to "
                                                 "nobody: parameter 'bonus' reads 'deck' shows its cards to nobody")


def test_a_shown_variable_computed_from_a_hand_is_refused():
    errs = errors('''var highest: card "the highest card"
var total per player = 0
on round start { }
action count_up "count" { highest = best(c in me.hand by c.rank)  me.total = sum(number(c.rank) for c in me.hand) }
''', play='''round { shuffle deck  deal 2 from deck to hand  for each p in players { turn p { choose count_up } }  end game }
outcome { for each p in players { win p } }
''')
    assert errs == [
        f"{at(4)}37: error: 'highest' is shown to everyone, but 'best(c in me.hand by c.rank)' is known to only me: "
        "'hand' shows its cards to only me",
        f"{at(4)}78: error: 'total' is shown to everyone, but 'sum(number(c.rank) for c in me.hand)' is known to "
        "only me: 'hand' shows its cards to only me",
    ]


def test_an_owner_variable_may_hold_its_players_secret_but_not_another_players():
    loads('''owner var mine per player = 0
action note "note" { me.mine = number(top(me.hand).rank) }
round { shuffle deck  deal 2 from deck to hand  for each p in players { turn p { choose note } }  end game }
outcome { for each p in players { win p } }
''', play="")
    errs = errors('''owner var mine per player = 0
action note "note" { next(me).mine = number(top(me.hand).rank) }
round { shuffle deck  deal 2 from deck to hand  for each p in players { turn p { choose note } }  end game }
outcome { for each p in players { win p } }
''', play="")
    assert len(errs) == 1 and "'mine' of a player is shown to that player, but 'number(top(me.hand).rank)' is " \
                              "known to only me" in errs[0]


def test_a_move_allowed_by_a_hidden_card_or_another_players_secret_is_refused():
    errs = errors('''hidden var guessed per player = 0
owner var secret per player = 0
action a "a" if top(deck).rank != 1 "the deck's top card is a 1" { }
action b "b" if next(me).secret > 0 { }
action c "c" (x in deck) { }
''', play='''round { shuffle deck  for each p in players { turn p { choose a, b, c } }  end game }
outcome { for each p in players { win p } }
''')
    assert errs == [
        f"{at(3)}17: error: whether 'a' is allowed is seen by the player moving, but 'top(deck).rank != 1' is known to "
        "nobody: 'deck' shows its cards to nobody",
        f"{at(4)}17: error: whether 'b' is allowed is seen by the player moving, but 'next(me).secret > 0' is known to "
        "only next(me): 'secret' is shown only to its player",
        f"{at(5)}20: error: the cards 'c' offers are seen by the player moving, but 'deck' is known to nobody: 'deck' "
        "shows its cards to nobody",
    ]


def test_knowing_what_another_player_was_shown_is_not_a_condition_of_a_move():
    errs = errors('''action peek "peek" (c in me.hand) if knows(next(me), c) { }
round { shuffle deck  deal 2 from deck to hand  for each p in players { turn p { choose peek } }  end game }
outcome { for each p in players { win p } }
''', play="")
    assert len(errs) == 1 and "'knows(next(me), c)' is known to only next(me)" in errs[0]


def test_a_shown_variables_when_may_read_only_what_the_player_looking_knows():
    errs = errors('''var flag = 0 "flag" when top(deck).rank == 5
var mine = 0 "mine" when count(me.hand) > 1
''')
    assert errs == [f"{at(1)}26: error: whether 'flag' is shown is seen by the player looking, but "
                    "'top(deck).rank == 5' is known to nobody: 'deck' shows its cards to nobody"]


def test_a_hidden_variable_carries_what_was_written_into_it():
    errs = errors('''hidden var copy = 0
hidden var turns = 0
setup { shuffle deck  copy = number(top(deck).rank) }
round { turns += 1  say "turn {turns}"  say "the copy is {copy}"  end game }
outcome { for each p in players { win p } }
''', play="")
    assert len(errs) == 1 and errs[0].startswith(f"{at(4)}59: error: this line says it, but 'copy' is known to "
                                                 "nobody: 'copy' is set from 'deck' shows its cards to nobody")


def test_a_card_played_face_up_is_known_to_all_and_so_is_what_the_rule_read_of_it():
    """Laus's `led = c.family` is read from the hand, but the card lands face up in the same move."""
    loads('''var led: rank "led"
action play (c in me.hand) { led = c.rank  move c to shown }
round { shuffle deck  deal 2 from deck to hand  for each p in players { turn p { choose play } }  end game }
outcome { for each p in players { win p } }
''', play="")
    errs = errors('''var led: rank "led"
action play (c in me.hand) { led = c.rank  move c to deck }
round { shuffle deck  deal 2 from deck to hand  for each p in players { turn p { choose play } }  end game }
outcome { for each p in players { win p } }
''', play="")
    assert len(errs) == 1 and "'led' is shown to everyone, but 'c.rank' is known to only me" in errs[0]


def test_reveal_lets_a_scoring_say_what_the_cards_turned_up_show():
    leaking = '''round { shuffle deck  deal 2 from deck to hand
  for each p in players { p.score = sum(number(c.rank) for c in p.hand) }  end game }
outcome { for each p in players { win p } }
'''
    assert len(errors(leaking, play="")) == 1
    loads(leaking.replace("deal 2 from deck to hand", "deal 2 from deck to hand  reveal hand"), play="")
    loads(leaking.replace("{ p.score", "{ reveal p.hand  p.score"), play="")


def test_reveal_of_a_fact_lets_the_lines_after_it_say_it():
    """Go Fish: the player asked answers aloud."""
    asking = '''action ask "ask for" (k in values(rank)) {
  REVEAL
  if any(c in next(me).hand if c.rank == k) { say "yes" } else { say "go fish" } }
round { shuffle deck  deal 2 from deck to hand  for each p in players { turn p { choose ask } }  end game }
outcome { for each p in players { win p } }
'''
    assert len(errors(asking.replace("REVEAL", ""), play="")) == 2
    loads(asking.replace("REVEAL", "reveal any(c in next(me).hand if c.rank == k)"), play="")


def test_say_to_a_player_may_tell_them_their_own_cards_and_nobody_else_reads_it():
    game = loads('''action draw "draw" { move top(deck) to me.hand  say "you drew a {top(me.hand).rank}" to me }
round { shuffle deck  for each p in players { turn p { choose draw } }  end game }
outcome { for each p in players { win p } }
''', play="")
    state = game.new_state(players=2, seed=1)
    state.apply_action(state.legal_actions()[0])
    rank = game.card_name(state.zone_cards("hand", 0)[-1])[0]
    assert state.observation(0)["log"] == [f"P1: you drew a {rank}"]
    assert state.observation(1)["log"] == []
    assert game.lines_read(state, -1) == []  # a spectator reads what every seat reads
    assert errors('''action draw "draw" { move top(deck) to me.hand  say "they drew a {top(me.hand).rank}" to next(me) }
round { shuffle deck  for each p in players { turn p { choose draw } }  end game }
outcome { for each p in players { win p } }
''', play="")


def test_reveal_zone_shows_every_card_of_it_to_everyone():
    game = loads('''action show "show" { reveal me.hand }
action show_all "everyone shows" { reveal hand }
round { shuffle deck  deal 2 from deck to hand  turn seat(1) { choose show }  turn seat(2) { choose show_all }  end game }
outcome { for each p in players { win p } }
''', play="")
    state = game.new_state(players=2, seed=3)
    p1 = [game.card_name(c) for c in state.zone_cards("hand", 0)]
    p2 = [game.card_name(c) for c in state.zone_cards("hand", 1)]
    state.apply_action(state.legal_actions()[0])  # P1 shows their hand
    assert sorted(state.observation(1)["zones"]["hand"]["P1"]["known"]) == sorted(p1)
    assert "known" not in state.observation(0)["zones"]["hand"]["P2"]
    state.apply_action(state.legal_actions()[0])  # every player shows theirs
    assert sorted(state.observation(0)["zones"]["hand"]["P2"]["known"]) == sorted(p2)


def test_a_number_written_face_down_is_shown_to_the_others_without_it():
    game = loads('''owner var bid per player = 0
action write "bid" (n in 0..3) { me.bid = n }
round { for each p in players { turn p { choose write } }  end game }
outcome { for each p in players { win p } }
''', play="")
    assert game.prog.hidden_params == {"write"}
    state = game.new_state(players=2, seed=0)
    state.apply_action(next(a for a in state.legal_actions() if game.action_to_string(a) == "bid 2"))
    assert state.observation(1)["moves"] == ["P1: bid a number"]
    assert state.var("bid", 0) == 2 and "bid" not in state.observation(1)["vars"] or \
        state.observation(1)["vars"]["bid"] == {"P2": 0}
    shown = loads('''var bid per player = 0
action write "bid" (n in 0..3) { me.bid = n }
round { for each p in players { turn p { choose write } }  end game }
outcome { for each p in players { win p } }
''', play="")
    assert shown.prog.hidden_params == frozenset()


def test_every_shipped_game_passes_the_check():
    for path in sorted((ROOT / "games").glob("*.game")):
        assert gamedsl.load_game(path).prog.leaks == (), path.name


def test_check_reports_leaks_and_replay_warns_but_replays(tmp_path, capsys):
    """A log played before the check refused its game still replays (tests/logs hold such games)."""
    bad = tmp_path / "bad.game"
    bad.write_text(BASE + 'setup { say "the next card is a {top(deck).rank}" }\n' + PLAY, encoding="utf-8")
    assert main(["check", str(bad)]) == 1
    assert "error: this line says it, but 'top(deck).rank' is known to nobody" in capsys.readouterr().err
    log = ROOT / "tests" / "logs" / "laus.jsonl"
    assert main(["replay", str(log)]) == 0
    out = capsys.readouterr()
    assert "warning: 'last_deal' is shown to everyone" in out.err and "same final state" in out.out


def test_holdems_old_showdown_line_is_refused():
    """The showdown named the ranks of hole cards never turned up; the file now shows the hands
    (`reveal hand`, folded ones are mucked) and lists the cards."""
    text = (ROOT / "games" / "holdem.game").read_text(encoding="utf-8")
    old = text.replace("    reveal hand                      # the showdown: the hands still in are shown (folded ones are mucked)\n", "")
    assert old != text
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(old, "holdem.game")
    lines = [line for line in info.value.format().splitlines() if ": error: " in line]
    assert lines and all(140 <= int(line.split(":")[1]) <= 151 for line in lines)  # the showdown's lines
    assert any("'chips' is shown to everyone" in line for line in lines)
    assert any("how many things this line lists is said" in line or "this line says" in line for line in lines)
