#!/usr/bin/env python3
"""Fits the coefficient table of tanh_table.h and prints it as C++.

tanh(a), a = |x| in [0, 9.2], is evaluated per interval k (0..15) centred at
c_k = k * 19/32 as the polynomial c0 + t*(c1 + t*(c2 + ...)) in t = a - c_k,
|t| <= 19/64 (interval 0: 0 <= t <= 19/64), in f32 with an fma per step.

Each interval's coefficients are fitted one at a time, in order, each
rounded to f32 before the rest are refitted to what is left (so the later
ones absorb the earlier ones' rounding): c0 is tanh(c_k) rounded (interval
0: c0 = 0 and c1 = 1 exactly, so that tiny a give a itself), and each next
one is the leading coefficient of a minimax fit of the remaining relative
error (Lawson's iteration on Chebyshev points).  An interval uses the lowest
degree whose minimax relative error is below 2^-32, far under f32's
rounding; terms past it are 0 (fitting them would only fit noise).

Needs numpy and mpmath.  Run: python3 fit_tanh_table.py > table.txt
"""
import sys

import mpmath
import numpy as np

mpmath.mp.dps = 30
WIDTH = 19 / 32
INTERVALS = 16
DEGREE = 8


def to_f32(value):
    return float(np.float32(value))


def lawson(basis, target, weight, iterations=60):
    """Coefficients minimising max |weight * (basis @ c - target)|."""
    u = np.ones(len(target)) / len(target)
    best, best_error = None, None
    for _ in range(iterations):
        s = np.sqrt(u)
        c = np.linalg.lstsq(basis * (weight * s)[:, None], target * weight * s, rcond=None)[0]
        error = np.abs(weight * (basis @ c - target))
        if best is None or error.max() < best_error:
            best, best_error = c, error.max()
        u = u * error
        u /= u.sum()
    return best


def fit_interval(k):
    center = k * WIDTH
    # A little past the interval: the index a * 32/19 rounds in f32.
    lo = 0.0 if k == 0 else -WIDTH / 2 * 1.001
    hi = WIDTH / 2 * 1.001
    n = 3000
    ts = lo + (hi - lo) * (1 - np.cos(np.pi * (np.arange(n) + 0.5) / n)) / 2
    if k == 0:
        ts = ts[ts > 1e-7]
    ys = np.array([float(mpmath.tanh(mpmath.mpf(center) + mpmath.mpf(float(t)))) for t in ts])
    weight = 1 / np.abs(ys)
    fixed = {0: 0.0, 1: 1.0} if k == 0 else {0: to_f32(mpmath.tanh(center))}

    degree = DEGREE
    for d in range(3, DEGREE + 1):
        first = 2 if k == 0 else 0  # c0 free here: its rounding is not the fit's
        basis = np.stack([ts**m for m in range(first, d + 1)], axis=1)
        base = ts if k == 0 else 0
        c = lawson(basis, ys - base, weight)
        if np.max(np.abs(weight * (basis @ c + base - ys))) < 2.0**-32:
            degree = d
            break

    coefficients = [0.0] * (DEGREE + 1)
    residual = ys.copy()
    for i in range(degree + 1):
        if i in fixed:
            c = fixed[i]
        else:
            basis = np.stack([ts**m for m in range(i, degree + 1)], axis=1)
            c = to_f32(lawson(basis, residual, weight)[0])
        coefficients[i] = c
        residual = residual - c * ts**i
    return coefficients


def main():
    table = [fit_interval(k) for k in range(INTERVALS)]
    for i in range(DEGREE + 1):
        values = ", ".join("%.9g" % table[k][i] for k in range(INTERVALS))
        print("    {%s}," % values)
    return 0


if __name__ == "__main__":
    sys.exit(main())
