"""The statistics the arena and the design report share: intervals, tests and their correction for
many tests at once, on scipy's exact, rank and bootstrap tests.

Every interval is 95% and every test two-sided at 5% (ALPHA); a family of tests (the seats of a
game, the rules of a file, the rows of a comparison) is corrected with Benjamini-Hochberg at
q = 5% (`fdr`). docs/arena.md and docs/analysis.md say which test is used where.
"""
from __future__ import annotations

import importlib
import math
import statistics


class _OnFirstUse:
    """A module imported when one of its names is first read: scipy.stats takes about half a
    second to import, and every command imports this file (through the arena), `check` included."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        module = importlib.import_module(self._name)
        self.__dict__.update(vars(module))
        return getattr(module, attr)


np = _OnFirstUse("numpy")
sst = _OnFirstUse("scipy.stats")

Z95 = statistics.NormalDist().inv_cdf(0.975)  # 1.95996...: the two-sided 95% quantile of the normal
Z80 = statistics.NormalDist().inv_cdf(0.80)  # the power asked of "how many games would settle it"
ALPHA = 0.05  # the significance level of every test here, and the false discovery rate of every family
BOOTSTRAP = 2000  # resamples of a bootstrap interval


# ---- one sample

def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a rate (95% by default); None without trials."""
    if n == 0:
        return None
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_ci(values: list) -> tuple[float | None, tuple[float, float] | None]:
    """The mean and its 95% interval (Student's t with the sample standard deviation)."""
    if not values:
        return None, None
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None
    half = t_quantile95(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, (mean - half, mean + half)


def median_ci(values: list, seed: int = 0) -> tuple[float | None, tuple[float, float] | None]:
    """The median and its 95% bootstrap interval (percentile): for heavy-tailed quantities."""
    if not values:
        return None, None
    median = float(statistics.median(values))
    if len(values) < 2 or min(values) == max(values):
        return median, (median, median) if len(values) >= 2 else None
    res = sst.bootstrap((np.asarray(values, float),), np.median, n_resamples=BOOTSTRAP, method="percentile",
                        rng=np.random.default_rng(seed))
    return median, (float(res.confidence_interval.low), float(res.confidence_interval.high))


def t_inside(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with `df` degrees of freedom."""
    return 1.0 - 2.0 * float(sst.t.sf(abs(t), df))


def t_quantile95(df: int) -> float:
    """The t with P(|T| <= t) = 0.95 for `df` degrees of freedom (12.706 for 1, tending to 1.960)."""
    return float(sst.t.ppf(0.975, df))


def binomial_p(successes: int, n: int, p: float) -> float:
    """The exact two-sided binomial test of `successes` in `n` trials against rate `p`."""
    if n == 0:
        return 1.0
    if p <= 0.0 or p >= 1.0:
        return 1.0 if successes == round(p * n) else 0.0
    return float(sst.binomtest(successes, n, p).pvalue)


def chi_square_p(observed: list, expected: list) -> float | None:
    """Pearson's goodness-of-fit test: the p-value of `observed` counts against `expected` ones
    (None with fewer than two cells or an expected count of 0)."""
    if len(observed) < 2 or min(expected) <= 0:
        return None
    scale = sum(observed) / sum(expected)  # scipy wants the totals equal
    return float(sst.chisquare(observed, [e * scale for e in expected]).pvalue)


def games_to_settle(effect: float | None, sd: float | None) -> int | None:
    """Roughly how many games (or pairs) would tell an effect of this size from none (5% two-sided,
    80% power), where one game's value varies by `sd`; None when there is no effect to settle."""
    if effect is None or sd is None or effect == 0 or sd == 0:
        return None
    return max(2, math.ceil(((Z95 + Z80) * sd / effect) ** 2))


# ---- two samples: paired (the same seeds) or not

def _test(effect, ci, p, sd=None, **extra) -> dict:
    return {"diff": effect, "ci": None if ci is None else [float(ci[0]), float(ci[1])], "p": p,
            "significant": p is not None and p < ALPHA, "settle": games_to_settle(effect, sd), **extra}


def paired_rates(a: list, b: list) -> dict:
    """Two rates of one yes/no outcome on the same games (b minus a): McNemar's exact test on the
    games where they differ, and a 95% interval of the difference (Wald on the paired games,
    Agresti-Min's adjustment)."""
    n = len(a)
    if n == 0:
        return _test(None, None, None)
    up = sum(1 for x, y in zip(a, b) if y and not x)
    down = sum(1 for x, y in zip(a, b) if x and not y)
    diff = (up - down) / n
    p = float(sst.binomtest(up, up + down, 0.5).pvalue) if up + down else 1.0
    # Agresti & Min (2005): add 1/2 to every cell of the paired 2x2 table
    u, d, m = up + 0.5, down + 0.5, n + 2
    adj = (u - d) / m
    half = Z95 * math.sqrt(max(0.0, (u + d) - (u - d) ** 2 / m)) / m
    sd = math.sqrt(max(0.0, (up + down) / n - diff * diff))
    return _test(diff, (max(-1.0, adj - half), min(1.0, adj + half)), p, sd, base=sum(map(bool, a)) / n,
                 other=sum(map(bool, b)) / n)


def two_rates(x1: int, n1: int, x2: int, n2: int) -> dict:
    """Two rates of independent games (second minus first): Fisher's exact test, and the Newcombe
    interval of the difference (from the two Wilson intervals)."""
    if n1 == 0 or n2 == 0:
        return _test(None, None, None)
    p1, p2 = x1 / n1, x2 / n2
    p = float(sst.fisher_exact([[x1, n1 - x1], [x2, n2 - x2]]).pvalue)
    (l1, u1), (l2, u2) = wilson(x1, n1), wilson(x2, n2)
    diff = p2 - p1
    ci = (diff - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2), diff + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2))
    pooled = (x1 + x2) / (n1 + n2)
    return _test(diff, ci, min(1.0, p), math.sqrt(2 * pooled * (1 - pooled)), base=p1, other=p2)


def paired_values(a: list, b: list, seed: int = 0) -> dict:
    """A per-game quantity on the same games (b minus a): the Wilcoxon signed-rank test of the
    per-game differences, their median and mean with a bootstrap interval of the mean. Robust to
    heavy tails (one long game moves the ranks by one). The games played alike in both (a zero
    difference) say nothing of the direction and are left out of the test, as McNemar's test leaves
    out the games whose outcome agrees: splitting them between the signs, as before, took most of
    its power where most games tie (185 of 200 in the issue: 12 up and 3 down gave p 0.24, now 0.02)."""
    diffs = [y - x for x, y in zip(a, b)]
    if len(diffs) < 2:
        return _test(None, None, None)
    mean = statistics.fmean(diffs)
    if not any(diffs):
        return _test(0.0, (0.0, 0.0), 1.0, base=statistics.fmean(a), other=statistics.fmean(b), median=0.0)
    p = float(sst.wilcoxon(diffs, zero_method="wilcox").pvalue)
    ci = _boot_mean((np.asarray(diffs, float),), seed)
    return _test(mean, ci, p, statistics.stdev(diffs), base=statistics.fmean(a), other=statistics.fmean(b),
                 median=float(statistics.median(diffs)), base_median=float(statistics.median(a)),
                 other_median=float(statistics.median(b)))


def two_values(a: list, b: list, seed: int = 0) -> dict:
    """A per-game quantity of independent games (b minus a): the Mann-Whitney rank test, and the
    difference of the means with a bootstrap interval (each sample resampled on its own)."""
    if len(a) < 2 or len(b) < 2:
        return _test(None, None, None)
    diff = statistics.fmean(b) - statistics.fmean(a)
    if min(a) == max(a) == min(b) == max(b):
        return _test(diff, (diff, diff), 1.0, base=statistics.fmean(a), other=statistics.fmean(b))
    p = float(sst.mannwhitneyu(a, b, alternative="two-sided").pvalue)
    res = sst.bootstrap((np.asarray(a, float), np.asarray(b, float)), lambda x, y, axis=-1: np.mean(y, axis) -
                        np.mean(x, axis), n_resamples=BOOTSTRAP, method="percentile",
                        rng=np.random.default_rng(seed))
    sd = math.sqrt((statistics.variance(a) + statistics.variance(b)))
    return _test(diff, (res.confidence_interval.low, res.confidence_interval.high), p, sd,
                 base=statistics.fmean(a), other=statistics.fmean(b), base_median=float(statistics.median(a)),
                 other_median=float(statistics.median(b)))


def _boot_mean(data: tuple, seed: int):
    if len(data[0]) < 2 or float(np.min(data[0])) == float(np.max(data[0])):
        x = float(np.mean(data[0]))
        return x, x
    res = sst.bootstrap(data, np.mean, n_resamples=BOOTSTRAP, method="percentile", rng=np.random.default_rng(seed))
    return res.confidence_interval.low, res.confidence_interval.high


def paired_test(diffs: list) -> dict:
    """A paired t-test of per-deal differences (the arena's): the mean difference, its 95% interval
    and the p-value.

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


# ---- many tests at once

def fdr(rows: list[dict], key: str = "p") -> list[dict]:
    """Benjamini-Hochberg over a family of tests: each row gets `q` (its adjusted p-value) and
    `significant` (q < 5%); rows without a p-value are left out of the family and not significant."""
    tested = [r for r in rows if r.get(key) is not None]
    if tested:
        qs = sst.false_discovery_control([min(1.0, max(0.0, r[key])) for r in tested], method="bh")
        for r, q in zip(tested, qs):
            r["q"] = float(q)
            r["significant"] = bool(q < ALPHA)
    for r in rows:
        if r.get(key) is None:
            r["q"], r["significant"] = None, False
    return rows
