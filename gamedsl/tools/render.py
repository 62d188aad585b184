"""Drawing what one player sees (an observation dict) on a console, with rich.

Nothing here reads a game's state directly: a player's view is drawn only from
`state.observation(player)`, so it cannot show what that player may not see.
"""
from __future__ import annotations

from rich.columns import Columns
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

RED_SYMBOLS = "♥♦♡♢"
BLACK_SYMBOLS = "♣♠♧♤"


# The colour a card is drawn in, by the values of its attributes: a colour's own name, or a suit's.
COLOURS = {"red": "red", "yellow": "yellow", "green": "green", "blue": "blue", "white": "white",
           "black": "black", "purple": "purple", "orange": "orange", "pink": "pink",
           "hearts": "red", "diamonds": "red", "spades": "black", "clubs": "black"}
CARD_COLOURS: dict = {}  # card name -> colour, for the game being played (use_colours)


def card_colours(game) -> dict:
    """Per card name, the colour its attributes give it (the first attribute valued by a colour or a
    suit: a card of colour blue is blue whatever its symbol, "B3" or "7 blue"); cards with none are
    left out."""
    out = {}
    for card in range(game.card_count()):
        for (_, values, _), table in zip(game.prog.attributes, game.attr_tables):
            colour = COLOURS.get(str(values[table[card]]).casefold()) if table[card] >= 0 else None
            if colour:
                out[game.card_name(card)] = colour
                break
    return out


def use_colours(game):
    """Draw the cards of this game in their colours at the terminal (card_text)."""
    CARD_COLOURS.clear()
    CARD_COLOURS.update(card_colours(game))


_STYLES = {"red": "bold red", "black": "bold", "white": "bold white", "yellow": "bold yellow",
           "green": "bold green", "blue": "bold blue", "purple": "bold magenta", "orange": "bold dark_orange",
           "pink": "bold pink1"}


def card_text(text: str, base_style: str = "") -> Text:
    """A text with every card in it drawn in its colour: a card of the game being played as its
    attributes say (use_colours), a word holding a red suit symbol red."""
    out = Text(style=base_style)
    words = str(text).split(" ")
    i = 0
    while i < len(words):
        if i:
            out.append(" ")
        two = " ".join(words[i:i + 2])  # a card named in two words: "7 blue"
        if i + 1 < len(words) and two.rstrip(",.;:") in CARD_COLOURS:
            _coloured(out, two)
            i += 2
            continue
        word = words[i]
        if word.rstrip(",.;:") in CARD_COLOURS:
            _coloured(out, word)
        elif any(s in word for s in RED_SYMBOLS):
            out.append(word, style="bold red")
        elif any(s in word for s in BLACK_SYMBOLS):
            out.append(word, style="bold")
        else:
            out.append(word)
        i += 1
    return out


def _coloured(out: Text, words: str):
    """A card's name in its colour, and the punctuation after it (a list's comma) as it is."""
    name = words.rstrip(",.;:")
    out.append(name, style=_STYLES[CARD_COLOURS[name]])
    out.append(words[len(name):])


def cards_text(cards: list) -> Text:
    if not cards:
        return Text("—", style="dim")
    return Text(" ").join(card_text(c) for c in cards)


def zone_text(view) -> Text:
    """One zone as a player sees it: its cards, or how many there are (and the top one)."""
    if isinstance(view, list):
        return cards_text(view)
    if isinstance(view, dict):
        n = view.get("count", 0)
        if view.get("backs"):  # face down, but the backs show their kind: "4 action"
            count = Text(", ".join(f"{k} {back}" for back, k in view["backs"].items()), style="dim")
        else:
            count = Text(f"{n} card" + ("" if n == 1 else "s"), style="dim")
        if view.get("top") is not None:
            count = Text.assemble("top ", card_text(view["top"]), " (", count, ")")
        if view.get("known"):  # cards revealed to this player, where they lie
            count = Text.assemble(count, " — you know ", cards_text(view["known"]))
        if view.get("told"):  # what this player was told of the cards, by place
            count = Text.assemble(count, Text(" — told: " + told_text(view["told"]), style="dim"))
        return count
    return Text(str(view))


def told_text(told: list) -> str:
    """What a player was told of a zone's cards, by place from the bottom: "1: red · 2: not red, not 1 · 3: ?"."""
    return " · ".join(f"{k}: {t}" for k, t in enumerate(told, 1))


def value_text(value) -> Text:
    """A variable's value: a number, yes/no, a name; a per-card variable as its cards and their
    values ("7♠ P2"), a card alone where the value is yes; "—" for nothing."""
    if value is None or value == {}:
        return Text("—", style="dim")
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    if isinstance(value, dict):
        return Text(", ").join(card_text(k if v is True else f"{k} {value_text(v).plain}") for k, v in value.items())
    return card_text(str(value))


def label_of(obs: dict, name: str) -> str:
    """What the table calls a zone or a variable: the game's label (the observation's "labels"), else
    its name with '_' read as a space."""
    return (obs.get("labels") or {}).get(name) or name.replace("_", " ")


def _family_key(name: str) -> tuple | None:
    """(family, member) of a zone of a family (`column[3]`: ("column", "3")), else None."""
    if name.endswith("]") and "[" in name:
        family, member = name[:-1].split("[", 1)
        return family, member
    return None


def families_renderables(obs: dict, zones: dict, players) -> list:
    """The shared families of zones as tableaus: a column per zone (headed by its label), its cards
    from the bottom down to the top; families with the same members share one tableau, one above the
    other in the order declared (Klondike's face-down piles above their face-up runs). Piles seen only
    by their count and top card (a deck-builder's supply) are a row."""
    groups: dict = {}
    for name, view in zones.items():
        key = _family_key(name)
        if key and not _per_player(view, players):
            groups.setdefault(key[0], []).append((key[1], name, view))
    tables: dict = {}
    for family, members in groups.items():
        tables.setdefault(tuple(m for m, _, _ in members), []).append(members)
    out = []
    for members, families in tables.items():
        if all(not isinstance(v, list) for fam in families for _, _, v in fam):  # piles seen by count and top: a row
            out.append(Columns([Text.assemble((f"{label_of(obs, name)}: ", "cyan"), zone_text(v))
                                for fam in families for _, name, v in fam], padding=(0, 3)))
            continue
        table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
        for _, name, _ in families[-1]:
            table.add_column(label_of(obs, name), header_style="bold cyan", no_wrap=True)
        for fam in families:
            cells = [[card_text(c) for c in v] if isinstance(v, list) else [zone_text(v)] for _, _, v in fam]
            for k in range(max(1, max(len(c) for c in cells))):
                table.add_row(*(c[k] if k < len(c) else (Text("—", style="dim") if k == 0 else "") for c in cells))
        out.append(table)
    return out


def _per_player(value, players) -> bool:
    return isinstance(value, dict) and players and set(value) == set(players)


def view_renderable(obs: dict, log_lines: int = 6):
    """The whole view: header, shared zones and values, a table of players, the last log lines."""
    players = _players_of(obs)
    me = obs.get("player")
    to_move = obs.get("to_move")
    parts = []
    head = Text.assemble((str(obs.get("game", "")), "bold"), f"  round {obs.get('round')}, move {obs.get('move')}")
    if to_move:
        head.append(f"  ·  {to_move} to move" if to_move != me else "  ·  your move", style="bold cyan")
    elif "results" in obs:
        head.append("  ·  game over", style="bold")
    parts.append(head)

    zones, variables = obs.get("zones", {}), obs.get("vars", {})
    tableaus = families_renderables(obs, zones, players)
    shared = [(label_of(obs, name), zone_text(v)) for name, v in zones.items()
              if not _per_player(v, players) and not _family_key(name)]
    shared += [(label_of(obs, name), value_text(v)) for name, v in variables.items() if not _per_player(v, players)]
    if shared:
        items = []
        for name, text in shared:
            item = Text(f"{name}: ", style="cyan")
            item.append_text(text)
            items.append(item)
        parts.append(Columns(items, padding=(0, 3)))
    parts.extend(tableaus)

    per_zone = [name for name, v in zones.items() if _per_player(v, players)]
    per_var = [name for name, v in variables.items() if _per_player(v, players)]
    if players and (per_zone or per_var):
        table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
        table.add_column("", no_wrap=True)
        for name in per_zone:
            table.add_column(label_of(obs, name), header_style="bold cyan")
        for name in per_var:
            table.add_column(label_of(obs, name), justify="right", header_style="bold magenta")
        out = set(obs.get("eliminated", ()))
        team_of = {p: k + 1 for k, team in enumerate(obs.get("teams", ())) for p in team}
        mine = team_of.get(me)
        for p in players:
            label = Text(("▶ " if p == to_move else "  ") + p, style="bold" if p == me else "")
            if p == me:
                label.append(" (you)", style="dim")
            elif mine is not None and team_of.get(p) == mine:
                label.append(" (partner)", style="green")
            if p in team_of:
                label.append(f" team {team_of[p]}", style="dim")
            if p in out:
                label.append(" (out)", style="dim red")
            cells = [zone_text(zones[z][p]) for z in per_zone] + [value_text(variables[v][p]) for v in per_var]
            table.add_row(label, *cells)
        parts.append(table)

    if obs.get("window") == "react":
        parts.append(Text("React now, or let it pass: everyone asked answers at once, the fastest counts.",
                          style="bold yellow"))
    elif obs.get("window") == "race":
        parts.append(Text("Race! Everyone answers at once; the answers count fastest first.", style="bold yellow"))
    elif obs.get("window") == "simultaneous":
        parts.append(Text("Choose in secret: everyone's choices are shown together, once all have chosen.",
                          style="bold yellow"))

    lines = obs.get("log") or []
    if lines and log_lines:
        parts.append(Text("Last events:", style="dim"))
        for line in lines[-log_lines:]:
            parts.append(Text.assemble("  ", card_text(line, "italic")))
    return Group(*parts)


def _players_of(obs: dict) -> list[str]:
    """The players' names, in seat order, as the observation lists them."""
    for v in list(obs.get("zones", {}).values()) + list(obs.get("vars", {}).values()):
        if isinstance(v, dict) and v and all(isinstance(k, str) and k[:1] == "P" and k[1:].isdigit() for k in v):
            return list(v)
    for key in ("results", "places"):
        if isinstance(obs.get(key), dict):
            return list(obs[key])
    return []


def moves_renderable(moves: list[str], keys: list[str] | None = None):
    """The legal moves, numbered from 1 (or with the given keys)."""
    keys = keys or [str(i) for i in range(1, len(moves) + 1)]
    items = [Text.assemble((f"{k:>2}. ", "bold yellow"), card_text(m)) for k, m in zip(keys, moves)]
    if len(items) <= 4:
        return Group(*items)
    return Columns(items, padding=(0, 3), equal=True, column_first=True)


def draw_view(console: Console, obs: dict, moves: list[str] | None = None):
    """Draw a player's view and, if given, the numbered list of their moves."""
    console.print()
    console.rule(Text(f"{obs.get('player')}", style="bold"), align="left")
    console.print(view_renderable(obs))
    if moves:
        draw_moves(console, moves)


def draw_moves(console: Console, moves: list[str], keys: list[str] | None = None):
    """The numbered list of a player's moves (or keyed, as a race's answers are)."""
    console.print(Text("Your moves:", style="bold"))
    console.print(moves_renderable(moves, keys))


def move_line(player: str, text: str, you: bool = False) -> Text:
    """One move as a line of the running commentary: 'P2 plays: play J♣'."""
    who = Text(player, style="bold")
    if you:
        who.append(" (you)", style="dim")
    return Text.assemble(who, " plays: ", card_text(text))


def results_table(players: list[str], seats: list[str], state_info: dict) -> Table:
    """The end of a game: one row per player with place, result, return and their final values.

    state_info has 'places', 'results', 'returns' (lists in seat order) and 'vars' (the final
    observation's variables), and may have 'labels' (the observation's: what the columns are called).
    """
    table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
    for name, justify in (("player", "left"), ("seat", "left"), ("place", "right"), ("result", "left"),
                          ("return", "right")):
        table.add_column(name, justify=justify, header_style="bold")
    per_var = [name for name, v in state_info.get("vars", {}).items() if _per_player(v, players)]
    for name in per_var:
        table.add_column(label_of(state_info, name), justify="right", header_style="bold magenta")
    for k, p in enumerate(players):
        place = state_info["places"][k]
        result = state_info["results"][k]
        ret = state_info["returns"][k]
        style = {"win": "bold green", "lose": "red"}.get(result, "bold green" if ret > 0 else "red" if ret < 0 else "")
        table.add_row(p, seats[k], "—" if place is None else str(place), Text(result or "draw", style=style),
                      f"{ret:+.3g}" if ret else "0",
                      *[value_text(state_info["vars"][v][p]) for v in per_var])
    return table
