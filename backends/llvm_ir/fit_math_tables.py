#!/usr/bin/env python3
"""Fits the piecewise polynomial tables of math_tables.h and prints them as C++.

A function f of a = |x| (tanh, erf) is evaluated per interval k (0..15)
centred at c_k = k * width, in t = a - c_k (|t| <= width/2; interval 0:
0 <= t <= width/2), in f32 with an fma per step:

  p = B + fma(M, Q(t), low[k]),  Q(t) = q0 + t*(q1 + t*(q2 + ...)),
  relative intervals (the first few): B = a, M = a, low = 0: a + a*Q, Q
      fitting f(a)/a - 1, so that small a keep their relative accuracy;
  the others: B = base[k], M = t, where base + low is f(c_k) in two f32
      pieces (hi and lo), so that the constant rounds only once, at the end;
  "single" tables (tanh) have no B: p = fma(t, Q, low) with low = f(c_k)
      rounded (interval 0: low = 0 and q0 = 1, so tiny a give a itself).

Q's coefficients are fitted one at a time, in order, each rounded to f32
before the rest are refitted to what is left (so the later ones absorb the
earlier ones' rounding): each is the leading coefficient of a minimax fit of
the error it leaves in p, relative to f (Lawson's iteration on Chebyshev
points).  An interval's Q has the lowest degree whose minimax error is below
2^-32, far under f32's rounding; terms past it are 0 (fitting them would
only fit noise).

Needs numpy and mpmath.  Run: python3 fit_math_tables.py
"""
import sys

import mpmath
import numpy as np

mpmath.mp.dps = 30
INTERVALS = 16
MAX_DEGREE = 8

# name: (mpmath function, interval width, "single" or the number of relative
# intervals of a split table)
TABLES = {
    "Tanh": (mpmath.tanh, 19 / 32, "single"),
    "Erf": (mpmath.erf, 17 / 64, 2),
}


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


def chebyshev_points(width, k):
    """t over interval k, a little past it (the index a / width rounds in f32)."""
    lo = 0.0 if k == 0 else -width / 2 * 1.001
    hi = width / 2 * 1.001
    n = 3000
    ts = lo + (hi - lo) * (1 - np.cos(np.pi * (np.arange(n) + 0.5) / n)) / 2
    return ts[ts > 1e-7] if k == 0 else ts


def lowest_degree(ts, target, weight, first, fixed_part):
    """The lowest degree d whose minimax fit of target - fixed_part by
    t^first..t^d has error below 2^-32 (MAX_DEGREE at most)."""
    for d in range(max(first, 1), MAX_DEGREE + 1):
        basis = np.stack([ts**m for m in range(first, d + 1)], axis=1)
        c = lawson(basis, target - fixed_part, weight)
        if np.max(np.abs(weight * (basis @ c + fixed_part - target))) < 2.0**-32:
            return d
    return MAX_DEGREE


def sequential_fit(ts, target, weight, degree, fixed):
    """Coefficients of t^0..t^degree, each rounded to f32 (or fixed) before
    the later ones are refitted to the rest."""
    coefficients = [0.0] * (degree + 1)
    residual = target.copy()
    for i in range(degree + 1):
        if i in fixed:
            c = fixed[i]
        else:
            basis = np.stack([ts**m for m in range(i, degree + 1)], axis=1)
            c = to_f32(lawson(basis, residual, weight)[0])
        coefficients[i] = c
        residual = residual - c * ts**i
    return coefficients


def fit_single(f, width, k):
    """(base, low, q) of interval k of a single table: p = c0 + t*(c1 + ...)
    fitted as a polynomial in t, then low = c0 and q = c1, c2, ..."""
    center = k * width
    ts = chebyshev_points(width, k)
    ys = np.array([float(f(mpmath.mpf(center) + mpmath.mpf(float(t)))) for t in ts])
    weight = 1 / np.abs(ys)
    # The degree with c0 free: its rounding is not the fit's.
    degree = lowest_degree(ts, ys, weight, 2 if k == 0 else 0, ts if k == 0 else 0)
    fixed = {0: 0.0, 1: 1.0} if k == 0 else {0: to_f32(f(mpmath.mpf(center)))}
    c = sequential_fit(ts, ys, weight, degree, fixed)
    return 0.0, c[0], c[1:]


def fit_split(f, width, relative_intervals, k):
    """(base, low, q) of interval k of a split table."""
    center = k * width
    ts = chebyshev_points(width, k)
    a = [mpmath.mpf(center) + mpmath.mpf(float(t)) for t in ts]
    exact = [f(v) for v in a]
    weight = np.array([1 / abs(float(e)) for e in exact])
    if k < relative_intervals:  # p = a + a*Q: Q fits f(a)/a - 1
        base, low = 0.0, 0.0
        multiplier = np.array([float(v) for v in a])
        target = np.array([float((e - v) / v) for e, v in zip(exact, a)])
    else:  # p = base + (t*Q + low): Q fits (f - base - low) / t
        value = f(mpmath.mpf(center))
        base = to_f32(value)
        low = to_f32(value - base)
        multiplier = ts
        target = np.array([float((e - base - low) / mpmath.mpf(float(t)))
                           for e, t in zip(exact, ts)])
    # The error Q leaves in p, relative to f: M * dQ / f.
    q_weight = np.abs(multiplier) * weight
    degree = lowest_degree(ts, target, q_weight, 0, 0)
    return base, low, sequential_fit(ts, target, q_weight, degree, {})


def row(values):
    return "{%s}" % ", ".join("%.9g" % v for v in values)


def main():
    for name, (f, width, kind) in TABLES.items():
        fits = [fit_single(f, width, k) if kind == "single" else fit_split(f, width, kind, k)
                for k in range(INTERVALS)]
        degree = max(len(q) - 1 for _, _, q in fits)
        fits = [(b, l, q + [0.0] * (degree + 1 - len(q))) for b, l, q in fits]
        print("// %s: width %s, %s" % (name, width, "single" if kind == "single" else
                                        "%d relative intervals" % kind))
        print("    .base = %s," % row(b for b, _, _ in fits))
        print("    .low = %s," % row(l for _, l, _ in fits))
        print("    .degree = %d," % degree)
        print("    .q = {")
        for i in range(degree + 1):
            print("        %s," % row(q[i] for _, _, q in fits))
        print("    },")
    return 0


if __name__ == "__main__":
    sys.exit(main())
