"""Friction pairs of dimension d = 2, 3: the slip velocity is a vector (``docs/seam.md`` section 5,
``docs/method.md`` section 14 "Vector slip: the stop as a simple root").

A pair ``i`` of dimension ``d`` has the rows ``w_row[i] .. w_row[i] + d - 1`` of ``W`` (and of
``v_T``, ``F_T``, the tangential bias and the reference direction ``e_ref``); its normal load
``N_i`` is one number, as a scalar pair's. Modes of a vector Coulomb pair: ``0`` stick, ``2``
slip (a scalar pair keeps +1 / -1 / 0):

* **slip**: ``F_T = -mu_d N e`` with ``e = v_T / |v_T| * sgn(v_T . e_ref)`` (``e = e_ref`` at
  ``|v_T| = 0``): one right-hand-side column ``-W_i^T mu_d e`` of the KKT system, as a scalar
  pair's. The factor ``sgn(v_T . e_ref)`` continues the force smoothly through the stop (the
  velocity passes through zero along its arrival direction and reverses, ``e`` does not), as the
  fixed sign of a scalar mode does, so the integrator and the root finder see a smooth
  right-hand side;
* **stick**: d stick rows ``W_i dv = -(dW_i/dt) v - 2 alpha v_T,i`` whose multipliers are
  ``F_T`` (d), with the reserve ``mu_s N - |F_T| >= 0``.

Events (the run's, :class:`VectorEvents`): a slipping pair's stop is the root of
``sigma = v_T . e_ref`` (``e_ref`` the slip direction at the start of the current step, refreshed
after every accepted step), a simple root where ``|v_T|^2`` has a double one; a sticking pair's
``reserve`` is ``mu_s N - |F_T|`` crossing downward. The transition at an event
(:func:`solve_vector_transition`): stick first where static friction can hold, else slip along
the maximal-dissipation direction, ``a_T(e) = alpha e`` with ``alpha > 0`` (a secular
equation in ``alpha``, :func:`slip_direction_of`).

A Coulomb pair over a contact patch (``FrictionPair.patch``, rows ``(v_x, v_y, a omega)``)
slips with the Contensou coefficients of its slip (:func:`patch_direction`; at rest those of
``e_ref``, on the patch's limit curve); its reserve is ``mu_s N`` less the gauge of its loads
in the limit set (:func:`friction_load`), and it starts to slip along the ``e`` with ``a_T(e)
= alpha e`` for its Contensou coefficients ``c(e)`` (:func:`patch_slip_direction_of`).

The smooth laws on the vector (``FrictionLaw.state_size(d)`` states per pair): LuGre in
MotionSolve's N-dimensional form ``dz/dt = v_T - sigma0 |v_T| z / g(|v_T|)``, ``F_T = -(sigma0 z
+ sigma1 dz/dt) N - sigma2 v_T`` (d states); the regularized law ``F_T = -dry(|v_T|) N v_T /
|v_T| - viscous v_T`` with the scalar law's ``dry`` (a sine-shaped rise below ``falloff_vel``,
zero at rest); the bristle law with a bristle vector and one dwell state (d + 1 states:
:meth:`nonsmooth.friction.Bristle.vector_coefficients`).

References: Pfeiffer F., Glocker C., *Multibody Dynamics with Unilateral Contacts* (1996),
ch. 7 (spatial friction, the friction cone and its transitions); Glocker Ch., *Set-Valued Force
Laws* (2001), ch. 8 (the principle of maximal dissipation); Altair MotionSolve Reference Guide,
``Force_JointFriction`` (the LuGre bristle vector).
"""

from __future__ import annotations

import math

import numpy as np

from .errors import ModeError, ModelError

__all__ = ["slip_direction", "vector_coefficients", "vector_initial_state", "stage_friction",
           "initial_states", "solve_vector_transition", "VectorEvents", "SLIP"]

#: The mode of a slipping vector pair.
SLIP = 2.0
#: A slip speed at or below ``REST * max(1, |v|)`` (m/s) is rest: the direction is ``e_ref``
#: (the outputs' consistency tolerance: the state at a stop or a breakaway, whose ``v_T`` is
#: round-off in no particular direction, slips along the transition's direction until the slip
#: speed grows beyond it).
REST = 1e-9
#: A root of ``sigma`` is a stop when the slip speed there is at most this fraction of the
#: speed at the start of its step (or ``REST``): an adaptive step's (its error is far below
#: it), a fixed-step method's (RK4 resolves a curved arrival, whose direction turns as
#: ``1 / |v_T|``, only to O(h) in the speed: the stop is then within the step, and its
#: remaining slip speed is the method's error, which the stick rows' damping removes).
STOP_FRACTION = {False: 1e-6, True: 0.5}
#: Rounds of the vector transition (mode switches and direction fixed points).
_ROUNDS = 12
#: Sweeps over the slipping vector candidates for their directions, and their tolerance.
_SWEEPS = 8
_DIRECTION_TOL = 1e-13
#: Rounds of the map that gives a patch pair's starting slip direction.
_DIRECTION_ROUNDS = 200


def _velocity_scale(v: np.ndarray) -> float:
    return max(1.0, float(np.max(np.abs(v)))) if v.size else 1.0


def slip_direction(v_T: np.ndarray, e_ref: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """The slip direction ``e = v_T / |v_T| * sgn(v_T . e_ref)`` (d,), ``e_ref`` at rest
    (``|v_T| <= REST * scale``)."""
    speed = math.sqrt(float(v_T @ v_T))
    if speed <= REST * scale:
        return e_ref.copy()
    e = v_T / speed
    return -e if float(e @ e_ref) < 0.0 else e


def patch_direction(patch: int, v_T: np.ndarray, e_ref: np.ndarray,
                    scale: float = 1.0) -> np.ndarray:
    """The slip coefficients per unit ``mu`` (3,) of a Coulomb pair over a contact patch
    (``FrictionPair.patch``; rows ``(v_x, v_y, a omega)``): ``(f v / |v|, t sgn(a omega))``
    with the Contensou factors of ``|v| / (a |omega|)`` (:mod:`nonsmooth.contact.contensou`),
    turned as :func:`slip_direction` turns ``e``; at rest those of the direction ``e_ref``
    (``contensou_vector``: on the patch's limit curve, where the slip starts)."""
    from .contact.contensou import contensou_speeds, contensou_vector

    speed = math.sqrt(float(v_T @ v_T))
    if speed <= REST * scale:
        return np.array(contensou_vector(int(patch), float(e_ref[0]), float(e_ref[1]),
                                         float(e_ref[2])))
    s = math.hypot(float(v_T[0]), float(v_T[1]))
    f, t, _, _ = contensou_speeds(int(patch), s, abs(float(v_T[2])))
    out = np.array([f * v_T[0] / s if s > 0.0 else 0.0, f * v_T[1] / s if s > 0.0 else 0.0,
                    t * np.sign(v_T[2])])
    return -out if float(v_T @ e_ref) < 0.0 else out


def vector_coefficients(law, v_T: np.ndarray, z,
                        patch: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(a, b, dz/dt)`` (each (d,)) of ``F_T = -a N - b`` for a smooth law on the vector slip
    velocity ``v_T`` (m/s) with the law's states ``z`` (d per state of the law; LuGre: the
    bristle deflection vector, m); ``patch`` a patch pair's pressure code (the bristle law's
    Contensou coupling)."""
    d = v_T.shape[0]
    speed = math.sqrt(float(v_T @ v_T))
    e = v_T / speed if speed > 0.0 else np.zeros(d)
    if law.name == "lugre":
        if law.effect == "SLIDING":
            return law.mu_d * math.tanh(speed / law.v_s) * e, law._visc * v_T, np.zeros(d)
        z = np.asarray(z, dtype=float)
        dz = v_T - law.sigma0 * speed * z / law.g(speed)
        return law.sigma0 * z + law.sigma1 * dz, law._visc * v_T, dz
    if law.name == "regularized":
        dry = law.dry(speed) * e
        if law.normal_load:
            return dry, law.viscous * v_T, np.zeros(0)
        return np.zeros(d), dry + law.viscous * v_T, np.zeros(0)
    if law.name == "bristle":
        return law.vector_coefficients(v_T, z, patch)
    raise ModelError(f"friction law {law.name!r} has no vector form; a pair of dim > 1 takes "
                     "'coulomb', 'lugre', 'regularized' or 'bristle'")  # pragma: no cover


def vector_initial_state(law, v_T: np.ndarray, patch: int = 0) -> np.ndarray:
    """The law's states at the start of a run with slip velocity ``v_T`` (d,): LuGre's steady
    bristle deflection ``g(|v_T|) e / sigma0`` (zero at rest), the bristle law's steady
    deflection and dwell state (:meth:`~nonsmooth.friction.Bristle.vector_initial_state`;
    ``patch`` a patch pair's pressure code), none for the regularized law."""
    if not law.n_states:
        return np.zeros(0)
    if law.name == "bristle":
        return law.vector_initial_state(v_T, patch)
    speed = math.sqrt(float(v_T @ v_T))
    if speed == 0.0:
        return np.zeros(v_T.shape[0])
    return law.g(speed) * (v_T / speed) / law.sigma0


def check_laws(dyn) -> None:
    """A pair of dim > 1 takes a built-in law (``ModelError`` naming it otherwise)."""
    from .friction import Bristle, Coulomb, LuGre, Regularized

    for i, law in enumerate(dyn.laws):
        if dyn.dim[i] > 1 and type(law) not in (Coulomb, LuGre, Regularized, Bristle):
            raise ModelError(f"friction pair '{dyn.system.pairs[i].name}' (dim = "
                             f"{dyn.dim[i]}): the law {type(law).__name__} has no vector form; "
                             "use 'coulomb', 'lugre', 'regularized' or 'bristle'")
        if getattr(dyn.system.pairs[i], "patch", 0) and type(law) not in (Coulomb, Bristle):
            raise ModelError(f"friction pair '{dyn.system.pairs[i].name}': friction over a "
                             f"contact patch (patch_friction=) couples its sliding and spin "
                             f"with Coulomb's law or the bristle law; the law "
                             f"{type(law).__name__} has no such form: use 'coulomb' or "
                             "'bristle'")


def friction_load(pair, F: np.ndarray) -> float:
    """The size of a sticking pair's friction ``F`` (its rows, N) that its reserve ``mu_s N -
    size`` bounds: ``|F|``, or for a patch pair (``pair.patch``; rows ``(F_x, F_y, M / a)``)
    the gauge of the patch's limit set (``contensou.limit_gauge``: the loads over the limit
    curve ``mu N (f(eps), t(eps))`` on their ray), which a torque alone reaches at ``t(0) mu N
    a`` (2/3 of it for a uniform pressure) where ``|F|`` would wait for ``mu N a``."""
    patch = int(getattr(pair, "patch", 0) or 0)
    if patch and F.shape[-1] == 3:
        from .contact.contensou import limit_gauge

        return float(limit_gauge(patch, math.hypot(float(F[0]), float(F[1])), abs(float(F[2]))))
    return float(np.linalg.norm(F))


def _rows(dyn, i) -> slice:
    w = int(dyn.w_row[i])
    return slice(w, w + int(dyn.dim[i]))


def stage_friction(dyn, W, v, v_T, modes, z):
    """The friction part of ``Dynamics._evaluate_general`` for a system with vector pairs.

    Returns ``(stick, slip, a_rows, b_rows, cols, dz)``: the stick rows (rows of ``W``), the
    slipping or smooth pairs (pair indices: one KKT column and one load each), the coefficients
    ``F_T = -a N - b`` by row (p_rows each), the columns ``-W_i^T a_i`` (n, len(slip)) and the
    smooth laws' state rates (n_z). A scalar pair's arithmetic is that of the scalar path."""
    p = dyn.p
    scale = _velocity_scale(v)
    a_rows = np.zeros(dyn.p_rows)
    b_rows = np.zeros(dyn.p_rows)
    dz = np.empty(dyn.n_z)
    stick, slip = [], []
    for i in range(p):
        r, d, law = _rows(dyn, i), int(dyn.dim[i]), dyn.laws[i]
        if not dyn.smooth[i]:
            if modes[i] == 0.0:
                stick.extend(range(r.start, r.stop))
                continue
            if d == 1:
                a_rows[r.start] = dyn._mu[i] * modes[i]
            elif getattr(dyn.system.pairs[i], "patch", 0):  # over a patch (Contensou)
                a_rows[r] = dyn._mu[i] * patch_direction(dyn.system.pairs[i].patch, v_T[r],
                                                         dyn.e_ref[r], scale)
            else:
                a_rows[r] = dyn._mu[i] * slip_direction(v_T[r], dyn.e_ref[r], scale)
        else:
            sl = dyn.z_slices[i]
            if d == 1:
                vt = float(v_T[r.start])
                zi = z[sl] if z is not None else law.initial_state(vt)
                a_rows[r.start], b_rows[r.start] = law.coefficients(vt, zi)
                if law.n_states:
                    dz[sl] = law.state_derivative(vt, zi)
            else:
                patch = int(getattr(dyn.system.pairs[i], "patch", 0) or 0)
                zi = z[sl] if z is not None else vector_initial_state(law, v_T[r], patch)
                a_rows[r], b_rows[r], rate = vector_coefficients(law, v_T[r], zi, patch)
                if law.n_states:
                    dz[sl] = rate
        slip.append(i)
    cols = np.empty((W.shape[1], len(slip)))
    for c, i in enumerate(slip):
        r = _rows(dyn, i)
        cols[:, c] = -(W[r].T @ a_rows[r])
    return (np.array(stick, dtype=int), np.array(slip, dtype=int), a_rows, b_rows, cols, dz)


def initial_states(dyn, v_T: np.ndarray) -> np.ndarray:
    """The smooth laws' states at the start of a run (n_z,) from the slip velocities (p_rows)."""
    out = []
    for i, law in enumerate(dyn.laws):
        r = _rows(dyn, i)
        if dyn.dim[i] == 1:
            out.extend(law.initial_state(float(v_T[r.start])))
        else:
            out.extend(vector_initial_state(law, v_T[r], int(getattr(
                dyn.system.pairs[i], "patch", 0) or 0)))
    return np.array(out, dtype=float)


# ---------------------------------------------------------------------------- the transition
def solve_vector_transition(dyn, t, q, v, modes, candidates, *, options=None, z=None,
                            tol=1e-9) -> np.ndarray:
    """The modes of the ``candidates`` at an event of a system with vector pairs.

    ``docs/seam.md`` 5.4 steps 1-2, pair by pair: each candidate starts in its first preferred
    mode (``options[i][0]``; default stick: a pair at rest stays at rest while static friction
    holds it; a pair whose reserve ran out slips first). A sticking candidate is consistent when
    ``|F_T| <= mu_s N`` (a patch pair: the gauge of its limit set, :func:`friction_load`) and
    its stick rows are independent of the constraints
    (:meth:`Dynamics.can_stick`); otherwise it slips along ``-F_T / |F_T|``, the direction its
    friction was resisting. A slipping vector candidate's direction is the maximal-dissipation
    solution of ``a_T(e) = alpha e``, ``alpha > 0`` (the tangential acceleration under
    ``F_T = -mu_d N e`` along ``e``; :func:`slip_direction_of`, exact for a given normal
    force, pair by pair for several); it is
    consistent when ``a_T . e > tol max(1, |dv|)`` (a scalar one: ``s a_T > ...``; a degenerate
    ``mu_s = mu_d`` pair whose reserve ran out also at ``a_T . e = 0``, as ``simulate``'s
    ``_run_out``), otherwise it sticks. The first inconsistent candidate switches and the rest is
    evaluated again; a pair that would return to a mode it left is a ``ModeError`` naming the
    candidates. A vector candidate still slipping (its ``sigma`` root came with ``|v_T| > 0``:
    the direction turned by more than 90 degrees within a step) keeps slipping with ``e_ref``
    refreshed. Sets ``dyn.e_ref`` of the pairs that slip; returns the new modes (p,)."""
    options = options or {}
    new = np.array(modes, dtype=float)
    cands = _at_rest(dyn, t, q, v, new, candidates)
    if not cands:
        return new
    first = {i: options.get(i, (0.0,))[0] for i in cands}
    for i in cands:  # rows the constraints fix (a driven slide) cannot stick: they slip
        if first[i] == 0.0 and not dyn.can_stick(t, q, v, [i]):
            first[i] = 1.0 if dyn.dim[i] == 1 else SLIP
        new[i] = 0.0
    ev = dyn.evaluate(t, q, v, new, None, z)
    for i in cands:
        if first[i] != 0.0:
            _start_slip(dyn, new, i, ev.F_T[_rows(dyn, i)], first[i])
    left = {i: set() for i in cands}
    for _ in range(_ROUNDS * (len(cands) + 1)):
        switch = _first_inconsistent(dyn, t, q, v, new, z, cands, first, tol)
        if switch is None:
            return new
        i, was, F = switch
        if was in left[i]:
            break
        left[i].add(was)
        if was == "stick":
            _start_slip(dyn, new, i, F, 0.0)
        else:
            new[i] = 0.0
    names = [dyn.system.pairs[i].name for i in cands]
    raise ModeError(f"at t = {t:.10g} s no consistent stick/slip mode was found for the friction "
                    f"pair(s) {names} (sticking exceeds mu_s N, and slipping along the "
                    "maximal-dissipation direction does not accelerate the way it slips); the "
                    "event is degenerate: change the parameters slightly or use a smooth "
                    "friction law")


def _at_rest(dyn, t, q, v, modes, candidates) -> list[int]:
    """The Coulomb candidates to decide: a slipping vector pair whose slip speed is above
    ``REST`` and ``dyn.stop_speed`` (:data:`STOP_FRACTION` of its speed at the start of the
    step) is not at a stop: it keeps slipping, its ``e_ref`` its current direction."""
    scale = _velocity_scale(v)
    v_T = dyn.system.terms(t, q, v).W @ v
    out = []
    for i in candidates:
        if dyn.smooth[i]:
            continue
        r = _rows(dyn, i)
        speed = float(np.linalg.norm(v_T[r]))
        if dyn.dim[i] > 1 and modes[i] == SLIP and speed > max(REST * scale,
                                                                 dyn.stop_speed[i]):
            dyn.e_ref[r] = v_T[r] / speed
            continue
        out.append(i)
    return out


def _first_inconsistent(dyn, t, q, v, new, z, cands, first, tol):
    """The first candidate whose mode is inconsistent at ``new`` (the slip directions found
    first): ``(pair, "stick" or "slip", its stick force or None)``, or None."""
    degenerate = np.abs(dyn.mu_s - dyn._mu) <= 1e-12 * dyn.mu_s
    ev = _directions(dyn, t, q, v, new, z, [i for i in cands if new[i] == SLIP])
    a_T = dyn.tangential_acceleration(t, q, v, ev)
    tol_a = tol * max(1.0, float(np.max(np.abs(ev.dv), initial=0.0)))
    for i in cands:
        r = _rows(dyn, i)
        if new[i] == 0.0:
            F, N = ev.F_T[r], float(ev.N[i])
            holds = friction_load(dyn.system.pairs[i], F) <= dyn.mu_s[i] * N + 1e-9 * max(
                1.0, abs(N))
            if not (holds and dyn.can_stick(t, q, v, [i])):
                return i, "stick", F
        else:
            e = dyn.e_ref[r] if dyn.dim[i] > 1 else np.array([new[i]])
            along = float(a_T[r] @ e)
            if not (along >= -tol_a if degenerate[i] and first[i] != 0.0 else along > tol_a):
                return i, "slip", None
    return None


def _start_slip(dyn, new, i, F, sign) -> None:
    """Set pair ``i`` slipping against the friction force ``F`` (its rows) it had sticking (a
    scalar pair: ``sign`` when given, else ``-sgn(F)``)."""
    r = _rows(dyn, i)
    if dyn.dim[i] == 1:
        new[i] = sign if sign != 0.0 else (-1.0 if F[0] > 0.0 else 1.0)
        return
    norm = float(np.linalg.norm(F))
    patch = int(getattr(dyn.system.pairs[i], "patch", 0) or 0)
    if norm > 0.0 and patch:  # the slip the limit curve's point on F's ray flows along
        dyn.e_ref[r] = _patch_flow(patch, -np.asarray(F, dtype=float))
    elif norm > 0.0:
        dyn.e_ref[r] = -F / norm
    elif not np.any(dyn.e_ref[r]):
        dyn.e_ref[r] = np.eye(int(dyn.dim[i]))[0]
    new[i] = SLIP


def _patch_flow(patch: int, G: np.ndarray) -> np.ndarray:
    """The unit slip direction ``(v, a omega)`` of a patch whose friction coefficients lie on
    the ray of ``G`` (3,): ``(eps G_xy / |G_xy|, sgn G_3) / sqrt(1 + eps^2)`` with ``eps`` the
    limit curve's ratio on that ray (``contensou.limit_ratio_of_loads``; the direction whose
    Contensou coefficients are along ``G``)."""
    from .contact.contensou import limit_ratio_of_loads

    p, q = math.hypot(float(G[0]), float(G[1])), abs(float(G[2]))
    eps = limit_ratio_of_loads(patch, p, q)
    sign = 1.0 if G[2] > 0.0 else -1.0 if G[2] < 0.0 else 0.0
    if eps == math.inf:
        return np.array([G[0] / p, G[1] / p, 0.0])
    if p == 0.0:
        return np.array([0.0, 0.0, sign])
    e = np.array([eps * G[0] / p, eps * G[1] / p, sign])
    return e / float(np.linalg.norm(e))


def patch_slip_direction_of(patch: int, a0: np.ndarray, B: np.ndarray,
                            guess: np.ndarray) -> np.ndarray | None:
    """The unit ``e`` (3,) with ``a0 + B c(e) = alpha e``, ``alpha > 0``, for a patch pair
    (``c(e)`` its Contensou coefficients, ``contensou.contensou_vector``; ``B``'s columns the
    accelerations' change per unit coefficient), or None: the direction in which a patch
    starts to slip from rest (its friction on the limit curve at the point whose slip is
    ``e``; the projection of the sticking force onto the limit set in the Delassus metric,
    unique). By the map ``e <- (a0 + B c(e)) / |a0 + B c(e)|`` from ``guess``, then Powell's
    hybrid method on ``(phi, psi, alpha)`` (``e = (sin psi cos phi, sin psi sin phi, +-cos
    psi)``) where the map does not settle; accepted at a residual of 1e-12 of ``|a0|``."""
    from scipy.optimize import root

    from .contact.contensou import contensou_vector

    def c_of(e):
        return np.array(contensou_vector(patch, float(e[0]), float(e[1]), float(e[2])))

    scale = max(float(np.linalg.norm(a0)), 1e-300)

    def solved(e):
        a = a0 + B @ c_of(e)
        alpha = float(a @ e)
        return alpha > 0.0 and float(np.linalg.norm(a - alpha * e)) <= 1e-12 * scale

    e = guess / float(np.linalg.norm(guess))
    for _ in range(_DIRECTION_ROUNDS):
        a = a0 + B @ c_of(e)
        norm = float(np.linalg.norm(a))
        if norm == 0.0:
            break
        step = a / norm
        settled = float(np.max(np.abs(step - e))) <= 1e-15
        e = step
        if settled:
            break
    if solved(e):
        return e
    for sign in (1.0 if e[2] >= 0.0 else -1.0, -1.0 if e[2] >= 0.0 else 1.0):
        def residual(x, sign=sign):
            phi, psi, alpha = x
            d = np.array([math.sin(psi) * math.cos(phi), math.sin(psi) * math.sin(phi),
                          sign * math.cos(psi)])
            return (a0 + B @ c_of(d) - alpha * d) / scale

        x0 = np.array([math.atan2(e[1], e[0]), math.acos(min(1.0, abs(float(e[2])))),
                       max(float(np.linalg.norm(a0 + B @ c_of(e))), 1e-12 * scale)])
        out = root(residual, x0, method="hybr", options={"xtol": 1e-15})
        phi, psi, _ = out.x
        d = np.array([math.sin(psi) * math.cos(phi), math.sin(psi) * math.sin(phi),
                      sign * math.cos(psi)])
        if solved(d):
            return d
    return None


def _directions(dyn, t, q, v, modes, z, slipping):
    """The evaluation at ``modes`` with each slipping vector candidate's direction ``e`` the
    maximal-dissipation solution of ``a_T(e) = alpha e``, ``alpha > 0`` (``dyn.e_ref``
    updated; :func:`slip_direction_of`), pair by pair with the others fixed (block
    Gauss-Seidel, at most :data:`_SWEEPS` sweeps)."""
    vec = [i for i in slipping if dyn.dim[i] > 1]
    for _ in range(_SWEEPS if vec else 0):
        change = 0.0
        for i in vec:
            r = _rows(dyn, i)
            a0, B = _linearization(dyn, t, q, v, modes, z, i)
            patch = int(getattr(dyn.system.pairs[i], "patch", 0) or 0)
            if patch:  # the Contensou coefficients of e: B per unit coefficient
                from .contact.contensou import contensou_speeds

                B[:, 2] /= contensou_speeds(patch, 0.0, 1.0)[1]  # (e = u_3: c = (0, 0, t0))
                e = patch_slip_direction_of(patch, a0, B, dyn.e_ref[r])
            else:
                e = slip_direction_of(a0, B)
            if e is None:
                continue  # no slip along any direction (the caller decides: stick)
            change = max(change, float(np.max(np.abs(e - dyn.e_ref[r]))))
            dyn.e_ref[r] = e
        if change <= _DIRECTION_TOL:
            break
    return dyn.evaluate(t, q, v, modes, None, z)


def _linearization(dyn, t, q, v, modes, z, i):
    """``a_T,i(e) = a0 + B e`` (d, and d x d) of pair ``i`` slipping along a unit ``e`` (the
    other pairs fixed), from ``d + 1`` evaluations at ``e = +-u_1``, ``u_2 .. u_d``: exact when
    the pair's normal load does not depend on its friction (a given normal force), the
    linearization at the current faces otherwise (the sweeps iterate)."""
    r = _rows(dyn, i)
    d = int(dyn.dim[i])
    saved = dyn.e_ref[r].copy()
    cols = []
    for j, sign in [(0, -1.0)] + [(j, 1.0) for j in range(d)]:
        dyn.e_ref[r] = sign * np.eye(d)[j]
        ev = dyn.evaluate(t, q, v, modes, None, z)
        cols.append(dyn.tangential_acceleration(t, q, v, ev)[r])
    dyn.e_ref[r] = saved
    a0 = 0.5 * (cols[0] + cols[1])
    B = np.column_stack([c - a0 for c in cols[1:]])
    return a0, B


def slip_direction_of(a0: np.ndarray, B: np.ndarray) -> np.ndarray | None:
    """The unit ``e`` (d,) with ``a0 + B e = alpha e`` and ``alpha > 0``, or None.

    ``e = (alpha I - B)^-1 a0`` with ``alpha`` the root of the secular equation
    ``||(alpha I - B)^-1 a0|| = 1`` (Brent on ``(0, |a0| + ||B||]``). For Coulomb friction
    ``B = -mu N D`` with the pair's Delassus block ``D`` (symmetric positive definite): the
    norm falls monotonically from ``|F_stick| / (mu N)`` at ``alpha = 0`` to 0, so the root
    exists, and is unique, exactly when the stick force exceeds ``mu N`` (the trust-region
    subproblem's secular equation; More & Sorensen, SIAM J. Sci. Stat. Comput. 4 (1983))."""
    from scipy.optimize import brentq

    d = a0.shape[0]
    eye = np.eye(d)

    def phi(alpha):
        try:
            return float(np.linalg.norm(np.linalg.solve(alpha * eye - B, a0))) - 1.0
        except np.linalg.LinAlgError:
            return math.inf

    hi = float(np.linalg.norm(a0)) + float(np.linalg.norm(B, 2)) + 1e-300
    lo = 1e-14 * hi
    if not phi(lo) > 0.0 or not phi(hi) <= 0.0:
        return None
    alpha = brentq(phi, lo, hi, xtol=1e-15 * hi, rtol=4 * np.finfo(float).eps)
    e = np.linalg.solve(alpha * eye - B, a0)
    return e / float(np.linalg.norm(e))


# ---------------------------------------------------------------------------- the run's events
class VectorEvents:
    """The friction events of a run whose system has pairs of dim > 1 (scalar pairs included,
    through their rows): the event functions, their values, the per-step refresh of ``e_ref``,
    the outputs' consistency check and the initial modes. ``run``: the ``simulate._Run``."""

    def __init__(self, run):
        self.run = run
        self.dyn = dyn = run.dyn
        self.rows = [_rows(dyn, i) for i in range(dyn.p)]

    def _vector(self, i) -> bool:
        return self.dyn.dim[i] > 1

    def initial_modes(self, t, y) -> np.ndarray:
        """Slipping pairs take their direction (``e_ref``), pairs at rest the transition's
        modes."""
        run, dyn = self.run, self.dyn
        L = run.layout
        q, v = y[L.q], y[L.v]
        modes = np.ones(dyn.p)
        v_T = dyn.system.terms(t, q, v).W @ v
        scale = _velocity_scale(v)
        zero = []
        for i in range(dyn.p):
            r = self.rows[i]
            speed = float(np.linalg.norm(v_T[r]))
            if speed > 1e-12 * scale or i not in run.friction_pairs:
                if self._vector(i):
                    modes[i] = SLIP if i in run.friction_pairs else 1.0
                    dyn.e_ref[r] = v_T[r] / speed if speed > 0 else np.eye(dyn.dim[i])[0]
                    dyn.stop_speed[i] = STOP_FRACTION[False] * speed
                else:
                    modes[i] = 1.0 if v_T[r.start] >= 0 else -1.0
            else:
                zero.append(i)
        if zero:
            modes = dyn.transition(t, q, v, modes, zero, z=y[L.z])
        return modes

    def event_specs(self, modes) -> list[tuple]:
        """Friction events: a scalar pair's as ``simulate``'s; a vector pair's ``velocity``
        (``sigma = v_T . e_ref`` falling through zero) or ``reserve`` (``mu_s N - |F_T|``
        falling through zero)."""
        specs = []
        for i in self.run.friction_pairs:
            if self._vector(i):
                specs.append(("reserve" if modes[i] == 0.0 else "velocity", i, -1.0, True))
            elif modes[i] == 0.0:
                specs += [("reserve+", i, -1.0, True), ("reserve-", i, -1.0, True)]
            else:
                specs.append(("velocity", i, -modes[i], True))
        return specs

    def g_value(self, kind, i, ev) -> float:
        r = self.rows[i]
        if kind == "velocity":
            if self._vector(i):
                return float(ev.v_T[r] @ self.dyn.e_ref[r])
            return float(ev.v_T[r.start])
        if kind == "reserve":
            return float(self.dyn.mu_s[i] * ev.N[i] - friction_load(self.dyn.system.pairs[i],
                                                                      ev.F_T[r]))
        F = float(ev.F_T[r.start])
        return float(self.dyn.mu_s[i] * ev.N[i] + (F if kind == "reserve+" else -F))

    def refresh(self, specs, ev, modes, g, fixed=False) -> list:
        """After an accepted step: each slipping vector pair's ``e_ref`` becomes its slip
        direction at the step end (the right-hand side does not change: ``sigma > 0`` there),
        its event value ``sigma`` there ``|v_T|``, and the speed below which a root of it is
        a stop :data:`STOP_FRACTION` of it (``fixed``: a fixed-step method's). Returns the
        event values."""
        g = list(g)
        for j, spec in enumerate(specs):
            if spec[0] == "velocity" and self._vector(spec[1]):
                r = self.rows[spec[1]]
                vt = np.asarray(ev.v_T[r], dtype=float)
                speed = float(np.linalg.norm(vt))
                if speed > 0.0 and g[j] > 0.0:
                    self.dyn.e_ref[r] = vt / speed
                    self.dyn.stop_speed[spec[1]] = STOP_FRACTION[fixed] * speed
                    g[j] = speed
        return g

    def inconsistent_rows(self, N, F_T, v_T, modes, v_tol, f_tol) -> np.ndarray:
        """:meth:`inconsistent` for a block of evaluated outputs (one per row: ``N`` (k, p),
        ``F_T``, ``v_T`` (k, p_rows), ``v_tol``, ``f_tol`` (k,)): a bool per row."""
        bad = np.zeros(N.shape[0], dtype=bool)
        for i in self.run.watched_pairs():
            r = self.rows[i]
            reserve = self.dyn.mu_s[i] * N[:, i]
            if self._vector(i):
                if modes[i] == 0.0:
                    pair = self.dyn.system.pairs[i]
                    load = np.array([friction_load(pair, F) for F in F_T[:, r]]) if getattr(
                        pair, "patch", 0) else np.linalg.norm(F_T[:, r], axis=1)
                    bad |= reserve - load < -f_tol
                else:
                    bad |= v_T[:, r] @ self.dyn.e_ref[r] < -v_tol
            elif modes[i] == 0.0:
                F = F_T[:, r.start]
                bad |= (reserve + F < -f_tol) | (reserve - F < -f_tol)
            else:
                bad |= modes[i] * v_T[:, r.start] < -v_tol
        return bad

    def inconsistent(self, ev, modes, v_tol, f_tol) -> bool:
        """An output that contradicts the modes: a scalar pair as ``simulate``'s check, a
        sticking vector pair beyond ``mu_s N``, a slipping one with ``sigma < 0``."""
        for i in self.run.watched_pairs():
            r = self.rows[i]
            if self._vector(i):
                if modes[i] == 0.0:
                    if self.dyn.mu_s[i] * ev.N[i] - friction_load(self.dyn.system.pairs[i],
                                                                  ev.F_T[r]) < -f_tol:
                        return True
                elif float(ev.v_T[r] @ self.dyn.e_ref[r]) < -v_tol:
                    return True
            elif modes[i] == 0.0:
                N, F = self.dyn.mu_s[i] * ev.N[i], ev.F_T[r.start]
                if N + F < -f_tol or N - F < -f_tol:
                    return True
            elif modes[i] * ev.v_T[r.start] < -v_tol:
                return True
        return False
