"""engine/chance.py: the engine's shuffle draws exactly what random.Random.shuffle draws and orders
the list alike, so the same seed still gives the same game (old logs replay by their seeds)."""
import random

from hypothesis import given
from hypothesis import strategies as st

from gamedsl.engine import chance


@given(st.integers(0, 2**64), st.integers(0, 120))
def test_a_shuffle_is_random_shuffle_draw_for_draw(seed, size):
    ours, theirs = random.Random(seed), random.Random(seed)
    a, b = list(range(size)), list(range(size))
    chance.shuffle(ours, a)
    theirs.shuffle(b)
    assert a == b and ours.getstate() == theirs.getstate()
    assert chance._SAME  # this Python's shuffle is the algorithm written there (else it is used instead)


def test_a_generator_of_another_kind_shuffles_its_own_way():
    class Counted(random.Random):
        def random(self):
            self.draws = getattr(self, "draws", 0) + 1
            return super().random()

    rng = Counted(3)
    items = list(range(10))
    chance.shuffle(rng, items)
    expected = list(range(10))
    Counted(3).shuffle(expected)
    assert items == expected and rng.draws > 0  # its own shuffle ran (which draws through random())
