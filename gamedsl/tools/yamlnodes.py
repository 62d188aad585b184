"""Reading a scenario's YAML node tree: each value with the line it comes from, and a ScenarioError
naming that line when it is not what was expected."""
from __future__ import annotations

import yaml

from ..errors import did_you_mean


class ScenarioError(Exception):
    """A problem at one line of a scenario; the runner turns it into a Failure."""

    def __init__(self, node, message: str):
        super().__init__(message)
        self.line = line_of(node)


def line_of(node) -> int:
    return node.start_mark.line + 1 if node is not None else 0


def scalar(node, what: str = "a value") -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise ScenarioError(node, f"expected {what}, found a {'list' if isinstance(node, yaml.SequenceNode) else 'mapping'}")
    return node.value


def integer(node, what: str = "a number") -> int:
    text = scalar(node, what)
    try:
        return int(text)
    except ValueError:
        raise ScenarioError(node, f"expected {what}, found '{text}'") from None


def mapping(node, what: str = "a mapping") -> list[tuple[yaml.Node, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        raise ScenarioError(node, f"expected {what} (key: value lines)")
    return node.value


def sequence(node, what: str = "a list") -> list:
    if not isinstance(node, yaml.SequenceNode):
        raise ScenarioError(node, f"expected {what}")
    return node.value


def check_keys(node, allowed: set, where: str):
    for key, _ in mapping(node):
        name = scalar(key, "a key")
        if name not in allowed:
            hint = did_you_mean(name, allowed)
            raise ScenarioError(key, f"unknown key '{name}' in {where}" + (f"; {hint}" if hint else
                                                                          f" (known: {', '.join(sorted(allowed))})"))
