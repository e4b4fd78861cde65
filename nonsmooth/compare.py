"""compare(): the same model and parameters under several friction laws, side by side.

Every run uses the model's frictional pairs with their one friction description
(``FrictionPair.params``); only the law changes. The first law is the reference of the
differences. Columns of the table:

* ``max |dF|``, ``rms dF``: friction force differences from the reference (N), over all pairs;
* ``max |d<out>|``, ``rms d<out>``: the same for each motion output of the model;
* ``stuck``: fraction of the output times a pair is stuck: mode ``stick`` for Coulomb, sliding
  speed below ``stick_speed`` (default 1e-3 of the run's largest sliding speed) for smooth laws;
* ``events``: mode switches (velocity_zero + reserve_zero) and normal-force sign changes;
* ``wall [s]``, ``evals``: wall time and right-hand-side evaluations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import NonsmoothError
from .model import Model
from .result import Result
from .simulate import simulate

__all__ = ["compare", "Comparison"]


@dataclass
class Comparison:
    """Results of one model under several laws, and the table that compares them."""

    model: Model
    laws: list[str]
    results: dict[str, Result]
    motion: list[str]
    table: list[dict] = field(default_factory=list)

    def summary(self) -> str:
        """The table as text (units in the header)."""
        cols = ["law", "method", "wall [s]", "evals", "events", "stuck", "max |dF| [N]",
                "rms dF [N]"]
        for name in self.motion:
            unit = self.results[self.laws[0]].units.get(name, "")
            cols += [f"max |d{name}| [{unit}]", f"rms d{name} [{unit}]"]
        keys = ["law", "method", "wall", "evals", "events", "stuck", "max_dF", "rms_dF"]
        for name in self.motion:
            keys += [f"max_d{name}", f"rms_d{name}"]
        widths = [max(len(c), 10) for c in cols]
        lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths, strict=True))]
        for row in self.table:
            cells = []
            for k, w in zip(keys, widths, strict=True):
                val = row[k]
                if isinstance(val, str):
                    cells.append(val.rjust(w))
                elif isinstance(val, (int, np.integer)):
                    cells.append(f"{val:>{w}d}")
                elif k == "stuck":
                    cells.append(f"{val:>{w}.1%}")
                elif k == "wall":
                    cells.append(f"{val:>{w}.3f}")
                else:
                    cells.append(f"{val:>{w}.3e}")
            lines.append("  ".join(cells))
        return "\n".join(lines)

    def to_csv(self, path) -> Path:
        """Write the table as CSV."""
        path = Path(path)
        keys = list(self.table[0])
        with path.open("w") as fh:
            fh.write(",".join(keys) + "\n")
            for row in self.table:
                fh.write(",".join(str(row[k]) for k in keys) + "\n")
        return path

    def plot(self, path=None, format=None):
        """Overlay of the motion outputs, the friction force and the normal force (pair 0);
        saved to ``path`` if given, in ``format`` (default: by the path's suffix)."""
        names = [*self.motion, "F_T", "lambda_N"]
        size = (8.5, 2.1 * len(names) + 0.6)
        if path is None:
            import matplotlib.pyplot as plt

            fig = plt.figure(figsize=size)
        else:
            from matplotlib.figure import Figure

            fig = Figure(figsize=size)
        axes = fig.subplots(len(names), 1, sharex=True, squeeze=False)[:, 0]
        ref = self.results[self.laws[0]]
        for law in self.laws:
            r = self.results[law]
            for ax, name in zip(axes, names, strict=True):
                y = r[name] if name in r.outputs else getattr(r, name)[:, 0]
                ax.plot(r.t, y, lw=1.1, label=law)
        for ax, name in zip(axes, names, strict=True):
            unit = ref.units.get(name, "N" if name in ("F_T", "lambda_N") else "")
            ax.set_ylabel(f"{name} [{unit}]" if unit else name)
            ax.grid(alpha=0.3)
        axes[0].legend(ncol=len(self.laws), fontsize=8)
        axes[-1].set_xlabel("t [s]")
        fig.suptitle(f"{self.model.name}: " + " vs ".join(self.laws))
        fig.tight_layout()
        if path is not None:
            fig.savefig(path, dpi=120, format=format)
        return fig


def _stuck_fraction(r: Result, stick_speed: float | None) -> float:
    if not r.pair_names:
        return 0.0
    stuck = []
    for i, law in enumerate(r.laws):
        if law == "coulomb":
            stuck.append(r.modes[:, i] == 0)
        else:
            v = np.abs(r.v_T[:, i])
            limit = stick_speed if stick_speed is not None else max(1e-12, 1e-3 * v.max())
            stuck.append(v < limit)
    return float(np.mean(np.concatenate(stuck)))


def compare(model, laws=("coulomb", "lugre"), t_end: float | None = None, *,
            method: str | None = None, dt: float | None = None, stick_speed: float | None = None,
            **simulate_options) -> Comparison:
    """Simulate ``model`` once per friction law and compare.

    Parameters
    ----------
    model : Model
        Built once; each law takes its parameters from the pairs' friction description.
    laws : sequence of str
        Law names (the first is the reference of the differences).
    t_end : float, optional
        End time (s); default the model's.
    method : str, optional
        Integrator for every law; default per law (DOP853 for Coulomb, Radau for smooth laws).
    dt : float, optional
        Output step (s); default the model's, else a thousandth of the run.
    stick_speed : float, optional
        Sliding speed (m/s) below which a smooth law counts as stuck.
    **simulate_options
        Passed to :func:`nonsmooth.simulate` (rtol, atol, alpha, beta, ...).
    """
    laws = list(laws)
    if len(laws) < 2:
        raise ValueError(f"compare needs at least two friction laws, got {laws}")
    if len(set(laws)) != len(laws):
        raise ValueError(f"friction laws repeated: {laws}")
    from .model import as_model

    model = as_model(model)
    if t_end is None and model.span_note:  # the span is a default the model file did not give
        import warnings

        warnings.warn(model.span_note, UserWarning, stacklevel=2)
    t_end = model.t_end if t_end is None else float(t_end)
    if dt is None:
        dt = model.dt or t_end / 1000.0
    results = {}
    for law in laws:
        try:
            results[law] = simulate(model, t_end, friction=law, method=method, dt=dt,
                                    **simulate_options)
        except (NonsmoothError, ValueError, KeyboardInterrupt) as exc:
            # name the law; keep the runs done so far (exc.comparison) and the failed one's part
            partial = getattr(exc, "result", None)
            done = Comparison(model, list(results), results,
                              list(model.motion_outputs) or list(model.outputs)[:2])
            done.table = _table(done, stick_speed) if results else []
            if isinstance(exc, KeyboardInterrupt):
                exc.comparison, exc.law = done, law
                raise
            error = (type(exc) if isinstance(exc, NonsmoothError) else ValueError)(
                f"friction law {law}: {exc}")
            error.result, error.comparison, error.law = partial, done, law
            raise error from None
    motion = list(model.motion_outputs) or list(model.outputs)[:2]
    comparison = Comparison(model, laws, results, motion)
    comparison.table = _table(comparison, stick_speed)
    return comparison


def _table(comparison: Comparison, stick_speed) -> list[dict]:
    """One row per law: differences from the first law's run, stuck fraction, events, cost."""
    laws, results, motion = comparison.laws, comparison.results, comparison.motion
    ref = results[laws[0]]
    table = []
    for law in laws:
        r = results[law]
        d = r.diagnostics
        dF = r.F_T - ref.F_T
        row = {
            "law": law,
            "method": r.method,
            "wall": d["wall_time"],
            "evals": d["n_evaluations"],
            "events": sum(e.kind in ("velocity_zero", "reserve_zero", "normal_sign")
                          for e in r.events),
            "stuck": _stuck_fraction(r, stick_speed),
            "max_dF": float(np.max(np.abs(dF))) if dF.size else 0.0,
            "rms_dF": float(math.sqrt(np.mean(dF ** 2))) if dF.size else 0.0,
        }
        for name in motion:
            diff = r[name] - ref[name]
            row[f"max_d{name}"] = float(np.max(np.abs(diff)))
            row[f"rms_d{name}"] = float(math.sqrt(np.mean(diff ** 2)))
        table.append(row)
    return table
