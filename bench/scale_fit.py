"""Growth laws for bench/scale.py: which of a few laws a measured curve follows, and where it leads.

A curve is points (n, y), y > 0. Two readings of it:
  - the log-log slope: least squares of log y on log n (1: linear, 2: quadratic, 0: flat);
  - a law y = a + b * f(n), f one of 1, log2 n, n, n log2 n, n^2, fitted by weighted least squares with weights
    1 / y^2 (each point's error counted relative to its value, so that n 2 weighs as much as n 256), b >= 0.
The law chosen is the one with the smallest relative RMS residual (a tie, within 1 %, goes to the slower law); a law whose best b is negative is left out (the
constant then wins). Every law's fit is kept, so a reader can see how close the runner-up came.
Standard library only.
"""

import math

LAWS = {
    "1": lambda n: 0.0,
    "log n": lambda n: math.log2(n),
    "n": lambda n: float(n),
    "n log n": lambda n: n * math.log2(n),
    "n^2": lambda n: float(n) * n,
}


def loglog_slope(points):
    """Least-squares slope of log y against log n; None with fewer than two distinct n."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(y) for _, y in points]
    if len(set(xs)) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def _fit_law(points, f):
    """(a, b, relative RMS residual) of y = a + b f(n), weights 1/y^2, or None when b < 0."""
    w = [1.0 / (y * y) for _, y in points]
    fs = [f(n) for n, _ in points]
    ys = [y for _, y in points]
    s0 = sum(w)
    s1 = sum(wi * fi for wi, fi in zip(w, fs))
    s2 = sum(wi * fi * fi for wi, fi in zip(w, fs))
    t0 = sum(wi * yi for wi, yi in zip(w, ys))
    t1 = sum(wi * fi * yi for wi, fi, yi in zip(w, fs, ys))
    det = s0 * s2 - s1 * s1
    if abs(det) < 1e-300 * max(1.0, s0 * s2):
        a, b = t0 / s0, 0.0
    else:
        a = (t0 * s2 - s1 * t1) / det
        b = (s0 * t1 - s1 * t0) / det
    if b < 0:
        return None
    resid = math.sqrt(sum(((yi - a - b * fi) / yi) ** 2 for fi, yi in zip(fs, ys)) / len(ys))
    return a, b, resid


def fit(points):
    """The laws fitted to points [(n, y)] (y > 0; others dropped). None with fewer than three points."""
    points = sorted((n, y) for n, y in points if y is not None and y > 0 and n > 0)
    if len({n for n, _ in points}) < 3:
        return None
    laws = {}
    for name, f in LAWS.items():
        got = _fit_law(points, f)
        if got is not None:
            laws[name] = {"a": got[0], "b": got[1], "rms_rel": got[2]}
    least = min(v["rms_rel"] for v in laws.values())
    # LAWS is ordered from the slowest growth: a tie (the residual within 1 % of the best, or 0.1 % absolute) goes
    # to the slower law, so that a flat curve with noise reads as flat.
    best = next(k for k in LAWS if k in laws and laws[k]["rms_rel"] <= max(least * 1.01, least + 0.001))
    return {"law": best, "a": laws[best]["a"], "b": laws[best]["b"], "rms_rel": laws[best]["rms_rel"],
            "slope": loglog_slope(points), "points": len(points), "n_range": [points[0][0], points[-1][0]],
            "laws": laws}


def predict(result, n):
    """The chosen law's value at n."""
    return result["a"] + result["b"] * LAWS[result["law"]](n)


def law_text(result, unit=""):
    """'12.3 + 0.045 * n log n' in words for a table."""
    a, b, law = result["a"], result["b"], result["law"]
    if law == "1":
        return f"{a:.4g}{unit}"
    return f"{a:.4g} + {b:.4g}*{law}"
