"""The Result of a run: time histories (time on the first axis), events and diagnostics.

Names every run understands (``result[name]``, ``available()``, CSV columns), besides a
model's own declared outputs: for a planar model, whatever way it was built,

==========================  =======  =======================================================
name                        unit     meaning
==========================  =======  =======================================================
``<body>.x``, ``.y``        m        centre of mass (global axes)
``<body>.angle``            rad      angle of the body x-axis, counter-clockwise (rigid body)
``<body>.vx``, ``.vy``      m/s      velocity of the centre of mass
``<body>.w``                rad/s    angular velocity, counter-clockwise (rigid body)
``<pair>.N``                N        normal load of a frictional element (joint reaction,
                                     bending and preload, or a clutch's given force)
``<pair>.F_f``              N        friction force of a sliding pair on its second body
                                     (the slider), along the slot axis
``<pair>.tau``              N m      friction torque of a rotational pair (revolute joint
                                     friction, clutch, brake) on its second body
                                     (``body_j``, ``body_b``; a brake's body):
                                     ``radius * F_T``
``<pair>.mode``             -        +1 slip+, -1 slip-, 0 stick (NaN: a smooth law);
                                     a pair of dim > 1: 2 slip, 0 stick
``<pair>.F_x``, ``.F_y``    N        a sliding contact's friction force on its body at the
                                     point (pair of dim 2), and ``.F_f`` its magnitude
``<pair>.v_x``, ``.v_y``    m/s      a sliding contact's slip velocity (the point's)
``<driver>.force``          N        a driver's force on the slider (translational joint)
``<driver>.torque``         N m      a driver's torque on ``body_j`` (revolute joint)
==========================  =======  =======================================================

A pair is rotational when its tangential Jacobian row acts on body angles only (so clutches,
brakes and any rotational friction element are named ``.tau`` without further declaration);
likewise a driver is a torque when its constraint row acts on angles only. Any system also
answers its coordinate names (``"rocker.theta"``: the column of ``q``), its velocity names
where they differ from the coordinates' (a family with a kinematic map, ``n_v != n_q``: the
column of ``v``; ``velocity_names``), constraint rows (multipliers) and
``lambda_N``, ``N``, ``F_T``, ``v_T`` (the single pair's column; with several pairs the
``(N, p)`` array, or one pair's by ``"F_T:pair"``: its rows of ``W``, (N, dim) for a pair of
dimension > 1).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from .core.layout import N_WORK, WORK_NAMES, StateLayout
from .errors import NotRecordedError
from .run.events import EventLog

__all__ = ["Result", "element_outputs"]

_PAIR_ARRAYS = ("lambda_N", "N", "F_T", "v_T")

#: The fields of the evaluations at the outputs that ``simulate(..., derived=False)`` does not
#: compute (accelerations, multipliers, constraint values and rates): reading one raises
#: :class:`~nonsmooth.errors.NotRecordedError`.
DERIVED = ("dv", "lam", "phi", "dphi")


def _not_recorded(what: str) -> NotRecordedError:
    return NotRecordedError(
        f"{what} was not computed by this run: simulate(..., derived=False) records the "
        "states, energies and work at the outputs, not their evaluations (accelerations, "
        "multipliers, constraint drift, and the outputs computed from them); run again with "
        "derived=True (the default)")


def _derived_field(name: str) -> property:
    """The property of one of :data:`DERIVED`: its array, or NotRecordedError where the run
    did not compute it."""
    key = "_" + name

    def get(self):
        value = self.__dict__.get(key)
        if value is None:
            raise _not_recorded(f"Result.{name}")
        return value

    def put(self, value) -> None:
        self.__dict__[key] = value

    return property(get, put, doc=f"``{name}`` at the outputs (:class:`Result`).")


def element_outputs(system, q0=None, v0=None, t0: float = 0.0) -> dict:
    """The named outputs of a system's elements (module docstring): ``{name: (function(result)
    -> ndarray (N,), unit, description)}``, as the system's family names them
    (``System.element_outputs``, obligation 7: the planar family's bodies, pairs and drivers,
    the spatial family's bodies, reactions and joint coordinates; none for a system in
    generalized coordinates, whose coordinates carry no units to go by)."""
    return system.element_outputs(q0, v0, t0)


class Result:
    """Everything a run produced.

    Attributes
    ----------
    t : ndarray, shape (N,)                   output times (s)
    q : ndarray, shape (N, n_q)               coordinates (names: ``coordinate_names``)
    v, dv : ndarray, shape (N, n_v)           velocities, accelerations (names:
                                              ``velocity_names``; n_v = n_q unless the family
                                              has a kinematic map)
    y : ndarray, shape (n_states, N)          the state ``[q, v, z]`` with time on the second
                                              axis, as ``solve_ivp``'s (n_states = n_q + n_v +
                                              n_z)
    sol : DenseOutput                         ``sol(t)``: the state at any time of the run's
                                              span (:mod:`nonsmooth.run.dense`: cubic Hermite on
                                              the outputs, events and stops)
    t_events : dict of str to ndarray         times (s) of each user event function's
                                              occurrences, keyed by its name
    y_events : dict of str to ndarray         the states there, shape (k, n_states)
    nfev : int                                right-hand-side evaluations
    lam : ndarray, shape (N, m)               constraint multipliers (names in constraint_names)
    row_sets : list of (float, list of str)   the constraint rows in force from each time (s)
                                              on: one set, or more where the rows a spatial
                                              model removed as redundant were chosen again
                                              along the motion (``lam`` then has a column per
                                              row used, 0 while it was removed)
    lambda_N, F_T, v_T : ndarray, (N, p)      normal multiplier, friction force, sliding velocity
    N : ndarray, shape (N, p)                 normal load of each pair (N)
    modes : ndarray, shape (N, p)             +1 slip+, -1 slip-, 0 stick; NaN for smooth laws
    work : ndarray, shape (N, 5)              W_drive, W_applied, W_damping, W_friction,
                                              W_constraint (J), integrated from t0
    z : ndarray, shape (N, n_z)               internal states of smooth friction laws
    layout : StateLayout                      the integrated state's layout ``[q | v | work |
                                              z]`` (:mod:`nonsmooth.core.layout`)
    laws : list of str                        the friction law of each pair
    T, V : ndarray, shape (N,)                kinetic and potential energy (J)
    events : EventLog                         the event log: a list of EventRecord, filtered
                                              by name and kind (``events.filter(name, kind)``)
    diagnostics : dict                        drift, residuals, energy balance, counts, wall time
    outputs : dict of str to ndarray          the model's declared outputs (a planar model's
                                              element names, module docstring, come on top)
    status : int                              0 end reached, 1 terminal user event, -1 failed
                                              (or interrupted): the rows up to the failure
    message : str
    output_errors : dict of str to str        outputs whose function raised (left out)
    not_recorded : list of str                the model's outputs a ``derived=False`` run
                                              leaves out (computed from ``dv``, ``lam``,
                                              ``phi`` or ``dphi``, which it does not record:
                                              reading any raises NotRecordedError)
    """

    def __init__(self):
        self.outputs: dict[str, np.ndarray] = {}
        self.units: dict[str, str] = {}
        self.named: dict[str, tuple] = {}
        self.not_recorded: list[str] = []
        self._knots: list = []
        self._knot_acceleration = None
        self._sol = None

    @classmethod
    def from_records(cls, rec: dict, events: list, model, *, laws: list, max_residual: float,
                     n_evaluations: int, n_steps: int, method, dt, alpha, beta, status, message,
                     wall_time, knots=(), knot_acceleration=None, n_phases: int = 1,
                     t_span=None, event_names=(), layout: StateLayout | None = None,
                     derived: bool = True, constraint_names=None, step_solver=None):
        """The Result of a run's recorded rows (``Recorder.arrays()``: the fields of
        :data:`nonsmooth.run.recorder.FIELDS`), its event log and counters; reads nothing else of
        the run. ``knots``: the dense output's further states (:class:`~.dense.DenseOutput`);
        ``knot_acceleration(side, y)``: a knot side's ``dv`` when it is not stored (evaluated
        when ``sol`` is first used); ``event_names``: the user event functions' names (the
        keys of ``t_events``); ``layout``: the integrated state's layout
        (:class:`~nonsmooth.core.layout.StateLayout`; default ``n_q``, ``n_v`` of the system
        and ``n_z`` of the recorded width); ``derived`` False: the rows hold no evaluations
        (:data:`DERIVED` raise :class:`~nonsmooth.errors.NotRecordedError`, and so do the
        model's outputs computed from them)."""
        r = cls()
        system = model.system
        names = list(system.constraint_names if constraint_names is None else constraint_names)
        n_q, n, m, p = system.n_q, system.n_v, len(names), system.n_pairs
        N = rec["t"].size
        r.model, r.system, r.method, r.dt, r.alpha, r.beta = model, system, method, dt, alpha, beta
        r.status, r.message = status, message
        r.success = status >= 0
        r.t = np.array(rec["t"], dtype=float)
        y = np.array(rec["y"], dtype=float).reshape(N, -1) if N else np.zeros(
            (0, rec["y"].shape[1]))
        if layout is None:
            layout = StateLayout(n_q, n, y.shape[1] - n_q - n - N_WORK)
        r.layout = layout
        r.q, r.v, r.work, r.z = layout.rows(y)
        r.laws = [law.name for law in laws]
        r.dv = np.array(rec["dv"], dtype=float).reshape(N, n) if derived else None
        r.lam = np.array(rec["lam"], dtype=float).reshape(N, m) if derived else None
        for key in ("lambda_N", "N", "F_T", "v_T", "modes"):  # F_T, v_T: by row of W (p_rows)
            width = getattr(system, "p_rows", p) if key in ("F_T", "v_T") else p
            setattr(r, key, np.array(rec[key], dtype=float).reshape(N, width))
        r.T = np.array(rec["T"], dtype=float)
        r.V = np.array(rec["V"], dtype=float)
        phi = np.array(rec["phi"], dtype=float).reshape(N, m)
        dphi = np.array(rec["dphi"], dtype=float).reshape(N, m)
        r.phi, r.dphi = (phi, dphi) if derived else (None, None)
        r.events = EventLog(events, names=[*(pr.name for pr in system.pairs),
                                           *system.constraint_names, *system.contact_names,
                                           *event_names],
                            t_end=(float(knots[-1][0]) if len(knots) else
                                   (float(r.t[-1]) if N else None)))  # where the run ended
        r.coordinate_names = list(system.coordinate_names)
        r.velocity_names = list(system.velocity_names)
        r.constraint_names = names
        r.pair_names = [pr.name for pr in system.pairs]
        r.t_span = tuple(t_span) if t_span is not None else (
            (float(r.t[0]), float(r.t[-1])) if N else (0.0, 0.0))
        r.row_sets = [(r.t_span[0], list(names))]  # simulate: each set of rows in force
        r.nfev = int(n_evaluations)
        r._knots = list(knots)
        r._knot_acceleration = knot_acceleration
        r._user_events(events, event_names)
        de = (r.T + r.V) - (r.T[0] + r.V[0]) if N else np.zeros(0)
        # the work is integrated from t0; the first output may be later (t_eval)
        balance = de - (r.work.sum(axis=1) - r.work[0].sum()) if N else np.zeros(0)
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
            "max_drift_position": (float(np.max(np.abs(phi))) if phi.size else 0.0)
            if derived else math.nan,
            "max_drift_velocity": (float(np.max(np.abs(dphi))) if dphi.size else 0.0)
            if derived else math.nan,
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
            "n_phases": int(n_phases),
            "wall_time": float(wall_time),
        }
        if step_solver is not None:  # (a time-stepping method's impulse solver's counts)
            r.diagnostics["step_solver"] = dict(step_solver)
        r.named = element_outputs(system, model.q0, model.v0, r.t_span[0])
        r.units.update({name: unit for name, (_, unit, _) in r.named.items()})
        r.output_errors = {}
        for name, out in model.outputs.items():
            try:
                r.outputs[name] = np.asarray(out.function(r), dtype=float).reshape(N)
            except NotRecordedError:  # derived=False: an output of the evaluations
                r.not_recorded.append(name)
                continue
            except Exception as exc:  # a user's output function: kept out, reported by simulate
                from .diagnose import user_frame

                where = user_frame(exc)
                r.output_errors[name] = (f"{type(exc).__name__}: {exc}"
                                         + (f" (in {where})" if where else ""))
                continue
            r.units[name] = out.unit
        return r

    def _user_events(self, events, names) -> None:
        """``t_events`` and ``y_events`` per user event function (every name, even without an
        occurrence)."""
        n_z = self.z.shape[1]
        self.t_events = {name: [] for name in names}
        self.y_events = {name: [] for name in names}
        for e in events:
            if e.kind == "user":
                z = e.z if np.size(e.z) == n_z else np.full(n_z, np.nan)
                self.t_events.setdefault(e.pair, []).append(e.t)
                self.y_events.setdefault(e.pair, []).append(np.concatenate((e.q, e.v, z)))
        self.t_events = {k: np.array(v, dtype=float) for k, v in self.t_events.items()}
        self.y_events = {k: np.array(v, dtype=float).reshape(-1, self.layout.n_states)
                         for k, v in self.y_events.items()}

    # ------------------------------------------------------------------ scipy-like views
    @property
    def y(self) -> np.ndarray:
        """The state ``[q, v, z]`` with time on the second axis, shape (n_q + n_v + n_z, N)."""
        return np.hstack([self.q, self.v, self.z]).T

    @property
    def sol(self):
        """The dense output (:class:`~nonsmooth.run.dense.DenseOutput`): ``sol(t)`` is the state
        ``[q, v, z]`` at a time or times within the run's span, shape (n_states,) or
        (n_states, k); cubic Hermite on the outputs, events and time stops (accurate to the
        output spacing)."""
        if self._sol is None:
            from .run.dense import DenseOutput

            knots = []
            for t, y, before, after in self._knots:  # the sides of events and stops: now
                d0, d1 = (side if isinstance(side, np.ndarray)
                          else self._knot_acceleration(side, y) for side in (before, after))
                knots.append((t, y, d0, d1))
            system = getattr(self, "system", None)
            qdot = system.qdot if getattr(system, "has_kinematic_map", False) else None
            self._sol = DenseOutput(self.t, self.q, self.v, self.dv, self.z, knots, self.layout,
                                    qdot)
        return self._sol

    # ------------------------------------------------------------------ access
    def __getitem__(self, name: str) -> np.ndarray:
        """A named output (declared by the model, or an element's: module docstring), a
        coordinate (``"rocker.theta"``), a velocity named apart from the coordinates
        (``velocity_names``), a constraint multiplier by row name, or ``lambda_N``
        / ``N`` / ``F_T`` / ``v_T``: the single pair's column, with several pairs the (N, p)
        array (one pair's by ``"lambda_N:pair"``)."""
        if not isinstance(name, str):
            raise TypeError(f"result[{name!r}]: a Result is indexed by an output's name (a str), "
                            f"e.g. result['t'] or result['{next(iter(self.outputs), 't')}']; "
                            "rows by position: result.t[k], result.q[k], result.y[:, k]; every "
                            "name: result.available()")
        if name == "t":
            return self.t
        if name in self.outputs:
            return self.outputs[name]
        if name in self.named:
            return np.asarray(self.named[name][0](self), dtype=float)
        if name in self.coordinate_names:
            return self.q[:, self.coordinate_names.index(name)]
        if name in self._velocity_columns():
            return self.v[:, self.velocity_names.index(name)]
        if name in self.constraint_names:
            return self.lam[:, self.constraint_names.index(name)]
        base, _, pair = name.partition(":")
        if base in _PAIR_ARRAYS:
            arr = getattr(self, base)
            if pair:
                return arr[:, self._pair_columns(base, pair)]
            if arr.shape[1] == 1:
                return arr[:, 0]
            if arr.shape[1] > 1:
                return arr
            raise KeyError(f"no output {name!r}: the model has no frictional pairs")
        raise self._unknown(name)

    def _unknown(self, name: str) -> Exception:
        """The error of a name ``result[name]`` does not answer: an output a ``derived=False``
        run left out (NotRecordedError), else a KeyError listing the names it answers."""
        if name in self.not_recorded:
            return _not_recorded(f"output {name!r}")
        return KeyError(f"no output {name!r}; available: {', '.join(self.available())}")

    def _pair_columns(self, base: str, pair: str) -> int | slice:
        """The column of ``pair`` in a per-pair array (``lambda_N``, ``N``), or its rows of
        ``W`` in a per-row one (``F_T``, ``v_T``): one column for a scalar pair, a slice of
        ``dim`` columns for a pair of dimension > 1 (``result["F_T:puck"]`` is (N, 2))."""
        if pair not in self.pair_names:
            raise KeyError(f"no frictional pair {pair!r}; pairs: {self.pair_names}")
        i = self.pair_names.index(pair)
        sysm = self.system
        if base not in ("F_T", "v_T") or sysm is None or not hasattr(sysm, "w_row"):
            return i
        w, d = int(sysm.w_row[i]), int(sysm.pair_dim[i])
        return w if d == 1 else slice(w, w + d)

    def _velocity_columns(self) -> list[str]:
        """The velocity names that name a column of ``v`` (those not also a coordinate's: with
        ``n_v = n_q`` and the default names, none)."""
        coords = set(self.coordinate_names)
        return [nm for nm in getattr(self, "velocity_names", ()) if nm not in coords]

    def available(self) -> list[str]:
        """Every name ``result[name]`` answers (one column each)."""
        names = ["t", *self.outputs, *self.named, *self.coordinate_names,
                 *self._velocity_columns(), *self.constraint_names]
        for base in _PAIR_ARRAYS:
            names += [f"{base}:{pr}" for pr in self.pair_names]
        return list(dict.fromkeys(names))

    def columns(self) -> list[str]:
        """Default CSV columns: t and the model's declared outputs; else its elements' named
        outputs (bodies, frictional pairs, drivers); else coordinates and pair forces."""
        if self.outputs:
            return ["t", *self.outputs]
        if self.named:
            return ["t", *self.named]
        cols = ["t", *self.coordinate_names, *self._velocity_columns(), *self.constraint_names]
        for base in ("lambda_N", "F_T", "v_T"):
            cols += [f"{base}:{pr}" for pr in self.pair_names]
        return cols

    def __repr__(self) -> str:
        d = getattr(self, "diagnostics", None)
        if d is None:
            return "Result(empty)"
        span = (f"t = {self.t[0]:g} .. {self.t[-1]:g} s ({len(self.t)} outputs)" if len(self.t)
                else "no outputs")
        outputs = [c for c in self.columns() if c != "t"]
        shown = ", ".join(outputs[:8]) + (f", ... ({len(outputs)} in all)"
                                          if len(outputs) > 8 else "")
        kinds: dict[str, int] = {}
        for e in self.events:
            if e.kind != "start":
                kinds[e.kind] = kinds.get(e.kind, 0) + 1
        events = ", ".join(f"{k} {v}" for k, v in kinds.items()) or "none"
        lines = [
            f"Result(model {getattr(self.model, 'name', '?')!r}, status {self.status}: "
            f"{self.message})",
            f"  span     {span}; method {self.method}",
            f"  outputs  {shown or 'none'}",
            f"  events   {events}" + (f"; user: {', '.join(self.t_events)}"
                                      if self.t_events else ""),
            f"  cost     {self.nfev} evaluations, {d['n_steps']} steps, {d['n_phases']} phases, "
            f"{d['wall_time']:.3g} s",
            "  access   result[name], .t, .y (n_states, N), .q/.v (N, n_q/n_v), .sol(t), "
            ".t_events, .events, .available()",
        ]
        return "\n".join(lines)

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

    def to_parquet(self, path, columns=None) -> Path:
        """Write the time histories as Parquet (one float column per name, as ``to_csv``'s);
        returns the path."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        cols = list(columns or self.columns())
        path = Path(path)
        pq.write_table(pa.table({c: np.asarray(self[c], dtype=float) for c in cols}), path)
        return path

    def _contact_events(self) -> bool:
        """Whether the event log has contact events (then the files get a ``speed`` column)."""
        return any(getattr(e, "element", "") == "contact" for e in self.events)

    def _impacts(self) -> bool:
        """Whether the event log has rigid contacts' impacts (then an ``impulse`` column)."""
        return any(e.kind == "impact" for e in self.events)

    def events_to_parquet(self, path) -> Path:
        """Write the event log as Parquet: columns ``t, pair, kind, before, after`` (and with
        contacts ``speed``, m/s: a contact event's approach speed, NaN for the others; with
        rigid contacts' impacts ``impulse``, N s)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = Path(path)
        columns = {"t": [float(e.t) for e in self.events],
                   **{k: [str(getattr(e, k)) for e in self.events]
                      for k in ("pair", "kind", "before", "after")}}
        if self._contact_events():
            columns["speed"] = [float(e.speed) for e in self.events]
        if self._impacts():
            columns["impulse"] = [float(getattr(e, "impulse", math.nan)) for e in self.events]
        pq.write_table(pa.table(columns), path)
        return path

    def events_to_csv(self, path) -> Path:
        """Write the event log: columns ``t, pair, kind, before, after`` (and with contacts
        ``speed``, m/s: a contact event's approach speed, at a ``touch`` the impact speed;
        empty for the others; with rigid contacts' impacts ``impulse``, N s)."""
        path = Path(path)
        speed, impulse = self._contact_events(), self._impacts()
        with path.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["t", "pair", "kind", "before", "after"] + (["speed"] if speed else [])
                       + (["impulse"] if impulse else []))
            for e in self.events:
                row = [f"{e.t:.15g}", e.pair, e.kind, e.before, e.after]
                if speed:
                    row.append("" if math.isnan(e.speed) else f"{e.speed:.15g}")
                if impulse:
                    value = float(getattr(e, "impulse", math.nan))
                    row.append("" if math.isnan(value) else f"{value:.15g}")
                w.writerow(row)
        return path

    def summary(self) -> str:
        d = self.diagnostics
        span = f"t = {self.t[0]:g} .. {self.t[-1]:g} s" if len(self.t) else "no output"
        rtol = d.get("rtol", math.nan)
        drift = (f"max drift |Phi| {d['max_drift_position']:.3e}, |dPhi/dt| "
                 f"{d['max_drift_velocity']:.3e}" if self.__dict__.get("_phi") is not None
                 else "max drift not recorded (derived=False)")
        lines = [
            f"status {self.status}: {self.message}",
            f"{span}, {len(self.t)} outputs, method {self.method}"
            + ("" if math.isnan(rtol) else f" (rtol {rtol:g})"),
            f"events: {d['n_events']} ({d['n_mode_switches']} mode switches)",
            drift,
            f"max HLCP residual {d['max_lcp_residual']:.3e}",
            f"energy balance error {d['energy_balance_error']:.3e} J "
            f"({d['energy_balance_scaled']:.3e} of the energy scale)",
            f"{d['n_evaluations']} evaluations, {d['wall_time']:.3f} s wall time",
        ]
        return "\n".join(lines)

    def plot(self, names=None, path=None, *, x="t", title=None, format=None):
        """Plot named columns against ``x`` (one panel per name); save to ``path`` if given,
        in ``format`` (``"png"``, ``"pdf"``, ...; default: by the path's suffix).

        Without ``names``: the model's ``plot_outputs`` (else its first six output columns),
        leaving out those that are zero throughout (a line under the panels names them). A
        panel is titled by the output's ``label`` (:class:`~nonsmooth.model.Output`), if it has
        one.
        """
        hidden = []
        if not names:
            chosen = list(getattr(self.model, "plot_outputs", ()))
            candidates = chosen or [c for c in self.columns() if c != "t"]
            names = [c for c in candidates if np.any(self[c] != 0)]
            if chosen:
                hidden = [c for c in chosen if c not in names]
            else:
                names = names[:6]
            if not names:
                names, hidden = candidates[:1], []
        names = list(names)
        size = (8, 1.9 * len(names) + 0.6 + 0.3 * bool(hidden))
        if path is None:  # interactive: pyplot's current backend
            import matplotlib.pyplot as plt

            fig = plt.figure(figsize=size)
        else:  # to a file: no pyplot, no backend switch (safe inside notebooks and servers)
            from matplotlib.figure import Figure

            fig = Figure(figsize=size)
        axes = fig.subplots(len(names), 1, sharex=True, squeeze=False)
        xs = self[x]
        outputs = getattr(self.model, "outputs", None) or {}
        labels = {n: getattr(outputs.get(n), "label", "") for n in (*names, *hidden)}
        for ax, name in zip(axes[:, 0], names, strict=True):
            ax.plot(xs, self[name], lw=1.2)
            unit = self.units.get(name, "")
            ax.set_ylabel(f"{name}" + (f" [{unit}]" if unit else ""))
            if labels[name]:
                ax.set_title(labels[name], loc="left", fontsize=9)
            ax.grid(alpha=0.3)
        axes[-1, 0].set_xlabel(x + (" [s]" if x == "t" else f" [{self.units.get(x, '')}]"))
        if hidden:
            fig.text(0.01, 0.01, "zero throughout, not shown: " + ", ".join(
                f"{h} ({labels[h]})" if labels[h] else h for h in hidden),
                fontsize=8, color="0.35", wrap=True)
        fig.suptitle(title or getattr(self.model, "name", ""))
        fig.tight_layout(rect=(0, 0.3 / size[1] if hidden else 0, 1, 1))
        if path is not None:
            fig.savefig(path, dpi=120, format=format)
        return fig

    def animate(self, path, fps: float = 30.0, **options):
        """Animate a spatial result's motion to ``path`` (``.gif``, or ``.mp4`` with ffmpeg)
        at ``fps`` frames per second: :func:`nonsmooth.spatial.animation.animate` (its
        ``options``: ``speed``, ``triads``, ``trace``, the view). A result of another family
        raises :class:`~nonsmooth.errors.ModelError`. Returns the path written."""
        return self.model.system.animate(self, path, fps, **options)  # System.animate


for _name in DERIVED:
    setattr(Result, _name, _derived_field(_name))
