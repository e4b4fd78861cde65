"""Time per solve of the LCP methods by problem size, and the LCP's share of an evaluation.

Run ``python benchmarks/lcp.py`` (add ``--quick`` for a short run). The second table times one
engine evaluation (crank-rocker: one pair; two coupled pairs at an event: the full HLCP) and the
normal-force (H)LCP solve inside it.
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


def _per_call(fn, min_time=0.2) -> float:
    """Median seconds per call of ``fn`` over batches filling ``min_time``."""
    fn()
    times, total = [], 0.0
    while total < min_time:
        t0 = time.perf_counter()
        for _ in range(50):
            fn()
        dt = (time.perf_counter() - t0) / 50
        times.append(dt)
        total += 50 * dt
    return float(np.median(times))


def engine_share(min_time: float = 0.2) -> list[dict]:
    """Time of one engine evaluation and of the normal-force (H)LCP solve inside it.

    * crank-rocker (one pair, within a smooth phase): the scalar absolute value equation is
      solved in closed form inline; also shown, what a ``solve_ave`` call would cost;
    * two coupled pairs at an event (``faces=None``: the full HLCP by ``solve_ave``).
    """
    from nonsmooth import Constraint, FrictionPair, GeneralizedSystem
    from nonsmooth.dynamics import Dynamics
    from nonsmooth.lcp import solve_ave
    from nonsmooth.models import crank_rocker

    rows = []
    model = crank_rocker.build(c=8.0)
    dyn = Dynamics(model.system)
    q, v, modes, faces = np.array([0.1, 0.3]), np.array([1.0, 3.0]), np.array([-1.0]), np.ones(1)
    A, c = dyn.normal_equation(0.1, q, v, modes)
    a0, c0 = float(A[0, 0]), float(c[0])

    def inline():
        return faces[0] * (c0 / (1.0 - a0 * faces[0]))

    t_eval = _per_call(lambda: dyn.evaluate(0.1, q, v, modes, faces), min_time)
    rows.append({"case": "crank-rocker, 1 pair (inline closed form)", "eval": t_eval,
                 "lcp": _per_call(inline, min_time)})
    rows.append({"case": "crank-rocker, 1 pair (if solve_ave were called)", "eval": t_eval,
                 "lcp": _per_call(lambda: solve_ave(A, c), min_time)})
    M = np.array([[2.0, 0.3, 0.1, 0.0], [0.3, 1.5, 0.0, 0.2], [0.1, 0.0, 1.0, 0.1],
                  [0.0, 0.2, 0.1, 1.2]])
    two = GeneralizedSystem(
        ["x1", "y1", "x2", "y2"], M,
        [Constraint("n1", "normal", lambda t, q: q[1], lambda t, q: [0, 1, 0, 0],
                    lambda t, q, v: 0.0),
         Constraint("n2", "normal", lambda t, q: q[3] - q[1], lambda t, q: [0, -1, 0, 1],
                    lambda t, q, v: 0.0)],
        forces=lambda t, q, v: [0.0, -9.81, 1.0, -5.0],
        pairs=[FrictionPair("p1", "n1", 0.4), FrictionPair("p2", "n2", 0.6)],
        tangential=lambda t, q: [[1, 0.2, 0, 0], [-1, 0, 1, 0.3]])
    dyn2 = Dynamics(two)
    q2, v2, m2 = np.zeros(4), np.array([1.0, 0, -1.0, 0]), np.array([1.0, -1.0])
    A2, c2 = dyn2.normal_equation(0.0, q2, v2, m2)
    rows.append({"case": "2 coupled pairs at an event (full HLCP)",
                 "eval": _per_call(lambda: dyn2.evaluate(0.0, q2, v2, m2), min_time),
                 "lcp": _per_call(lambda: solve_ave(A2, c2), min_time)})
    return rows


def format_share(rows: list[dict]) -> str:
    lines = ["engine evaluation and its normal-force (H)LCP solve",
             f"{'case':<50}{'eval [us]':>11}{'LCP [us]':>10}{'share':>8}"]
    for row in rows:
        lines.append(f"{row['case']:<50}{1e6 * row['eval']:>11.1f}{1e6 * row['lcp']:>10.2f}"
                     f"{row['lcp'] / row['eval']:>8.1%}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(DEFAULT_SIZES))
    parser.add_argument("--methods", nargs="*", default=list(DEFAULT_METHODS))
    args = parser.parse_args(argv)
    rows = time_solvers(args.sizes, args.methods, min_time=0.02 if args.quick else 0.2)
    print(format_table(rows))
    print()
    print(format_share(engine_share(min_time=0.05 if args.quick else 0.2)))


if __name__ == "__main__":
    main()
