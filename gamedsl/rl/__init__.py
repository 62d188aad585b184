"""Adapters into the ecosystems reinforcement-learning and game-AI users work in (the `rl` extra).

`encoding.py` turns one seat's observation into a fixed-size vector; `openspiel.py` makes a
.game file an OpenSpiel game, and `ismcts.py` seats OpenSpiel's ISMCTS bot at a gamedsl game;
`pettingzoo.py` makes a PettingZoo AEC environment. Importing gamedsl never imports this package:
it needs numpy, open_spiel and pettingzoo (`pip install 'gamedsl[rl]'`), and each module imports
only what it uses.
"""
