"""The small type vocabulary the checker and compiler share."""
NUM, BOOL, STR, PLAYER, CARD, ZONE, ANY = "number", "yes/no", "text", "player", "card", "zone", "any"
LIST = "list"


def value_type(attribute: str) -> str:
    """The type of a value of one card attribute."""
    return "value:" + attribute


def is_value(t: str) -> bool:
    return t.startswith("value:")


def is_list(t: str) -> bool:
    return t.startswith("list:")


def list_of(t: str) -> str:
    return "list:" + t


def element(t: str) -> str | None:
    """The element type of a list type, a zone or the players; None if not a collection."""
    if t == ZONE:
        return CARD
    if t.startswith("list:"):
        return t[5:]
    return None


def describe(t: str) -> str:
    """A type in a user's words."""
    if t.startswith("value:"):
        return f"a {t[6:]}"
    if t.startswith("list:"):
        return f"a list of {t[5:]}s"
    return {NUM: "a number", BOOL: "a yes/no condition", STR: "a text", PLAYER: "a player", CARD: "a card",
            ZONE: "a zone", ANY: "a value"}.get(t, t)
