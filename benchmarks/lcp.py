"""Time per solve of the LCP methods by problem size.

Run ``python benchmarks/lcp.py`` (add ``--quick`` for a short run). The engine-share part
(fraction of simulation time spent in the LCP) is meant to call :func:`time_solvers`.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable, Sequence

import numpy as np

from nonsmooth.lcp import solve_lcp

DEFAULT_SIZES = (1, 2, 5, 10, 20, 50, 100, 200)
DEFAULT_METHODS = ("auto", "lemke", "enumerate", "pgs", "osqp", "cvxpy")
ENUMERATION_LIMIT = 12


def random_spd_problem(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A random LCP with symmetric positive definite M (every method applies).

    Parameters
    ----------
    n : int
    seed : int

    Returns
    -------
    M : ndarray, shape (n, n)
        ``G G^T / n + I`` with ``G`` standard normal (condition number about 5).
    q : ndarray, shape (n,)
        Standard normal: about half the constraints active.
    """
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(n, n))
    return G @ G.T / n + np.eye(n), rng.normal(size=n)


def time_solvers(
    sizes: Iterable[int] = DEFAULT_SIZES,
    methods: Sequence[str] = DEFAULT_METHODS,
    *,
    min_time: float = 0.2,
    max_repeats: int = 200,
    problem=random_spd_problem,
) -> list[dict]:
    """Measure the wall-clock time per :func:`solve_lcp` call for each method and size.

    The median over the repetitions is reported (robust to a busy machine).

    Parameters
    ----------
    sizes : iterable of int
        Problem sizes ``n``.
    methods : sequence of str
        ``solve_lcp`` method names; ``enumerate`` is skipped above ``n = 12``.
    min_time : float
        Repeat each solve until this many seconds have passed (at least once).
    max_repeats : int
        Upper bound on the repetitions of one solve.
    problem : callable ``(n) -> (M, q)``
        Problem generator (default :func:`random_spd_problem`).

    Returns
    -------
    list of dict
        One row per (method, n): ``method``, ``n``, ``seconds`` (median per solve, ``nan``
        when skipped), ``repeats``, ``success``, ``residual``, ``iterations``.
    """
    rows = []
    for n in sizes:
        M, q = problem(n)
        for method in methods:
            if method == "enumerate" and n > ENUMERATION_LIMIT:
                rows.append(
                    dict(
                        method=method,
                        n=n,
                        seconds=float("nan"),
                        repeats=0,
                        success=None,
                        residual=float("nan"),
                        iterations=0,
                    )
                )
                continue
            solve_lcp(M, q, method=method)  # warm-up (lazy imports)
            timings: list[float] = []
            while sum(timings) < min_time and len(timings) < max_repeats:
                start = time.perf_counter()
                result = solve_lcp(M, q, method=method)
                timings.append(time.perf_counter() - start)
            repeats = len(timings)
            rows.append(
                dict(
                    method=method,
                    n=n,
                    seconds=float(np.median(timings)),
                    repeats=repeats,
                    success=result.success,
                    residual=result.residual,
                    iterations=result.iterations,
                )
            )
    return rows


def format_table(rows: list[dict]) -> str:
    """Table of milliseconds per solve: one line per size, one column per method."""
    methods = list(dict.fromkeys(row["method"] for row in rows))
    sizes = list(dict.fromkeys(row["n"] for row in rows))
    lookup = {(row["method"], row["n"]): row for row in rows}
    lines = [
        "ms per solve (random SPD M, q ~ N(0, 1)); '!' marks an uncertified answer",
        f"{'n':>5} " + " ".join(f"{m:>11}" for m in methods),
    ]
    for n in sizes:
        cells = []
        for m in methods:
            row = lookup[(m, n)]
            if row["repeats"] == 0:
                cells.append(f"{'-':>11}")
            else:
                mark = "" if row["success"] else "!"
                cells.append(f"{1e3 * row['seconds']:>10.3f}{mark or ' '}")
        lines.append(f"{n:>5} " + " ".join(cells))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(DEFAULT_SIZES))
    parser.add_argument("--methods", nargs="*", default=list(DEFAULT_METHODS))
    args = parser.parse_args(argv)
    rows = time_solvers(args.sizes, args.methods, min_time=0.02 if args.quick else 0.2)
    print(format_table(rows))


if __name__ == "__main__":
    main()
