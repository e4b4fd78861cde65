"""The Result of a run: time histories (time on the first axis), events and diagnostics."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from .dynamics import N_WORK, WORK_NAMES

__all__ = ["Result"]


class Result:
    """Everything a run produced.

    Attributes
    ----------
    t : ndarray, shape (N,)                   output times (s)
    q, v, dv : ndarray, shape (N, n_q)        coordinates, velocities, accelerations
    lam : ndarray, shape (N, m)               constraint multipliers (names in constraint_names)
    lambda_N, F_T, v_T : ndarray, (N, p)      normal force, friction force, sliding velocity
    modes : ndarray, shape (N, p)             +1 slip+, -1 slip-, 0 stick; NaN for smooth laws
    work : ndarray, shape (N, 5)              W_drive, W_applied, W_damping, W_friction,
                                              W_constraint (J), integrated from t0
    z : ndarray, shape (N, n_z)               internal states of smooth friction laws
    laws : list of str                        the friction law of each pair
    T, V : ndarray, shape (N,)                kinetic and potential energy (J)
    events : list of EventRecord
    diagnostics : dict                        drift, residuals, energy balance, counts, wall time
    outputs : dict of str to ndarray          the model's named outputs
    status : int                              0 end reached, 1 terminal user event, -1 failed
                                              (or interrupted): the rows up to the failure
    message : str
    output_errors : dict of str to str        outputs whose function raised (left out)
    """

    def __init__(self):
        self.outputs: dict[str, np.ndarray] = {}
        self.units: dict[str, str] = {}

    @classmethod
    def from_records(cls, rec: dict, events: list, model, *, laws: list, max_residual: float,
                     n_evaluations: int, n_steps: int, method, dt, alpha, beta, status, message,
                     wall_time):
        """The Result of a run's recorded rows (``Recorder.arrays()``: the fields of
        :data:`nonsmooth.recorder.FIELDS`), its event log and counters; reads nothing else of
        the run."""
        r = cls()
        system = model.system
        n, m, p = system.n_q, system.n_constraints, system.n_pairs
        N = rec["t"].size
        r.model, r.system, r.method, r.dt, r.alpha, r.beta = model, system, method, dt, alpha, beta
        r.status, r.message = status, message
        r.success = status >= 0
        r.t = np.array(rec["t"], dtype=float)
        y = np.array(rec["y"], dtype=float).reshape(N, -1) if N else np.zeros(
            (0, rec["y"].shape[1]))
        r.q, r.v = y[:, :n], y[:, n:2 * n]
        r.work, r.z = y[:, 2 * n:2 * n + N_WORK], y[:, 2 * n + N_WORK:]
        r.laws = [law.name for law in laws]
        r.dv = np.array(rec["dv"], dtype=float).reshape(N, n)
        r.lam = np.array(rec["lam"], dtype=float).reshape(N, m)
        for key in ("lambda_N", "F_T", "v_T", "modes"):
            setattr(r, key, np.array(rec[key], dtype=float).reshape(N, p))
        r.T = np.array(rec["T"], dtype=float)
        r.V = np.array(rec["V"], dtype=float)
        phi = np.array(rec["phi"], dtype=float).reshape(N, m)
        dphi = np.array(rec["dphi"], dtype=float).reshape(N, m)
        r.phi, r.dphi = phi, dphi
        r.events = events
        r.coordinate_names = list(system.coordinate_names)
        r.constraint_names = list(system.constraint_names)
        r.pair_names = [pr.name for pr in system.pairs]
        de = (r.T + r.V) - (r.T[0] + r.V[0]) if N else np.zeros(0)
        balance = de - r.work.sum(axis=1) if N else np.zeros(0)
        scale = max(1e-300, float(np.max(np.abs(np.column_stack([de, r.work])))) if N else 1.0)
        # the scale of the energy-balance warning: also the kinetic energy, and a floor at the
        # roundoff level of the energies themselves (1e-6 |V|, 1e-12 J), so that a run whose
        # energy hardly changes (a mechanism held by static friction) is not judged by roundoff
        floor = max(1e-6 * float(np.max(np.abs(r.V))), 1e-12) if N else 1.0
        scaled = (float(np.max(np.abs(balance))) / max(scale, float(np.max(r.T)), floor)
                  if N else 0.0)
        r.energy_error = balance
        kinds = [e.kind for e in r.events]
        r.diagnostics = {
            "max_drift_position": float(np.max(np.abs(phi))) if phi.size else 0.0,
            "max_drift_velocity": float(np.max(np.abs(dphi))) if dphi.size else 0.0,
            "max_lcp_residual": float(max_residual),
            "energy_balance_error": float(np.max(np.abs(balance))) if N else 0.0,
            "energy_balance_relative": float(np.max(np.abs(balance))) / scale if N else 0.0,
            "energy_balance_scaled": scaled,
            "work": dict(zip(WORK_NAMES, r.work[-1].tolist() if N else [0.0] * N_WORK,
                             strict=True)),
            "n_evaluations": int(n_evaluations),
            "n_steps": int(n_steps),
            "n_events": len(r.events) - kinds.count("start"),
            "n_mode_switches": kinds.count("velocity_zero") + kinds.count("reserve_zero"),
            "wall_time": float(wall_time),
        }
        r.output_errors = {}
        for name, out in model.outputs.items():
            try:
                r.outputs[name] = np.asarray(out.function(r), dtype=float).reshape(N)
            except Exception as exc:  # a user's output function: kept out, reported by simulate
                from .diagnose import user_frame

                where = user_frame(exc)
                r.output_errors[name] = (f"{type(exc).__name__}: {exc}"
                                         + (f" (in {where})" if where else ""))
                continue
            r.units[name] = out.unit
        return r

    # ------------------------------------------------------------------ access
    def __getitem__(self, name: str) -> np.ndarray:
        """A named output, a coordinate (``"rocker.theta"``), a constraint multiplier by row
        name, or ``lambda_N`` / ``F_T`` / ``v_T`` (the single pair's, or ``"lambda_N:pair"``)."""
        if name == "t":
            return self.t
        if name in self.outputs:
            return self.outputs[name]
        if name in self.coordinate_names:
            return self.q[:, self.coordinate_names.index(name)]
        if name in self.constraint_names:
            return self.lam[:, self.constraint_names.index(name)]
        base, _, pair = name.partition(":")
        if base in ("lambda_N", "F_T", "v_T"):
            arr = getattr(self, base)
            if pair:
                if pair not in self.pair_names:
                    raise KeyError(f"no frictional pair {pair!r}; pairs: {self.pair_names}")
                return arr[:, self.pair_names.index(pair)]
            if arr.shape[1] == 1:
                return arr[:, 0]
        raise KeyError(f"no output {name!r}; available: {', '.join(self.available())}")

    def available(self) -> list[str]:
        names = ["t", *self.outputs, *self.coordinate_names, *self.constraint_names]
        for base in ("lambda_N", "F_T", "v_T"):
            names += [f"{base}:{pr}" for pr in self.pair_names]
        return names

    def columns(self) -> list[str]:
        """Default CSV columns: t and the model's outputs (or coordinates and pair forces)."""
        if self.outputs:
            return ["t", *self.outputs]
        cols = ["t", *self.coordinate_names, *self.constraint_names]
        for base in ("lambda_N", "F_T", "v_T"):
            cols += [f"{base}:{pr}" for pr in self.pair_names]
        return cols

    # ------------------------------------------------------------------ export
    def to_csv(self, path, columns=None) -> Path:
        """Write the time histories as CSV (header = column names); returns the path."""
        cols = list(columns or self.columns())
        data = np.column_stack([self[c] for c in cols])
        path = Path(path)
        with path.open("w", newline="") as fh:
            fh.write(",".join(cols) + "\n")
            np.savetxt(fh, data, delimiter=",", fmt="%.12g")
        return path

    def events_to_csv(self, path) -> Path:
        """Write the event log: columns ``t, pair, kind, before, after``."""
        path = Path(path)
        with path.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["t", "pair", "kind", "before", "after"])
            for e in self.events:
                w.writerow([f"{e.t:.15g}", e.pair, e.kind, e.before, e.after])
        return path

    def summary(self) -> str:
        d = self.diagnostics
        span = f"t = {self.t[0]:g} .. {self.t[-1]:g} s" if len(self.t) else "no output"
        lines = [
            f"status {self.status}: {self.message}",
            f"{span}, {len(self.t)} outputs, method {self.method}",
            f"events: {d['n_events']} ({d['n_mode_switches']} mode switches)",
            f"max drift |Phi| {d['max_drift_position']:.3e}, |dPhi/dt| "
            f"{d['max_drift_velocity']:.3e}",
            f"max HLCP residual {d['max_lcp_residual']:.3e}",
            f"energy balance error {d['energy_balance_error']:.3e} J "
            f"(relative {d['energy_balance_relative']:.3e})",
            f"{d['n_evaluations']} evaluations, {d['wall_time']:.3f} s wall time",
        ]
        return "\n".join(lines)

    def plot(self, names=None, path=None, *, x="t", title=None):
        """Plot named columns against ``x`` (one panel per name); save to ``path`` if given."""
        if not names:  # the model's choice, else the first columns that are not all zero
            names = list(getattr(self.model, "plot_outputs", ()))
            if not names:
                names = [c for c in self.columns() if c != "t" and np.any(self[c] != 0)][:6]
            if not names:
                names = [c for c in self.columns() if c != "t"][:1]
        names = list(names)
        size = (8, 1.9 * len(names) + 0.6)
        if path is None:  # interactive: pyplot's current backend
            import matplotlib.pyplot as plt

            fig = plt.figure(figsize=size)
        else:  # to a file: no pyplot, no backend switch (safe inside notebooks and servers)
            from matplotlib.figure import Figure

            fig = Figure(figsize=size)
        axes = fig.subplots(len(names), 1, sharex=True, squeeze=False)
        xs = self[x]
        for ax, name in zip(axes[:, 0], names, strict=True):
            ax.plot(xs, self[name], lw=1.2)
            unit = self.units.get(name, "")
            ax.set_ylabel(f"{name}" + (f" [{unit}]" if unit else ""))
            ax.grid(alpha=0.3)
        axes[-1, 0].set_xlabel(x + (" [s]" if x == "t" else f" [{self.units.get(x, '')}]"))
        fig.suptitle(title or getattr(self.model, "name", ""))
        fig.tight_layout()
        if path is not None:
            fig.savefig(path, dpi=120)
        return fig
