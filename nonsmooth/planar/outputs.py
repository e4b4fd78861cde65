"""The named outputs of a planar model's elements (``<body>.x``, ``<pair>.N``, ``<pair>.tau``,
``<driver>.torque`` ...; the table in :mod:`nonsmooth.result`): bodies from the model, frictional
pairs and drivers from the system's pair list and constraint rows, so every frictional element,
clutches included, has its outputs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["planar_outputs"]


def _angle_rows(M: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Which rows of ``M`` act on the angle columns only (and on at least one)."""
    if M.size == 0 or not angles.any():
        return np.zeros(M.shape[0], dtype=bool)
    nonzero = np.abs(M) > 1e-14 * max(1.0, float(np.abs(M).max()))
    return nonzero[:, angles].any(axis=1) & ~nonzero[:, ~angles].any(axis=1)


def planar_outputs(system, q0, v0, t0: float) -> dict:
    """The element outputs of a planar system (:meth:`PlanarSystem.element_outputs`): its
    bodies' coordinates and velocities, its pairs' loads, friction and modes, its drivers'
    forces and torques (the module docstring of :mod:`nonsmooth.result` lists them).
    Rotational pairs and drivers are told by their Jacobian rows at ``(t0, q0, v0)``."""
    out: dict[str, tuple[Callable, str, str]] = {}
    names = list(system.coordinate_names)
    bodies = getattr(getattr(system, "model", None), "bodies", None)
    if not bodies:  # generalized coordinates: no units or body names to go by
        return out
    for b in bodies:
        ix, iy = names.index(f"{b.name}.x"), names.index(f"{b.name}.y")
        out[f"{b.name}.x"] = (lambda r, i=ix: r.q[:, i], "m", "centre of mass x")
        out[f"{b.name}.y"] = (lambda r, i=iy: r.q[:, i], "m", "centre of mass y")
        if f"{b.name}.theta" in names:
            it = names.index(f"{b.name}.theta")
            out[f"{b.name}.angle"] = (lambda r, i=it: r.q[:, i], "rad", "angle")
        out[f"{b.name}.vx"] = (lambda r, i=ix: r.v[:, i], "m/s", "velocity x")
        out[f"{b.name}.vy"] = (lambda r, i=iy: r.v[:, i], "m/s", "velocity y")
        if f"{b.name}.theta" in names:
            out[f"{b.name}.w"] = (lambda r, i=it: r.v[:, i], "rad/s", "angular velocity")
    angles = np.array([nm.endswith(".theta") for nm in names], dtype=bool)
    W = G = np.zeros((0, len(names)))
    if angles.any() and q0 is not None:
        try:
            terms = system.terms(t0, np.asarray(q0, dtype=float),
                                 np.zeros(len(names)) if v0 is None else np.asarray(v0, float))
            W, G = np.asarray(terms.W), np.asarray(terms.G)
        except Exception:  # a model that cannot be evaluated there: sliding names only
            pass
    p_rows = getattr(system, "p_rows", system.n_pairs)
    rotational = _angle_rows(W, angles) if W.shape[0] == p_rows else np.zeros(p_rows, bool)
    w_row = getattr(system, "w_row", range(system.n_pairs))
    for i, pair in enumerate(system.pairs):
        out[f"{pair.name}.N"] = (lambda r, i=i: r.N[:, i], "N", "normal load")
        w = int(w_row[i])
        if pair.dim > 1:  # a vector pair (a sliding contact): the components in the plane
            out.update(_vector_outputs(pair.name, w))
            out[f"{pair.name}.mode"] = (lambda r, i=i: r.modes[:, i], "-", "0 stick, 2 slip")
            continue
        if rotational[w]:
            arm = float(np.abs(W[w, angles]).max())
            out[f"{pair.name}.tau"] = (lambda r, w=w, a=arm: a * r.F_T[:, w], "N m",
                                       "friction torque on the second body")
        else:
            out[f"{pair.name}.F_f"] = (lambda r, w=w: r.F_T[:, w], "N",
                                       "friction force on the second body along the slot")
        out[f"{pair.name}.mode"] = (lambda r, i=i: r.modes[:, i], "-",
                                    "+1 slip+, -1 slip-, 0 stick")
    kinds = list(getattr(system, "constraint_kinds", ()))
    torque = _angle_rows(G, angles) if G.shape[0] == len(kinds) else np.zeros(len(kinds), bool)
    for row, kind in enumerate(kinds):
        if kind == "driver":
            name = system.constraint_names[row]
            label, unit = ("torque", "N m") if torque[row] else ("force", "N")
            out[f"{name}.{label}"] = (lambda r, k=row: r.lam[:, k], unit, f"driving {label}")
    return out


def _vector_outputs(name: str, w: int) -> dict:
    """The outputs of a pair of dimension 2 whose rows of ``W`` start at ``w`` (x, y)."""
    return {
        f"{name}.F_x": (lambda r: r.F_T[:, w], "N", "friction force on the body, x"),
        f"{name}.F_y": (lambda r: r.F_T[:, w + 1], "N", "friction force on the body, y"),
        f"{name}.F_f": (lambda r: np.hypot(r.F_T[:, w], r.F_T[:, w + 1]), "N",
                        "magnitude of the friction force |F_T|"),
        f"{name}.v_x": (lambda r: r.v_T[:, w], "m/s", "slip velocity, x"),
        f"{name}.v_y": (lambda r: r.v_T[:, w + 1], "m/s", "slip velocity, y"),
    }
