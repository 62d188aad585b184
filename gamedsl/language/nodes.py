"""How the model's node classes are made (frozen attrs with keyword-only fields and one shared repr)
and walked: the machinery under model.py's classes."""
from __future__ import annotations

import threading

import attrs

_showing = threading.local()  # the nodes whose repr is being made, in each thread


def _repr(self) -> str:
    """attrs' repr of a node, `Call(span=..., func='len', args=(...), for_var=None)`, written once here
    rather than generated and compiled for each of the many node classes (importing this module is
    part of every `gamedsl check`)."""
    showing = getattr(_showing, "ids", None)
    if showing is None:
        showing = _showing.ids = set()
    if id(self) in showing:
        return "..."
    showing.add(id(self))
    try:
        fields = ", ".join(f"{a.name}={getattr(self, a.name)!r}" for a in type(self).__attrs_attrs__)
        return f"{type(self).__qualname__.rsplit('>.', 1)[-1]}({fields})"
    finally:
        showing.discard(id(self))


def node(cls):
    """A model class: frozen attrs with keyword-only fields, and the repr above."""
    cls = attrs.frozen(kw_only=True, repr=False)(cls)
    cls.__repr__ = _repr
    return cls


def walk(root):
    """Every model node in `root` (a node, or lists and tuples of them), depth first."""
    stack = [root]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif attrs.has(type(x)):
            yield x
            stack.extend(getattr(x, f.name) for f in attrs.fields(type(x)) if f.name != "span")
