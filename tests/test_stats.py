"""The statistics of the arena and the design report, against published and hand-worked values."""
from __future__ import annotations

import pytest

from gamedsl.tools import stats as S


# ---- intervals and the paired test (the arena's)

@pytest.mark.parametrize("k, n, lo, hi", [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", table I, method 3
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718),
    (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0),
])
def test_wilson_interval_matches_published_values(k, n, lo, hi):
    got = S.wilson(k, n)
    assert got == pytest.approx((lo, hi), abs=5e-5)
    assert S.wilson(0, 0) is None


@pytest.mark.parametrize("df, q", [(1, 12.7062), (2, 4.3027), (3, 3.1824), (5, 2.5706), (10, 2.2281),
                                   (30, 2.0423), (100, 1.9840), (1000, 1.9623)])
def test_t_quantiles_match_the_tables(df, q):
    assert S.t_quantile95(df) == pytest.approx(q, abs=1e-4)
    assert 1 - S.t_inside(q, df) == pytest.approx(0.05, abs=1e-4)


def test_t_p_values():
    assert 1 - S.t_inside(2.0, 10) == pytest.approx(0.07339, abs=1e-5)
    assert 1 - S.t_inside(1.0, 1) == pytest.approx(0.5)  # Cauchy: P(|T| > 1) = 1/2
    assert 1 - S.t_inside(3.0, 7) == pytest.approx(0.01994, abs=1e-5)
    assert S.t_inside(-2.0, 10) == S.t_inside(2.0, 10)


def test_paired_t_test():
    diffs = [0.5, 1.0, 0.0, 0.5] * 3  # mean 0.5, sd sqrt(1.5/11): t = 4.69 with 11 df, p = 0.00066
    got = S.paired_test(diffs)
    assert got["diff"] == 0.5 and got["significant"]
    assert got["p"] == pytest.approx(0.00066, abs=1e-5)
    half = 2.2010 * (1.5 / 11) ** 0.5 / 12 ** 0.5  # the t quantile for 11 df · s / sqrt(m)
    assert got["ci"] == pytest.approx([0.5 - half, 0.5 + half], abs=1e-4)
    # t = 1.732 with 11 df: between the tables' 1.363 (p 0.2) and 1.796 (p 0.1)
    assert 0.1 < S.paired_test([0.5, 1.0, 0.0, 0.5, -0.5, 0.0] * 2)["p"] < 0.2
    # Every deal one way: t is infinite, but five deals all going one way happen by chance 1 time in 16.
    assert S.paired_test([1.0] * 5) == {"diff": 1.0, "ci": [1.0, 1.0], "p": 1 / 16, "significant": False}
    assert S.paired_test([1.0] * 6)["p"] == 1 / 32 and S.paired_test([1.0] * 6)["significant"]
    assert S.paired_test([1.0, 1.0, 0.5])["p"] == 1 / 4  # the t-test alone: p = 0.038
    assert S.paired_test([0.0] * 5)["p"] == 1.0
    assert S.paired_test([1.0]) == {"diff": 1.0, "ci": None, "p": None, "significant": False}


def test_mean_interval_is_the_normal_approximation():
    mean, (lo, hi) = S.mean_ci([1, 2, 3, 4])
    half = 1.959964 * 1.2909944 / 2  # z · s / sqrt(n)
    assert mean == 2.5 and (lo, hi) == pytest.approx((2.5 - half, 2.5 + half))
    assert S.mean_ci([3]) == (3, None) and S.mean_ci([]) == (None, None)



# ---- the design report's tests

def test_chi_square_p_values_match_the_tables():
    # X² = 10 with 2 df: Q = exp(-5); with 1 df: 0.001565 (tables); 3.841 with 1 df is the 5% point
    assert S.chi_square_p([30, 20, 10], [20, 20, 20]) == pytest.approx(0.0067379, abs=1e-7)
    assert S.chi_square_p([30, 10], [20, 20]) == pytest.approx(0.0015654, abs=1e-7)
    assert S.chi_square_p([59.8, 40.2], [50, 50]) == pytest.approx(0.05, abs=2e-4)  # X² = 3.8416
    assert S.chi_square_p([110, 90, 100, 100], [100] * 4) == pytest.approx(0.57241, abs=1e-5)  # X² = 2, 3 df
    assert S.chi_square_p([5, 5], [5, 5]) == 1.0
    assert S.chi_square_p([5], [5]) is None and S.chi_square_p([5, 5], [0, 10]) is None


def test_binomial_test_is_exact():
    assert S.binomial_p(60, 100, 0.5) == pytest.approx(0.056887, abs=1e-6)  # R: binom.test(60, 100)
    assert S.binomial_p(5, 10, 0.5) == pytest.approx(1.0)
    # 0 of 10 at 0.25: P(0) = 0.75^10 = 0.0563, and every k >= 6 is less likely: 0.0197 more
    assert S.binomial_p(0, 10, 0.25) == pytest.approx(0.0563135 + 0.0197277, abs=1e-6)
    assert S.binomial_p(10, 10, 0.5) == pytest.approx(2 / 1024)
    assert S.binomial_p(0, 0, 0.3) == 1.0


def test_two_rates_and_two_means():
    got = S.two_rates(50, 100, 60, 100)  # pooled 0.55: z = 0.1 / sqrt(0.2475 * 0.02) = 1.4213
    assert got["diff"] == pytest.approx(0.1) and got["p"] == pytest.approx(0.15522, abs=1e-5)
    assert not got["significant"] and S.two_rates(10, 100, 30, 100)["significant"]
    assert S.two_rates(5, 5, 5, 5)["p"] == 1.0 and S.two_rates(1, 0, 1, 2)["diff"] is None
    got = S.two_means([1, 2, 3, 4], [2, 3, 4, 5])  # t = 1 / sqrt(5/6) = 1.0954 with 6 df: p = 0.3153
    assert got["diff"] == 1.0 and got["p"] == pytest.approx(0.31533, abs=1e-4)
    assert S.two_means([1, 1, 1], [1, 1, 1])["p"] == 1.0 and S.two_means([1, 1], [2, 2])["significant"]
    assert S.two_means([1], [2, 3])["p"] is None
