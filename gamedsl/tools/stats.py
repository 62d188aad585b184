"""The statistics the arena and the design report share: intervals and tests, in plain Python (no scipy).

Every interval is 95% and every test two-sided at 5% (ALPHA); docs/arena.md and docs/analysis.md
say which is used where.
"""
from __future__ import annotations

import math
import statistics
from functools import lru_cache

Z95 = statistics.NormalDist().inv_cdf(0.975)  # 1.95996...: the two-sided 95% quantile of the normal
ALPHA = 0.05  # the significance level of every test here


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a rate (95% by default); None without trials."""
    if n == 0:
        return None
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_ci(values: list) -> tuple[float | None, tuple[float, float] | None]:
    """The mean and its 95% interval by the normal approximation with the sample standard deviation."""
    if not values:
        return None, None
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, (mean - half, mean + half)


def t_inside(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with `df` degrees of freedom (Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(abs(t) / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 0:
        term = total = 1.0
        for j in range(2, df, 2):
            term *= c2 * (j - 1) / j
            total += term
        return math.sin(theta) * total
    series = 0.0
    if df > 1:
        term = series = 1.0
        for j in range(3, df - 1, 2):
            term *= c2 * (j - 1) / j
            series += term
        series *= math.sin(theta) * math.cos(theta)
    return 2 / math.pi * (theta + series)


@lru_cache(maxsize=None)
def t_quantile95(df: int) -> float:
    """The t with P(|T| <= t) = 0.95 for `df` degrees of freedom (12.706 for 1, tending to 1.960)."""
    lo, hi = 0.0, 1000.0
    for _ in range(100):  # bisection: t_inside grows with t
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_inside(mid, df) < 0.95 else (lo, mid)
    return (lo + hi) / 2


def paired_test(diffs: list) -> dict:
    """A paired t-test of per-deal differences: the mean difference, its 95% interval and the p-value.

    The p-value is never below 2^(1-m), what m deals all going one way give by chance: with few
    deals, or when every deal gives the same difference (t infinite), the t-test alone is too sure.
    """
    m = len(diffs)
    mean = statistics.fmean(diffs)
    if m < 2:
        return {"diff": mean, "ci": None, "p": None, "significant": False}
    sd = statistics.stdev(diffs)
    if sd == 0:
        p, half = (1.0 if mean == 0 else 0.0), 0.0
    else:
        se = sd / math.sqrt(m)
        p = 1.0 - t_inside(mean / se, m - 1)
        half = t_quantile95(m - 1) * se
    p = min(1.0, max(p, 2.0 ** (1 - m)))
    return {"diff": mean, "ci": [mean - half, mean + half], "p": p, "significant": p < ALPHA}


def normal_p(z: float) -> float:
    """The two-sided p-value of a standard normal statistic."""
    return 2.0 * (1.0 - statistics.NormalDist().cdf(abs(z)))


def binomial_p(successes: int, n: int, p: float) -> float:
    """The exact two-sided binomial test of `successes` in `n` trials against rate `p`: the
    probability of an outcome no more likely than the one seen."""
    if n == 0:
        return 1.0
    if p <= 0.0 or p >= 1.0:
        return 1.0 if successes == round(p * n) else 0.0

    def log_pmf(k: int) -> float:
        return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                + k * math.log(p) + (n - k) * math.log1p(-p))

    seen = log_pmf(successes) + 1e-9  # a relative tolerance: outcomes as likely as the one seen count
    return min(1.0, sum(math.exp(lp) for lp in map(log_pmf, range(n + 1)) if lp <= seen))


def chi_square_p(observed: list, expected: list) -> float | None:
    """Pearson's goodness-of-fit test: the p-value of `observed` counts against `expected` ones
    (None with fewer than two cells or an expected count of 0)."""
    if len(observed) < 2 or min(expected) <= 0:
        return None
    x = sum((o - e) ** 2 / e for o, e in zip(observed, expected))
    return _upper_gamma(0.5 * (len(observed) - 1), 0.5 * x)


def _upper_gamma(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x): a series below a + 1, a continued
    fraction above (Numerical Recipes, 6.2)."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        k = a
        for _ in range(1000):
            k += 1
            term *= x / k
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b, c, d = x + 1 - a, 1 / tiny, 1 / (x + 1 - a)
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


def two_rates(x1: int, n1: int, x2: int, n2: int) -> dict:
    """Two independent rates compared: the difference (second minus first), its 95% interval
    (normal, unpooled) and the p-value of a pooled two-proportion z-test."""
    if n1 == 0 or n2 == 0:
        return {"diff": None, "ci": None, "p": None, "significant": False}
    p1, p2 = x1 / n1, x2 / n2
    diff = p2 - p1
    pooled = (x1 + x2) / (n1 + n2)
    se0 = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    p = 1.0 if se0 == 0 else normal_p(diff / se0)
    half = Z95 * math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    return {"diff": diff, "ci": [diff - half, diff + half], "p": p, "significant": p < ALPHA}


def two_means(a: list, b: list) -> dict:
    """Two independent samples compared: the difference of means (b minus a), its 95% interval and
    the p-value of Welch's t-test."""
    if len(a) < 2 or len(b) < 2:
        return {"diff": None, "ci": None, "p": None, "significant": False}
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    diff = mb - ma
    if va + vb == 0:
        return {"diff": diff, "ci": [diff, diff], "p": 1.0 if diff == 0 else 0.0, "significant": diff != 0}
    se = math.sqrt(va + vb)
    df = max(1, int((va + vb) ** 2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))))
    p = 1.0 - t_inside(diff / se, df)
    half = t_quantile95(df) * se
    return {"diff": diff, "ci": [diff - half, diff + half], "p": p, "significant": p < ALPHA}
