"""Reproductions of published results (``nonsmooth reproduce NAME``).

``crank-rocker``: Wang, Wang & Zhuang, section 3 (``docs/method.md`` section 12): Figs. 3-6,
the data as CSV, a Baumgarte stabilization study, and a summary table (``summary.txt``).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .result import Result
from .simulate import simulate

__all__ = ["REPRODUCTIONS", "reproduce_crank_rocker", "baumgarte_study",
           "summary_lines"]


def _figure(nrows=1, height=3.2):
    """A figure for a file (matplotlib's Figure, no pyplot: the backend is left alone)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, height * nrows))
    axes = fig.subplots(nrows, 1, squeeze=False)
    return fig, axes[:, 0]


def _save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return path


def baumgarte_study(t_end: float = 5.0, dt: float = 1e-3, stabilized=10.0,
                    **params) -> dict[tuple[str, float], Result]:
    """Crank-rocker drift at step ``dt`` for alpha = beta = 0 and = ``stabilized`` (a value or
    a tuple of values, 1/s), with RK4 and explicit Euler. Returns ``{(method, alpha): Result}``
    (failed runs have ``status = -1``)."""
    from .models import crank_rocker

    values = (stabilized,) if np.ndim(stabilized) == 0 else tuple(stabilized)
    runs = {}
    for method in ("RK4", "Euler"):
        for ab in (0.0, *values):
            model = crank_rocker.build(alpha=ab, beta=ab, **params)
            runs[(method, ab)] = simulate(model, t_end, method=method, dt=dt, throw=False)
    return runs


def reproduce_crank_rocker(outdir: str | Path = "reproduction", *, t_end: float = 5.0,
                           dt: float = 1e-3, echo: Callable[[str], None] = print) -> dict:
    """Write Figs. 3-6, CSV data, the Baumgarte study and a summary table (printed and
    written to ``summary.txt``).

    Returns a dict with the results (``"c0"``, ``"c8"``), the study runs and the file paths.
    """
    from .models import crank_rocker

    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    res = {}
    for c in (0.0, 8.0):
        key = f"c{c:g}"
        echo(f"simulating the crank-rocker, c = {c:g} N m s/rad, RK4, h = {dt:g} s, "
             f"0..{t_end:g} s ...")
        res[key] = r = simulate(crank_rocker.build(c=c), t_end, method="RK4", dt=dt)
        files.append(r.to_csv(out / f"crank_rocker_{key}.csv"))
        files.append(r.events_to_csv(out / f"crank_rocker_{key}_events.csv"))
    r0, r8 = res["c0"], res["c8"]

    # Fig. 3: angular velocities
    fig, ax = _figure(1)
    ax[0].plot(r0.t, r0["omega1"], label=r"rocker $\dot\theta_1$")
    ax[0].plot(r0.t, np.gradient(r0["theta2"], r0.t), "--", label=r"crank $\dot\theta_2$")
    ax[0].set(xlabel="t [s]", ylabel="angular velocity [rad/s]",
              title="Fig. 3: rocker and crank angular velocity (c = 0)")
    ax[0].legend()
    ax[0].grid(alpha=0.3)
    files.append(_save(fig, out / "fig3_angular_velocities.png"))

    # Fig. 4: rocker angular acceleration against the crank angle (one revolution)
    fig, ax = _figure(1)
    one = r0["theta2"] <= 2 * math.pi + 1e-9
    ax[0].plot(np.degrees(r0["theta2"][one]), r0["alpha1"][one])
    for x in (0, 180, 360):
        ax[0].axvline(x, color="0.7", lw=0.8)
    ax[0].axhline(0, color="0.7", lw=0.8)
    ax[0].set(xlabel=r"crank angle $\theta_2$ [deg]", ylabel=r"$\ddot\theta_1$ [rad/s$^2$]",
              title="Fig. 4: rocker angular acceleration (zero at theta2 = 0 and 180 deg)")
    ax[0].grid(alpha=0.3)
    files.append(_save(fig, out / "fig4_rocker_acceleration.png"))

    # Fig. 5: normal and friction force, c = 0
    fig, ax = _figure(2, 2.6)
    ax[0].plot(r0.t, r0["lambda_N"])
    ax[0].set(ylabel=r"$\lambda_N$ [N]", title="Fig. 5: normal and friction force (c = 0)")
    ax[1].plot(r0.t, r0["F_f"], color="C1")
    ax[1].set(xlabel="t [s]", ylabel=r"$F_f$ [N]")
    for a in ax:
        a.grid(alpha=0.3)
        a.axhline(0, color="0.6", lw=0.8)
    files.append(_save(fig, out / "fig5_forces_c0.png"))

    # Fig. 6: friction force against the crank angle, c = 8
    fig, ax = _figure(1)
    deg = np.degrees(np.mod(r8["theta2"], 2 * math.pi))
    order = np.argsort(deg, kind="stable")
    ax[0].plot(deg[order], r8["F_f"][order], ".", ms=1.5)
    ax[0].set(xlabel=r"crank angle $\theta_2$ mod 360 [deg]", ylabel=r"$F_f$ [N]",
              title="Fig. 6: friction force, c = 8 (jumps at 0 and 180 deg, where v_r = 0)")
    ax[0].axhline(0, color="0.6", lw=0.8)
    ax[0].grid(alpha=0.3)
    files.append(_save(fig, out / "fig6_friction_c8.png"))

    # Baumgarte study
    echo(f"Baumgarte study: RK4 and explicit Euler, h = {dt:g} s, alpha = beta = 0, 10, 100 "
         "1/s ...")
    study = baumgarte_study(t_end=t_end, dt=dt, stabilized=(10.0, 100.0))
    fig, ax = _figure(1, 3.6)
    for (method, ab), r in study.items():
        drift = np.maximum(np.abs(r["phi"]), 1e-18)
        ax[0].semilogy(r.t, drift, label=f"{method}, alpha = beta = {ab:g}"
                       + ("" if r.success else " (failed)"))
    ax[0].set(xlabel="t [s]", ylabel=r"|$\phi$| [m]",
              title=f"Constraint drift, h = {dt:g} s (Baumgarte study)")
    ax[0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # hides no curve
    fig.set_size_inches(9.5, 3.6)
    ax[0].grid(alpha=0.3, which="both")
    files.append(_save(fig, out / "baumgarte_drift.png"))
    with (out / "baumgarte_study.csv").open("w") as fh:
        fh.write("method,alpha,beta,max_drift_m,final_drift_m,max_velocity_drift_m_s,status\n")
        for (method, ab), r in study.items():
            fh.write(f"{method},{ab:g},{ab:g},{np.max(np.abs(r['phi'])):.6e},"
                     f"{abs(r['phi'][-1]):.6e},{r.diagnostics['max_drift_velocity']:.6e},"
                     f"{r.status}\n")
    files.append(out / "baumgarte_study.csv")

    # summary: printed and written to summary.txt
    lines = summary_lines(res, study, t_end=t_end, dt=dt)
    echo("")
    for line in lines:
        echo(line)
    echo("")
    (out / "summary.txt").write_text("\n".join(lines) + "\n")
    files.append(out / "summary.txt")
    echo(f"wrote {len(files)} files to {out}/")
    return {"results": res, "study": study, "files": files}


def summary_lines(res: dict[str, Result], study: dict[tuple[str, float], Result], *,
                  t_end: float, dt: float) -> list[str]:
    """The reproduction's summary table (peak forces, drift and events of the c = 0 and c = 8
    runs ``res``; the Baumgarte ``study``'s drifts) and the observation read from its numbers,
    as lines of text: what ``nonsmooth reproduce crank-rocker`` prints and writes to
    ``summary.txt``."""
    lines = [f"crank-rocker summary (RK4, h = {dt:g} s, 0..{t_end:g} s)",
             f"{'case':<8}{'peak |lambda_N| [N]':>21}{'peak |F_f| [N]':>16}"
             f"{'peak |tau| [N m]':>18}{'max |phi| [m]':>15}{'events':>8}"]
    for key, r in res.items():
        lines.append(f"{key:<8}{np.max(np.abs(r['lambda_N'])):>21.4f}"
                     f"{np.max(np.abs(r['F_f'])):>16.4f}{np.max(np.abs(r['tau'])):>18.4f}"
                     f"{np.max(np.abs(r['phi'])):>15.2e}{r.diagnostics['n_mode_switches']:>8d}")
    lines += ["", f"Baumgarte study (max |phi| over 0..{t_end:g} s)",
              f"{'method':<8}{'alpha=beta':>11}{'max |phi| [m]':>15}{'final |phi| [m]':>17}"
              f"{'max |dphi/dt| [m/s]':>21}"]
    for (method, ab), r in study.items():
        tag = "" if r.success else f"  failed: {r.message[:60]}"
        lines.append(f"{method:<8}{ab:>11g}{np.max(np.abs(r['phi'])):>15.2e}"
                     f"{abs(r['phi'][-1]):>17.2e}{r.diagnostics['max_drift_velocity']:>21.2e}"
                     f"{tag}")
    drift = {key: float(np.max(np.abs(r["phi"]))) for key, r in study.items() if r.success}
    by_method: dict[str, list[float]] = {}  # the successful runs' drifts by method
    for (m, _), d in drift.items():
        by_method.setdefault(m, []).append(d)
    rk4 = max(by_method.get("RK4", []))
    euler0 = drift.get(("Euler", 0.0), math.nan)
    euler_best = min(by_method.get("Euler", []))
    lines += textwrap.wrap(
        "The paper reports that alpha = beta = 0 with h = 1e-3 diverges. Observed here: with "
        f"RK4 the drift stays below {rk4:.1e} m with or without stabilization (no divergence); "
        f"with explicit Euler the unstabilized drift stays bounded at {euler0:.1e} m "
        "(oscillating with the crank) and Baumgarte lowers it to "
        f"{euler_best:.1e} m, roughly in proportion to alpha = beta, but not the velocity "
        "drift, which is Euler's own truncation error.", 96)
    return lines


REPRODUCTIONS = {"crank-rocker": reproduce_crank_rocker}
