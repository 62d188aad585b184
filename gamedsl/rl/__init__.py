"""Adapters into the ecosystems reinforcement-learning and game-AI users work in (the `rl` extra).

`encoding.py` turns one seat's observation into a fixed-size vector; `openspiel.py` makes a
.game file an OpenSpiel game; `pettingzoo.py` a PettingZoo AEC environment. Nothing in gamedsl
imports this package: it needs numpy, open_spiel and pettingzoo (`pip install 'gamedsl[rl]'`),
and each module imports only what it uses.
"""
