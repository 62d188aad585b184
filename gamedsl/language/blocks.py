"""Fewer, longer blocks: a unit's blocks are tidied before they are written to the module.

Each jump between blocks is a function call at run time, so the common path of a game (the
rest of a turn after a decision, the loop's next player, the next decision) should be one
block. Two rewrites do it: a block that only jumps on is replaced by its target everywhere, and
a jump to a small block is replaced by a copy of that block's code (tail duplication, as
compilers do for loop heads). Blocks no jump reaches any more are dropped.
"""
from __future__ import annotations

import os
import re

INLINE_LINES = 40  # a block up to this many lines is copied where a jump leads to it
DEPTH = 2  # copies inside copies, at most

_RETURN = re.compile(r"^(\s*)return (\w+)$")
_WORD = re.compile(r"\b\w+\b")  # names are looked up among the words (one pattern, not one per unit)


def fuse(blocks: dict[str, list], entry: str, keep: set) -> tuple[dict[str, list], str]:
    """The unit's blocks (name -> [(text, span, loop)], the first line at indentation one) after
    forwarding and copying; `keep`: names that must stay (other code refers to them)."""
    stem = os.path.commonprefix(list(blocks))  # every block's name starts with it: a line without it names none
    alias = _forwarders(blocks)
    if alias:
        def forwarded(mt):
            return alias.get(mt.group(), mt.group())
        blocks = {name: [(_WORD.sub(forwarded, line[0]), *line[1:]) if stem in line[0] else line for line in lines]
                  for name, lines in blocks.items() if name not in alias}
        entry = alias.get(entry, entry)
    copied = _copier(blocks)
    return {name: copied(name) for name in _reachable(blocks, copied, {entry} | keep, stem)}, entry


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


def _copier(blocks: dict):
    """A function: a block's name -> its lines with each jump to a small block of the unit replaced by
    that block's code (copies inside copies DEPTH deep; each made once, when first asked for)."""
    made = {}

    def inlined(name: str, depth: int) -> list:
        lines = blocks[name]
        if depth == 0:
            return lines
        out = made.get((name, depth))
        if out is not None:
            return out
        out = made[name, depth] = []
        for line in lines:
            found = _RETURN.match(line[0]) if "return " in line[0] else None
            target = found.group(2) if found else None
            if target and target != name and target in blocks and len(blocks[target]) <= INLINE_LINES:
                pad = found.group(1)[4:]  # the target's lines are at indentation one
                out.extend((pad + copy[0], *copy[1:]) for copy in inlined(target, depth - 1))
            else:
                out.append(line)
        return out

    return lambda name: inlined(name, DEPTH)


def _reachable(blocks: dict, copied, roots: set, stem: str) -> list:
    """The names of the blocks some kept block names (in its code after copying), in their order
    (`stem`: what every block's name starts with)."""
    seen, todo = set(), [r for r in roots if r in blocks]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(w for w in _WORD.findall("\n".join(line[0] for line in copied(name) if stem in line[0]))
                    if w in blocks)
    return [name for name in blocks if name in seen]
