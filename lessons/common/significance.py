"""The tests the verdict rule (:mod:`lessons.common.verdicts`) states: Welch's t-test on two samples of seeds, and
Fisher's exact test on how many runs of each side have a value (reached a level at all). Pure Python: the
t distribution's tail comes from the regularized incomplete beta function, computed by its continued fraction
(Numerical Recipes, §6.4), so the course needs no statistics package.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

_EPS = 1e-15  # the continued fraction stops when a term changes it by less than this
_TINY = 1e-300  # keeps the continued fraction's denominators from being zero


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz), converging for x < (a+1)/(a+b+2)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + aa / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1."""
    if not (a > 0 and b > 0):
        raise ValueError(f"I_x(a, b) needs a, b > 0, not a = {a}, b = {b}")
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"I_x(a, b) needs 0 <= x <= 1, not x = {x}")
    if x in (0.0, 1.0):
        return x
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def t_two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for T with Student's t distribution on ``df`` degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def welch(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """Welch's t-test of equal means (unequal variances): ``(t, degrees of freedom, two-sided p)``, two values a
    side at least. Two samples without any spread: p = 1 when their means are equal, else 0 (no rounding could make
    every seed of one side land on one value and every seed of the other on another)."""
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"Welch's t-test needs two values a side, not {len(a)} and {len(b)}")
    na, nb = len(a), len(b)
    ma, mb = math.fsum(a) / na, math.fsum(b) / nb
    va = math.fsum((x - ma) ** 2 for x in a) / (na - 1)
    vb = math.fsum((x - mb) ** 2 for x in b) / (nb - 1)
    sa, sb = va / na, vb / nb
    if sa + sb == 0:
        return (
            (0.0, float(na + nb - 2), 1.0) if ma == mb else (math.copysign(math.inf, ma - mb), float(na + nb - 2), 0.0)
        )
    t = (ma - mb) / math.sqrt(sa + sb)
    parts = (sa * sa / (na - 1) if sa else 0.0) + (sb * sb / (nb - 1) if sb else 0.0)
    df = (sa + sb) ** 2 / parts
    return t, df, t_two_sided(t, df)


def fisher_exact(a_yes: int, a_no: int, b_yes: int, b_no: int) -> float:
    """Fisher's exact test on the 2×2 table (a: yes/no, b: yes/no), two-sided: the chance, with the margins fixed,
    of a table no more likely than the one seen."""
    n, row, col = a_yes + a_no + b_yes + b_no, a_yes + a_no, a_yes + b_yes
    total = math.comb(n, col)

    def chance(k: int) -> float:
        return math.comb(row, k) * math.comb(n - row, col - k) / total

    seen = chance(a_yes)
    low, high = max(0, col - (n - row)), min(row, col)
    return min(1.0, math.fsum(p for k in range(low, high + 1) if (p := chance(k)) <= seen * (1 + 1e-9)))
