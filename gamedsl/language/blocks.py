"""Fewer, longer blocks: a unit's blocks are tidied before they are written to the module.

Each jump between blocks is a function call at run time, so the common path of a game (the
rest of a turn after a decision, the loop's next player, the next decision) should be one
block. Two rewrites do it: a block that only jumps on is replaced by its target everywhere, and
a jump to a small block is replaced by a copy of that block's code (tail duplication, as
compilers do for loop heads). Blocks no jump reaches any more are dropped.
"""
from __future__ import annotations

import re

INLINE_LINES = 40  # a block up to this many lines is copied where a jump leads to it
DEPTH = 2  # copies inside copies, at most

_RETURN = re.compile(r"^(\s*)return (\w+)$")
_WORD = re.compile(r"\b\w+\b")  # names are looked up among the words (one pattern, not one per unit)


def fuse(blocks: dict[str, list], entry: str, keep: set) -> tuple[dict[str, list], str]:
    """The unit's blocks (name -> [(text, span, loop)], the first line at indentation one) after
    forwarding and copying; `keep`: names that must stay (other code refers to them)."""
    alias = _forwarders(blocks)
    if alias:
        def forwarded(mt):
            return alias.get(mt.group(), mt.group())
        blocks = {name: [(_WORD.sub(forwarded, t), *rest) for t, *rest in lines]
                  for name, lines in blocks.items() if name not in alias}
        entry = alias.get(entry, entry)
    blocks = {name: _inlined(name, lines, blocks, DEPTH) for name, lines in blocks.items()}
    return _reachable(blocks, {entry} | keep), entry


def _forwarders(blocks: dict) -> dict:
    """Blocks whose whole code is one jump: name -> the block they lead to (followed to the end)."""
    direct = {}
    for name, lines in blocks.items():
        code = [t for t, *_ in lines if t.strip()]
        found = _RETURN.match(code[0]) if len(code) == 1 else None
        if found and found.group(2) in blocks and found.group(2) != name:
            direct[name] = found.group(2)
    alias = {}
    for name in direct:
        seen, target = {name}, direct[name]
        while target in direct and target not in seen:
            seen.add(target)
            target = direct[target]
        if target not in seen:
            alias[name] = target
    return alias


def _inlined(name: str, lines: list, blocks: dict, depth: int) -> list:
    """A block's lines with each jump to a small block of the unit replaced by that block's code."""
    if depth == 0:
        return lines
    out = []
    for text, *rest in lines:
        found = _RETURN.match(text)
        target = found.group(2) if found else None
        if target and target != name and target in blocks and len(blocks[target]) <= INLINE_LINES:
            pad = found.group(1)[4:]  # the target's lines are at indentation one
            for line in _inlined(target, blocks[target], blocks, depth - 1):
                out.append((pad + line[0], *line[1:]))
        else:
            out.append((text, *rest))
    return out


def _reachable(blocks: dict, roots: set) -> dict:
    """The blocks some kept block names, in their order."""
    seen, todo = set(), [r for r in roots if r in blocks]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(w for w in _WORD.findall("\n".join(text for text, *_ in blocks[name])) if w in blocks)
    return {name: lines for name, lines in blocks.items() if name in seen}
