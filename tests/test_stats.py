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


def test_mean_interval_is_students():
    mean, (lo, hi) = S.mean_ci([1, 2, 3, 4])
    half = 3.182446 * 1.2909944 / 2  # t(3 df) · s / sqrt(n)
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


def test_paired_rates_use_mcnemars_exact_test_on_the_games_that_differ():
    # 10 games: 6 changed from lose to win, 1 from win to lose, 3 alike: binom.test(6, 7) in R: p = 0.125
    a = [0] * 6 + [1] + [1, 0, 0]
    b = [1] * 6 + [0] + [1, 0, 0]
    got = S.paired_rates(a, b)
    assert got["diff"] == pytest.approx(0.5) and got["p"] == pytest.approx(0.125) and not got["significant"]
    assert got["base"] == 0.2 and got["other"] == 0.7
    lo, hi = got["ci"]
    assert lo < 0.5 < hi and -1 <= lo and hi <= 1
    assert S.paired_rates([1, 0] * 20, [1, 0] * 20)["p"] == 1.0  # nothing changed
    assert S.paired_rates([0] * 12, [1] * 12)["p"] == pytest.approx(2 / 4096)  # 12 of 12 one way


def test_two_rates_use_fishers_exact_test():
    # R: fisher.test(matrix(c(3, 7, 9, 1), 2)) -> p = 0.01977 (the same table, rows as arms)
    got = S.two_rates(3, 10, 9, 10)
    assert got["diff"] == pytest.approx(0.6) and got["p"] == pytest.approx(0.019767, abs=1e-5)
    assert got["ci"][0] > 0 and got["significant"]
    # a small count: 4 of 20 against 0 of 20 is not significant (the z-test said p = 0.035):
    # 2 * C(20,4) / C(40,4) = 2 * 4845 / 91390
    assert S.two_rates(4, 20, 0, 20)["p"] == pytest.approx(2 * 4845 / 91390)
    assert S.two_rates(1, 0, 1, 2)["diff"] is None


def test_paired_values_rank_the_differences():
    # 8 differences, no ties, one negative of rank 1: W- = 1, exact p = 2 * 2 / 2^8
    a = [10, 12, 9, 14, 11, 13, 8, 15]
    b = [x + d for x, d in zip(a, [2, 3, -1, 4, 5, 8, 6, 7])]
    got = S.paired_values(a, b)
    assert got["p"] == pytest.approx(4 / 256) and got["significant"] and got["median"] == 4.5
    assert got["diff"] == pytest.approx(4.25) and got["ci"][0] < 4.25 < got["ci"][1]
    # one enormous game moves a mean, not a rank test
    heavy = S.paired_values([1] * 9 + [1], [1] * 9 + [1000])
    assert heavy["diff"] == pytest.approx(99.9) and heavy["p"] > 0.3
    assert S.paired_values([1, 2, 3], [1, 2, 3])["p"] == 1.0


def test_two_values_rank_two_samples():
    got = S.two_values([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])  # R: wilcox.test -> W = 0, p = 0.007937
    assert got["p"] == pytest.approx(0.0079365, abs=1e-6) and got["diff"] == 5
    assert S.two_values([1, 1, 1], [1, 1, 1])["p"] == 1.0 and S.two_values([1], [2, 3])["p"] is None


def test_benjamini_hochberg():
    # p = 0.01, 0.02, 0.03, 0.5 -> q = 0.04, 0.04, 0.04, 0.5 (q_i = min over j >= i of p_j m / j)
    rows = [{"p": 0.01}, {"p": 0.02}, {"p": 0.03}, {"p": 0.5}, {"p": None}]
    S.fdr(rows)
    assert [r["q"] for r in rows[:4]] == pytest.approx([0.04, 0.04, 0.04, 0.5])
    assert [r["significant"] for r in rows] == [True, True, True, False, False] and rows[4]["q"] is None
    # twenty tests at p = 0.04: every one alone is "significant", none survives the correction... but
    # BH keeps them all when they all are (q = 0.04); one at 0.04 among nineteen nulls does not survive
    mixed = [{"p": 0.04}] + [{"p": 0.5 + i / 100} for i in range(19)]
    assert not S.fdr(mixed)[0]["significant"]


def test_how_many_games_would_settle_an_effect():
    # (1.96 + 0.84)^2 * 0.25 / 0.05^2 = 784: a 5-point gap in a rate near 50%
    assert S.games_to_settle(0.05, 0.5) == 785
    assert S.games_to_settle(0.0, 0.5) is None and S.games_to_settle(None, 1) is None


def test_median_interval_is_a_bootstrap_that_holds_the_median():
    median, (lo, hi) = S.median_ci(list(range(1, 102)))
    assert median == 51 and lo < 51 < hi and 40 < lo and hi < 62
    assert S.median_ci([4, 4, 4]) == (4.0, (4.0, 4.0)) and S.median_ci([]) == (None, None)


def test_the_signed_rank_test_keeps_its_power_when_most_pairs_tie():
    """Issue 41: 185 of 200 paired games alike, 12 longer and 3 shorter in the second version: the
    zeros were split between the signs (p 0.24); left out, as McNemar leaves out agreeing games, the
    test sees the change (p about 0.02), and a change both ways alike still is none."""
    got = S.paired_values([10] * 200, [10] * 185 + [11] * 12 + [9] * 3)
    assert got["p"] == pytest.approx(0.0201, abs=0.001) and got["significant"]
    even = S.paired_values([10] * 200, [10] * 184 + [11] * 8 + [9] * 8)
    assert even["p"] > 0.5 and not even["significant"]
