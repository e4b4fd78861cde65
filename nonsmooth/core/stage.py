"""The acceleration stage in compiled code: from a system's terms to its accelerations, loads
and friction forces, for any model family (it knows no element kind and no space dimension).

Given the terms ``M (n, n), f (n,), phi, phi_t, gamma (m,), G (m, n), W (p, n)``, the tangential
bias ``(dW/dt) v`` (p,) and the powers, one evaluation solves

* the KKT system of the first-kind Lagrange equations with Baumgarte stabilization
  (``G dv = gamma - 2 alpha dphi - beta^2 phi``) and one stick row per sticking Coulomb pair,
  with ``1 + p_slip`` right-hand sides (the friction forces' unit responses: ``_kkt``);
* the normal loads' equation ``lambda_abs = c + A diag(faces) lambda_abs`` of the load rows
  (the face-fixed continuation of the HLCP ``lambda = c + A |lambda|``), certified unique by a
  norm bound (``_certify_bound``) or the spectral radius (``_certify``), with a revolute pin's
  radial load by a fixed point (``_radial_loads``) certified a contraction (``_certify_radial``);
* the smooth laws' coefficients and state rates (LuGre, regularized: ``_smooth_law``; the
  bristle law with dwell time, on a slip of any dimension: ``_bristle_law``);
* the outputs into one buffer (``evaluation_layout``) and the powers of the energy balance.

:func:`acceleration_stage` is the allocating entry point (LAPACK where needed, any size);
:func:`_stage_into` the runtime-free one (numba ``_nrt=False``) in a workspace made once per
phase (:func:`stage_workspace`), which returns ``GENERAL`` where it would need LAPACK. A family
calls them after its own terms (the planar kernels, a generated module). The method:
``docs/method.md``; the stage constants (``plan``): ``Dynamics._compile_plan``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import prebuilt
from ..contact.contensou import contensou_speeds, contensou_vector, patch_factors
from . import layout
from .layout import (
    H_2ALPHA,
    H_BETA2,
    H_JAM,
    H_K,
    H_M,
    H_N,
    H_NZ,
    H_P,
    H_RADIAL,
    H_STATE_MASS,
    N_HEADER,  # noqa: F401 - re-exported for the kernels
    N_LAW,
    N_WORK,
    PATCH_SLOT,
    evaluation_layout,  # noqa: F401 - the buffer's layout, re-exported for the kernels
)
from .linalg import (
    RANK_TOL,
    _block_schur,
    _dot,
    _is_block3,
    _is_diagonal,
    _lu_solve,
    _rows_independent,
    _schur_size,
    _schur_solve,
    _touching_size,
)

prebuilt.prepare()  # before any kernel is called: the shipped cache, the notice

#: Status codes of an evaluation (``kernels.planar_evaluate``, :func:`acceleration_stage`).
OK, SINGULAR, JAMMED, COINCIDENT, UNCERTIFIED, NONFINITE, NO_LOAD = 0, 1, 2, 3, 4, 5, 6
#: Internal status of the runtime-free evaluation (:func:`_stage_into`): the evaluation needs
#: the general path (LAPACK: a large system, or a load equation certified by its eigenvalues).
GENERAL = 7

#: KKT systems up to this size are solved by :func:`~nonsmooth.core.linalg._lu_solve` (no
#: LAPACK call overhead); larger ones by LAPACK (``np.linalg.solve``).
SMALL_LU = 32

#: Friction-law kinds of the plan (each pair's ``N_LAW`` parameters follow: ``core.layout``).
COULOMB, LUGRE, REGULARIZED, BRISTLE = 0, 1, 2, 3
#: Fixed-point iterations of a revolute pin's radial load, and their tolerance.
LOAD_ITERATIONS = 100
#: Rounds of the accelerated load iteration after :data:`LOAD_ITERATIONS` plain ones (a map
#: certified a contraction whose rate is close to 1: :func:`_load_iteration`), three map
#: evaluations each.
LOAD_ROUNDS = 1000

#: The layouts' offsets (``core.layout``, their one owner) compiled into the kernels: plain
#: integer arithmetic, inlined and runtime-free (``tests/core/test_layout.py``).
eval_offsets = njit(inline="always", _nrt=False)(layout.eval_offsets)


plan_offsets = njit(inline="always", _nrt=False)(layout.plan_offsets)
vector_offsets = njit(inline="always", _nrt=False)(layout.vector_offsets)


plan_rows = njit(inline="always", _nrt=False)(layout.plan_rows)


@njit(inline="always", _nrt=False)
def event_offsets(plan):
    """Where an evaluation's ``F_T``, ``v_T``, ``N`` and ``lambda_abs`` start in its buffer
    (the engine's event functions read them: ``core.events.event_value``)."""
    offsets = eval_offsets(int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), 0, 0, False,
                           plan_rows(plan))
    return offsets[O_FT], offsets[O_VT], offsets[O_N], offsets[O_ABS]
state_offsets = njit(inline="always", _nrt=False)(layout.state_offsets)
#: Positions in the tuples of ``eval_offsets`` and ``plan_offsets`` (their fields' names).
O_FT, O_VT, O_N, O_ABS, O_POW, O_A, O_DZ = (
    layout.EVAL_FIELDS.index(name) for name in ("F_T", "v_T", "N", "lam_abs", "powers", "A", "dz"))
P_LAW = [name for name, _ in layout.PLAN_BLOCKS].index("law")


@njit(cache=True, _nrt=False)
def _smooth_law(kind, par, v_T, z):
    """Coefficients ``(a, b)`` of ``F_T = -a N - b`` and the state rate ``dz/dt`` of a smooth
    law (``friction/lugre.py``, ``friction/regularized.py``; ``par``: see ``Dynamics``' plan)."""
    if kind == LUGRE:
        lo, gap, v_s, sigma0, sigma1, visc, effect, mu_d = (par[0], par[1], par[2], par[3],
                                                            par[4], par[5], par[6], par[7])
        if effect == 2.0:  # SLIDING: no bristles
            return mu_d * math.tanh(v_T / v_s), visc * v_T, 0.0
        r = v_T / v_s
        g = lo + gap * math.exp(-r * r)
        dz = v_T - sigma0 * abs(v_T) * z / g
        return sigma0 * z + sigma1 * dz, visc * v_T, dz
    coulomb, extra, falloff, stribeck, viscous, normal_load = (par[0], par[1], par[2], par[3],
                                                                par[4], par[5])
    speed = abs(v_T)
    peak = coulomb + extra
    if speed <= falloff:
        dry = peak * math.sin(0.5 * math.pi * speed / falloff)
    elif stribeck > 0:
        r = (speed - falloff) / stribeck
        dry = coulomb + extra * math.exp(-r * r)
    else:
        dry = coulomb
    d = math.copysign(dry, v_T)
    if normal_load != 0.0:
        return d, viscous * v_T, 0.0
    return 0.0, d + viscous * v_T, 0.0


#: A vector pair's slip speed at or below ``REST * max(1, |v|)`` (m/s) is rest: its slip
#: direction is ``e_ref`` (``vector_friction.REST``).
REST = 1e-9


@njit(cache=True, _nrt=False, inline="always")
def _regularized_dry(par, speed):
    """The regularized law's dry part at the slip speed ``speed`` >= 0 (N/N or N: the
    ``dry`` of :func:`_smooth_law`)."""
    coulomb, extra, falloff, stribeck = par[0], par[1], par[2], par[3]
    if speed <= falloff:
        return (coulomb + extra) * math.sin(0.5 * math.pi * speed / falloff)
    if stribeck > 0:
        r = (speed - falloff) / stribeck
        return coulomb + extra * math.exp(-r * r)
    return coulomb


@njit(cache=True, _nrt=False, inline="always")
def _bristle_law(par, v_T, z, z_at, a, b, dz, patch=True):
    """The bristle law with dwell-time stiction (``friction/bristle.py``) on a pair's slip
    velocity ``v_T`` (d,; d = 1 for a scalar pair): ``F_T = -a N - b`` into ``a, b`` (d,), the
    rates of the bristle vector ``z[z_at:z_at + d]`` (m) and of the dwell state ``w =
    z[z_at + d]`` into ``dz`` (the same positions)::

        beta  = exp(-(|v| / v_s)^2),   mu_st = mu_d + (mu_s - mu_d) w
        dz/dt = v - sigma0 |v| z / mu_st,   dw/dt = (beta - w) / tau_dw
        a     = beta (sigma0 z + sigma1 dz/dt) + (1 - beta) mu_d v / max(|v|, eps)
        b     = (1 - beta) mu_v v

    ``par``: ``mu_s, mu_d, mu_v, v_s, sigma0, sigma1, tau_dw, eps`` (``Bristle.pack``), and
    in its :data:`PATCH_SLOT` a patch pair's pressure code (rows ``(v_x, v_y, a omega)``: a
    sliding and a spinning bristle): each row ``r`` then has the factor ``k_r`` of the
    Contensou coefficients ``c = k v / |v|`` of the slip's direction (``contensou.
    patch_factors``)
    in its bristle's rate, ``dz_r/dt = v_r - sigma0 |v| z_r / (k_r mu_st)``, and in its
    sliding part, ``(1 - beta) mu_d k_r v_r / max(|v|, eps)``: steady sliding gives Contensou's
    coupled force and torque ``mu N c``, not a circle's. ``patch`` None: a scalar pair's
    caller, whose ``d`` is 1 (the patch's code is not compiled: numba prunes it)."""
    mu_s, mu_d, mu_v, v_s, sigma0, sigma1, tau_dw, eps = (par[0], par[1], par[2], par[3],
                                                          par[4], par[5], par[6], par[7])
    d = v_T.shape[0]
    acc = 0.0
    for r in range(d):
        acc += v_T[r] * v_T[r]
    speed = math.sqrt(acc)
    x = speed / v_s
    beta = math.exp(-x * x)
    slide = -math.expm1(-x * x)  # 1 - beta, accurate at small slip
    w = z[z_at + d]
    mu_st = mu_d + (mu_s - mu_d) * w
    unit = mu_d / max(speed, eps)
    k_xy, k_spin = 1.0, 1.0
    if patch is not None and d == 3 and par[PATCH_SLOT] > 0.0:
        k_xy, k_spin = patch_factors(int(par[PATCH_SLOT]), v_T[0], v_T[1], v_T[2])
    for r in range(d):
        k = k_spin if r == 2 else k_xy
        rate = v_T[r] - sigma0 * speed * z[z_at + r] / (k * mu_st)
        a[r] = beta * (sigma0 * z[z_at + r] + sigma1 * rate) + slide * unit * k * v_T[r]
        b[r] = slide * mu_v * v_T[r]
        dz[z_at + r] = rate
    dz[z_at + d] = (beta - w) / tau_dw


@njit(cache=True, _nrt=False, inline="always")
def _vector_law(kind, par, v_T, z, z_at, a, b, dz):
    """A smooth law on a pair's slip velocity vector ``v_T`` (d,): ``F_T = -a N - b`` into ``a,
    b`` (d,) and the bristle vector's rate into ``dz[z_at:z_at + d]`` (``z_at`` -1: no states;
    ``vector_friction.vector_coefficients``). LuGre in MotionSolve's N-dimensional form
    ``dz/dt = v_T - sigma0 |v_T| z / g(|v_T|)``, ``a = sigma0 z + sigma1 dz/dt``, ``b =
    sigma2 v_T``; regularized ``dry(|v_T|) e`` with ``e = v_T / |v_T|`` (0 at rest); the
    bristle law :func:`_bristle_law` (d + 1 states: the bristle vector, then the dwell
    state)."""
    if kind == BRISTLE:
        _bristle_law(par, v_T, z, z_at, a, b, dz)
        return
    d = v_T.shape[0]
    acc = 0.0
    for r in range(d):
        acc += v_T[r] * v_T[r]
    speed = math.sqrt(acc)
    if kind == LUGRE:
        lo, gap, v_s, sigma0, sigma1, visc, effect, mu_d = (par[0], par[1], par[2], par[3],
                                                            par[4], par[5], par[6], par[7])
        if effect == 2.0:  # SLIDING: no bristles
            mag = mu_d * math.tanh(speed / v_s)
            for r in range(d):
                a[r] = mag * (v_T[r] / speed if speed > 0.0 else 0.0)
                b[r] = visc * v_T[r]
                if z_at >= 0:
                    dz[z_at + r] = 0.0
            return
        q = speed / v_s
        g = lo + gap * math.exp(-q * q)
        for r in range(d):
            rate = v_T[r] - sigma0 * speed * z[z_at + r] / g
            a[r] = sigma0 * z[z_at + r] + sigma1 * rate
            b[r] = visc * v_T[r]
            dz[z_at + r] = rate
        return
    dry = _regularized_dry(par, speed)
    viscous, normal_load = par[4], par[5]
    for r in range(d):
        e = v_T[r] / speed if speed > 0.0 else 0.0
        if normal_load != 0.0:
            a[r] = dry * e
            b[r] = viscous * v_T[r]
        else:
            a[r] = 0.0
            b[r] = dry * e + viscous * v_T[r]


@njit(cache=True, _nrt=False, inline="always")
def _slip_direction(mu, v_T, e_ref, scale, a):
    """``a = mu e`` (d,) of a slipping vector Coulomb pair: ``e = v_T / |v_T| sgn(e . e_ref)``,
    or ``e_ref`` at rest (``|v_T| <= REST scale``; ``vector_friction.slip_direction``)."""
    d = v_T.shape[0]
    acc = 0.0
    for r in range(d):
        acc += v_T[r] * v_T[r]
    speed = math.sqrt(acc)
    if speed <= REST * scale:
        for r in range(d):
            a[r] = mu * e_ref[r]
        return
    along = 0.0
    for r in range(d):
        along += (v_T[r] / speed) * e_ref[r]
    for r in range(d):
        e = v_T[r] / speed
        a[r] = mu * (-e if along < 0.0 else e)


@njit(cache=True, _nrt=False, inline="always")
def _patch_direction(mu, patch, v_T, e_ref, scale, a):
    """``a`` (3,) of a slipping Coulomb pair over a contact patch (``FrictionPair.patch``:
    rows ``v_T = (v_x, v_y, a_p omega)``): ``mu (f v / |v|, t sgn(a_p omega))`` with the
    Contensou factors ``f, t`` of the ratio ``|v| / (a_p |omega|)``
    (``contact.contensou.contensou_speeds``, pressure ``patch``: 1 uniform, 2 Hertzian, 3 a
    thin ring), the sign turned as :func:`_slip_direction` turns it against ``e_ref``; at rest
    ``mu`` times the coefficients of the direction ``e_ref`` (``contensou_vector``: on the
    patch's limit curve, where its slip starts)."""
    speed = math.sqrt(v_T[0] * v_T[0] + v_T[1] * v_T[1] + v_T[2] * v_T[2])
    if speed <= REST * scale:
        c0, c1, c2 = contensou_vector(int(patch), e_ref[0], e_ref[1], e_ref[2])
        a[0], a[1], a[2] = mu * c0, mu * c1, mu * c2
        return
    along = (v_T[0] * e_ref[0] + v_T[1] * e_ref[1] + v_T[2] * e_ref[2]) / speed
    s = math.sqrt(v_T[0] * v_T[0] + v_T[1] * v_T[1])
    f, t, _, _ = contensou_speeds(int(patch), s, abs(v_T[2]))
    sign = -mu if along < 0.0 else mu
    a[0] = sign * f * v_T[0] / s if s > 0.0 else 0.0
    a[1] = sign * f * v_T[1] / s if s > 0.0 else 0.0
    a[2] = sign * t * (1.0 if v_T[2] > 0.0 else -1.0 if v_T[2] < 0.0 else 0.0)


@njit(cache=True, _nrt=False, inline="always")
def _vector_friction_laws(plan, mu, law, law_par, z_at, modes, v, v_T, z, a_all, b_all, dz,
                          slip, stick):
    """:func:`_friction_laws` of a plan with vector pairs (``docs/seam.md`` 5.2): the
    coefficients by row of ``W`` (``a_all, b_all``, p_rows; zeroed by the caller), the
    slipping (or smooth) pairs into ``slip`` and the sticking pairs' rows into ``stick``. A
    slipping vector Coulomb pair's ``a = mu e``, ``e = v_T / |v_T| sgn(e . e_ref)`` (``e_ref``
    at rest: ``|v_T| <= REST max(1, |v|)``; ``vector_friction.slip_direction``)."""
    p, k, m = mu.shape[0], int(plan[H_K]), int(plan[H_M])
    p_rows = v_T.shape[0]
    o = vector_offsets(p, k, m, p_rows)
    dim, w_row, e_ref = plan[o[1]:o[2]], plan[o[2]:o[3]], plan[o[3]:o[4]]
    scale = 1.0
    for b in range(v.shape[0]):
        scale = max(scale, abs(v[b]))
    a, s = 0, 0
    for i in range(p):
        d, w = int(dim[i]), int(w_row[i])
        if law[i] == COULOMB:
            if modes[i] == 0.0:
                for r in range(d):
                    stick[s] = w + r
                    s += 1
                continue
            if d == 1:
                a_all[w] = mu[i] * modes[i]
            elif d == 3 and law_par[i * N_LAW + PATCH_SLOT] > 0.0:  # over a patch
                _patch_direction(mu[i], law_par[i * N_LAW + PATCH_SLOT], v_T[w:w + d],
                                 e_ref[w:w + d], scale, a_all[w:w + d])  # (Contensou)
            else:
                _slip_direction(mu[i], v_T[w:w + d], e_ref[w:w + d], scale, a_all[w:w + d])
        else:
            par = law_par[i * N_LAW:(i + 1) * N_LAW]
            if law[i] == BRISTLE:  # two states on a scalar pair: its vector form at d = 1
                _bristle_law(par, v_T[w:w + d], z, int(z_at[i]), a_all[w:w + d],
                             b_all[w:w + d], dz)
            elif d == 1:
                zi = z[int(z_at[i])] if z_at[i] >= 0 else 0.0
                a_all[w], b_all[w], rate = _smooth_law(int(law[i]), par, v_T[w], zi)
                if z_at[i] >= 0:
                    dz[int(z_at[i])] = rate
            else:
                _vector_law(int(law[i]), par, v_T[w:w + d], z, int(z_at[i]), a_all[w:w + d],
                            b_all[w:w + d], dz)
        slip[a] = i
        a += 1


@njit(cache=True, _nrt=False, inline="always")
def _vector_columns(plan, W, a_all, slip, R):
    """The slipping pairs' right-hand-side columns ``-W_i^T a_i`` over each pair's rows (a
    plan with vector pairs: they replace :func:`_kkt`'s one-row columns)."""
    p, k, m, n = int(plan[H_P]), int(plan[H_K]), int(plan[H_M]), W.shape[1]
    o = vector_offsets(p, k, m, W.shape[0])
    for c_ in range(slip.shape[0]):
        i = slip[c_]
        d, w = int(plan[o[1] + i]), int(plan[o[2] + i])
        for b in range(n):
            acc = 0.0
            for r in range(d):
                acc += W[w + r, b] * a_all[w + r]
            R[b, 1 + c_] = -acc


@njit(cache=True, _nrt=False, inline="always")
def _vector_forces(plan, a_all, b_all, N_slip, slip, F_T):
    """The slipping pairs' ``F_T = -a N - b`` over each pair's rows (a plan with vector
    pairs: they replace :func:`_contact_forces`' one-row values)."""
    p, k, m = int(plan[H_P]), int(plan[H_K]), int(plan[H_M])
    o = vector_offsets(p, k, m, F_T.shape[0])
    for s_ in range(slip.shape[0]):
        i = slip[s_]
        d, w = int(plan[o[1] + i]), int(plan[o[2] + i])
        for r in range(d):
            F_T[w + r] = -a_all[w + r] * N_slip[s_] - b_all[w + r]




@njit(cache=True, _nrt=False, inline="always")
def _plan_parts(plan):
    """The header sizes and the block views of a plan (``core.layout.plan_offsets``)."""
    n, m, p, k = int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K])
    (o_mu, o_preload, o_law, o_lawpar, o_zat, o_rad, o_abs, o_normal, o_driver,
     size) = plan_offsets(p, k, m)
    return (n, m, p, k, plan[o_mu:o_preload], plan[o_preload:o_law], plan[o_law:o_lawpar],
            plan[o_lawpar:o_zat], plan[o_zat:o_rad], plan[o_rad:o_abs], plan[o_abs:o_normal],
            plan[o_normal:o_driver], plan[o_driver:size])


@njit(cache=True, _nrt=False, inline="always")
def _kinematics(G, v, phi_t, W, Gv, dphi, v_T):
    """``G v``, ``dphi = G v + phi_t`` and ``v_T = W v`` into the given arrays."""
    for r in range(G.shape[0]):
        acc = 0.0
        for b in range(G.shape[1]):
            acc += G[r, b] * v[b]
        Gv[r] = acc
        dphi[r] = acc + phi_t[r]
    for i in range(W.shape[0]):
        acc = 0.0
        for b in range(W.shape[1]):
            acc += W[i, b] * v[b]
        v_T[i] = acc


@njit(cache=True, _nrt=False, inline="always")
def _friction_laws(mu, law, law_par, z_at, modes, v_T, z, a_all, b_all, dz, slip, stick):
    """Each pair's coefficients ``F_T = -a N - b`` (Coulomb: ``a = mu s``; smooth laws:
    :func:`_smooth_law`, the bristle law :func:`_bristle_law`) into ``a_all, b_all`` (zeroed
    by the caller), the smooth laws' state rates into ``dz``, and the slipping (or smooth) and
    sticking pairs into ``slip, stick`` (sized by the caller: :func:`_count_sticking`)."""
    p = mu.shape[0]
    a, b = 0, 0
    for i in range(p):
        if law[i] == COULOMB:
            a_all[i] = mu[i] * modes[i]
            if modes[i] == 0.0:
                stick[b] = i
                b += 1
                continue
        elif law[i] == BRISTLE:  # two states (z, w): its vector form at d = 1
            _bristle_law(law_par[i * N_LAW:(i + 1) * N_LAW], v_T[i:i + 1], z, int(z_at[i]),
                         a_all[i:i + 1], b_all[i:i + 1], dz, None)
        else:
            zi = z[int(z_at[i])] if z_at[i] >= 0 else 0.0
            a_all[i], b_all[i], rate = _smooth_law(int(law[i]),
                                                   law_par[i * N_LAW:(i + 1) * N_LAW], v_T[i], zi)
            if z_at[i] >= 0:
                dz[int(z_at[i])] = rate
        slip[a] = i
        a += 1


@njit(cache=True, _nrt=False, inline="always")
def _count_sticking(plan, modes):
    """The number of sticking Coulomb pairs (the laws' kinds from the plan)."""
    p = int(plan[H_P])
    o_law = plan_offsets(p, 0, 0)[P_LAW]
    nk = np.int64(0)  # (not the literal 0: numba would also compile its callees for it)
    for i in range(p):
        if plan[o_law + i] == COULOMB and modes[i] == 0.0:
            nk += 1
    return nk


@njit(cache=True, _nrt=False, inline="always")
def _stick_counts(plan, modes, p_rows):
    """``(nk, ns)``: the stick rows (each sticking Coulomb pair's ``dim`` rows) and the
    slipping or smooth pairs (one KKT column each); ``p_rows == p``: :func:`_count_sticking`
    and the rest."""
    p = int(plan[H_P])
    if p_rows == p:
        nk = _count_sticking(plan, modes)
        return nk, p - nk
    o_law = plan_offsets(p, 0, 0)[P_LAW]
    o_dim = vector_offsets(p, int(plan[H_K]), int(plan[H_M]), p_rows)[1]
    nk, ns = np.int64(0), np.int64(0)  # (not literals: as in _count_sticking)
    for i in range(p):
        if plan[o_law + i] == COULOMB and modes[i] == 0.0:
            nk += int(plan[o_dim + i])
        else:
            ns += 1
    return nk, ns


@njit(cache=True, _nrt=False, inline="always")
def _kkt(M, f, phi, gamma, G, W, bias, dphi, v_T, two_a, b2, a_all, b_all, slip, stick, K, R):
    """The KKT matrix with a stick row per sticking pair and its right-hand sides
    ``[f - W^T b, gamma - 2 alpha dphi - beta^2 phi, -(dW/dt) v - 2 alpha v_T]`` and
    ``-a_i W_i^T`` per slipping pair into ``K, R`` (zeroed by the caller; the Delassus solve
    reads only ``K[:, :n]``, all written here, so its caller need not zero ``K``)."""
    n, m, ns, nk = M.shape[0], phi.shape[0], slip.shape[0], stick.shape[0]
    p = W.shape[0]
    for a in range(n):
        for b in range(n):
            K[a, b] = M[a, b]
        acc = f[a]
        for i in range(p):
            acc -= W[i, a] * b_all[i]
        R[a, 0] = acc
    for r in range(m):
        for b in range(n):
            K[n + r, b] = G[r, b]
            K[b, n + r] = -G[r, b]
        R[n + r, 0] = gamma[r] - two_a * dphi[r] - b2 * phi[r]
    for r in range(nk):
        i = stick[r]
        for b in range(n):
            K[n + m + r, b] = W[i, b]
            K[b, n + m + r] = -W[i, b]
        R[n + m + r, 0] = -bias[i] - two_a * v_T[i]
    for c_ in range(ns):
        i = slip[c_]
        for b in range(n):
            R[b, 1 + c_] = -a_all[i] * W[i, b]


@njit(cache=True, _nrt=False)  # a call, not inlined: the stage of a small system stays small
def _kkt_delassus(M, f, phi, gamma, G, W, bias, dphi, v_T, two_a, b2, a_all, b_all, slip, stick,
                  K, R):
    """:func:`_kkt` for the Delassus solve (``linalg._block_schur``), which reads of ``K`` only
    the 3 x 3 diagonal blocks of ``M`` and the rows ``C = [G; W_stick]`` below it: those and
    ``R`` (the rest of ``K`` left as it is: no copy of ``M``'s zeros, no transposed ``-C^T``)."""
    n, m, ns, nk = M.shape[0], phi.shape[0], slip.shape[0], stick.shape[0]
    p = W.shape[0]
    for b0 in range(0, n, 3):
        for a in range(b0, b0 + 3):
            for b in range(b0, b0 + 3):
                K[a, b] = M[a, b]
    for a in range(n):
        acc = f[a]
        for i in range(p):
            acc -= W[i, a] * b_all[i]
        R[a, 0] = acc
    for r in range(m):
        for b in range(n):
            K[n + r, b] = G[r, b]
        R[n + r, 0] = gamma[r] - two_a * dphi[r] - b2 * phi[r]
    for r in range(nk):
        i = stick[r]
        for b in range(n):
            K[n + m + r, b] = W[i, b]
        R[n + m + r, 0] = -bias[i] - two_a * v_T[i]
    for c_ in range(ns):
        i = slip[c_]
        for b in range(n):
            R[b, 1 + c_] = -a_all[i] * W[i, b]


@njit(cache=True, _nrt=False, inline="always")
def _load_equation(X, abs_rows, Wt, preload, slip, A, c, faces, Kf):
    """``A`` (k, k; zeroed by the caller) and ``c`` (k,) of ``lambda_abs = c + A |lambda_abs|``
    from the KKT solution's columns (the preloads folded into ``c``), and
    ``Kf = I - A diag(faces)``."""
    k = abs_rows.shape[0]
    for r in range(k):
        row = int(abs_rows[r])
        c[r] = X[row, 0]
        for s_ in range(slip.shape[0]):
            c[r] += X[row, 1 + s_] * preload[slip[s_]]
    for s_ in range(slip.shape[0]):  # A = X[abs rows, 1 + s] Wt[slip[s]]: Wt is sparse
        for col in range(k):
            w = Wt[slip[s_], col]
            if w != 0.0:
                for r in range(k):
                    A[r, col] += X[int(abs_rows[r]), 1 + s_] * w
    for r in range(k):
        for col in range(k):
            Kf[r, col] = (1.0 if r == col else 0.0) - A[r, col] * faces[col]


@njit(cache=True)
def _certify(A, Kf, jam):
    """``OK`` when ``lambda = c + A |lambda|`` is certified unique (``rho(|A|) < 1`` or
    ``||A||_2 < 1``) and ``Kf = I - A diag(faces)`` is not within ``jam`` of singular; else
    ``UNCERTIFIED`` or ``JAMMED``."""
    k = A.shape[0]
    if k == 1:
        if not abs(A[0, 0]) < 1.0:
            return UNCERTIFIED
        return JAMMED if Kf[0, 0] < jam else OK
    if k == 0:
        return OK
    # eigenvalues of real matrices may be complex: numba needs a complex argument
    if not np.max(np.abs(np.linalg.eigvals(np.abs(A).astype(np.complex128)))) < 1.0:
        if not np.linalg.norm(A, 2) < 1.0:
            return UNCERTIFIED
    if np.min(np.abs(np.linalg.eigvals(Kf.astype(np.complex128)))) < jam:
        return JAMMED
    return OK


@njit(cache=True, _nrt=False, inline="always")
def _radial_loads(x, rad_rows, Rad):
    """Each revolute pin's radial load ``||lambda_radial||`` from ``x`` into ``Rad``; returns
    whether every one changed by at most 1e-12 (relative) from its value in ``Rad``."""
    done = True
    for i in range(Rad.shape[0]):
        if rad_rows[2 * i] >= 0:
            new = math.hypot(x[int(rad_rows[2 * i])], x[int(rad_rows[2 * i + 1])])
            if abs(new - Rad[i]) > 1e-12 * max(1.0, abs(new)):
                done = False
            Rad[i] = new
    return done


@njit(cache=True, _nrt=False, inline="always")
def _load_magnitudes(Kf, c, faces, mag, Kw, rhs):
    """``|lambda_abs| = faces * (I - A diag(faces))^-1 c`` into ``mag`` (``Kf`` is certified
    away from singular: the in-kernel LU on the copies ``Kw, rhs``)."""
    k = c.shape[0]
    if k == 1:
        mag[0] = faces[0] * (c[0] / Kf[0, 0])
    elif k > 1:
        for r in range(k):
            rhs[r, 0] = c[r]
            for col in range(k):
                Kw[r, col] = Kf[r, col]
        _lu_solve(Kw, rhs)
        for r in range(k):
            mag[r] = faces[r] * rhs[r, 0]


@njit(cache=True, _nrt=False, inline="always")
def _certify_radial(X, rad_rows, abs_rows, Wt, slip, jam):
    """The load certificate of revolute pins' radial loads (``GeneralStage.load_lipschitz``
    with 2-row norm terms, ``docs/design/spatial_friction.md`` section 3.2) without eigenvalues:
    whether ``a = min(||L||_inf, ||L||_1, ||L||_F) <= 1 - jam`` (``a >= rho(L)``), ``L_ab =
    ||X[rad_a, 1 + b]|| + sum_r |Wt_ar| |X[abs_r, 1 + b]|`` of the slipping pairs ``a, b``.
    Otherwise the Python stage takes ``rho(L)`` and names a map that is not a contraction."""
    ns = slip.shape[0]
    row, col, fro = 0.0, 0.0, 0.0
    for a in range(ns):
        acc_r, acc_c = 0.0, 0.0
        for b in range(ns):
            for which in range(2):  # L[a, b] (its row sum) and L[b, a] (its column sum)
                i, j = (slip[a], b) if which == 0 else (slip[b], a)
                e = 0.0
                for r in range(abs_rows.shape[0]):
                    e += abs(Wt[i, r]) * abs(X[int(abs_rows[r]), 1 + j])
                if rad_rows[2 * i] >= 0:
                    e += math.hypot(X[int(rad_rows[2 * i]), 1 + j],
                                    X[int(rad_rows[2 * i + 1]), 1 + j])
                if which == 0:
                    acc_r += e
                    fro += e * e
                else:
                    acc_c += e
        row, col = max(row, acc_r), max(col, acc_c)
    return 1.0 - min(row, col, math.sqrt(fro)) >= jam


@njit(cache=True, _nrt=False, inline="always")
def _load_step(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, x, N_slip, c, Rad, mag, Kw,
               rhs):
    """The load map's affine part at the norm loads ``Rad`` (p,): ``c`` (k,), the face-fixed
    magnitudes, the slipping pairs' loads ``N_slip`` and the KKT solution ``x`` at them."""
    k, ns = c_fixed.shape[0], slip.shape[0]
    for r in range(k):
        c[r] = c_fixed[r]
        for s_ in range(ns):
            c[r] += X[int(abs_rows[r]), 1 + s_] * Rad[slip[s_]]
    _load_magnitudes(Kf, c, faces, mag, Kw, rhs)
    for s_ in range(ns):
        i = slip[s_]
        acc = preload[i] + Rad[i]
        for r in range(k):
            acc += Wt[i, r] * mag[r]
        N_slip[s_] = acc
    for r in range(x.shape[0]):
        acc = X[r, 0]
        for s_ in range(ns):
            acc += X[r, 1 + s_] * N_slip[s_]
        x[r] = acc


@njit(cache=True, _nrt=False, inline="always")
def _new_norms(x, norms, plan, n_groups, o_groups, rad_rows, Rad):
    """The norm loads at ``x`` into ``Rad``: the plan's norm terms (``norms``,
    :func:`_norm_loads`) or the revolute pins' radial loads (:func:`_radial_loads`); whether
    every one changed by at most 1e-12 (relative)."""
    if norms:
        return _norm_loads(x, plan, n_groups, o_groups, Rad)
    return _radial_loads(x, rad_rows, Rad)


@njit(cache=True, _nrt=False)  # a call: only pins' and norm loads iterate
def _load_iteration(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, x, N_slip, c, Rad, mag,
                    Kw, rhs, norms, plan, rad_rows, E1, E2):
    """The norm loads' fixed point ``Rad = g(Rad)`` (the map :func:`_load_step` then
    :func:`_new_norms`), started at ``Rad`` (the loads without friction), which the caller
    certified a contraction (``rho(L) < 1``: one fixed point, which the iteration reaches).
    First :data:`LOAD_ITERATIONS` plain steps (``GeneralStage.evaluate``'s); then, for a rate
    close to 1 (``rho(L) = 0.95`` needs ~500 plain steps), up to :data:`LOAD_ROUNDS` rounds of
    two plain steps and Aitken's extrapolation of each load from them (Steffensen's method:
    superlinear on a scalar load), the extrapolated point kept only when its step is smaller
    than the last plain one (so that the plain steps' convergence is kept). ``E1, E2`` (p,)
    scratch. Returns whether it converged (``x``, ``N_slip``, ``c`` at the fixed point)."""
    n_groups, o_groups = 0, 0
    if norms:
        n_groups, o_groups = _norm_tail(plan)
    for _ in range(LOAD_ITERATIONS):
        _load_step(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, x, N_slip, c, Rad, mag,
                   Kw, rhs)
        if _new_norms(x, norms, plan, n_groups, o_groups, rad_rows, Rad):
            return True
    for _ in range(LOAD_ROUNDS):
        for i in range(Rad.shape[0]):
            E1[i] = Rad[i]
        _load_step(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, x, N_slip, c, Rad, mag,
                   Kw, rhs)
        if _new_norms(x, norms, plan, n_groups, o_groups, rad_rows, Rad):
            return True
        for i in range(Rad.shape[0]):
            E2[i] = Rad[i]
        _load_step(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, x, N_slip, c, Rad, mag,
                   Kw, rhs)
        if _new_norms(x, norms, plan, n_groups, o_groups, rad_rows, Rad):
            return True
        plain = _aitken(E1, E2, Rad)
        _load_step(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, x, N_slip, c, Rad, mag,
                   Kw, rhs)
        if _new_norms(x, norms, plan, n_groups, o_groups, rad_rows, Rad):
            return True
        _keep_better(E1, E2, Rad, plain)
    return False


@njit(cache=True, _nrt=False, inline="always")
def _keep_better(E1, E2, Rad, plain):
    """After the step from the extrapolated loads ``E2`` to ``Rad``: back to the plain
    iterates' end ``E1`` unless that step is smaller than the last plain one (``plain``)."""
    step = 0.0
    for i in range(Rad.shape[0]):
        step = max(step, abs(Rad[i] - E2[i]))
    if not step < plain:
        for i in range(Rad.shape[0]):
            Rad[i] = E1[i]


@njit(cache=True, _nrt=False, inline="always")
def _aitken(E1, E2, Rad):
    """Aitken's extrapolation ``R2 - (R2 - R1)^2 / ((R2 - R1) - (R1 - R0))`` of each load from
    three plain iterates ``E1 = R0, E2 = R1, Rad = R2`` (``R2`` where the denominator is zero
    or the value not finite), into ``Rad`` and ``E2``; ``E1`` becomes ``R2``. Returns the last
    plain step ``max |R2 - R1|``."""
    plain = 0.0
    for i in range(Rad.shape[0]):
        d1, d2 = E2[i] - E1[i], Rad[i] - E2[i]
        plain = max(plain, abs(d2))
        extrapolated = Rad[i]
        if d2 != d1:
            e = Rad[i] - d2 * d2 / (d2 - d1)
            if math.isfinite(e):
                extrapolated = e
        E1[i], E2[i], Rad[i] = Rad[i], extrapolated, extrapolated
    return plain


@njit(cache=True, _nrt=False, inline="always")
def _load_scratch(vec, m, p, p_rows):
    """Two vectors (p,) of the stage's scratch that are free while the loads are iterated:
    ``N`` (written after them, :func:`_contact_forces`) and the spare after ``F_T``
    (:func:`_scratch_size`)."""
    o = 2 * m + 3 * p_rows
    return vec[o + p:o + 2 * p], vec[o + 2 * p + p_rows:o + 3 * p + p_rows]


@njit(cache=True, _nrt=False, inline="always")
def _loads(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, rad_rows, radial, x, N_slip, c,
           Rad, mag, Kw, rhs, plan, E1, E2, pins=True):
    """The face-fixed normal loads with the radial loads by fixed-point iteration around them
    (:func:`_load_iteration`), into ``x`` (the KKT solution at the loads), ``N_slip``, ``c``
    and ``Rad`` (zeroed by the caller); ``mag, Kw, rhs`` scratch of shapes (k,), (k, k),
    (k, 1), ``E1, E2`` (p,). Returns whether the iteration converged. ``pins`` None: no radial
    loads (the caller guarantees ``radial`` false; the iteration is not compiled)."""
    if pins is None or not radial:
        _load_step(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, x, N_slip, c, Rad, mag,
                   Kw, rhs)
        return True
    _radial_loads(X[:, 0], rad_rows, Rad)  # start: the loads without friction
    return _load_iteration(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, x, N_slip, c,
                           Rad, mag, Kw, rhs, np.bool_(False), plan, rad_rows, E1, E2)  # (one
    # compilation for both callers: not a literal)


@njit(cache=True, _nrt=False, inline="always")
def _write(out, n, m, p, k, x, normal_rows, N, F_T, v_T, lam_abs, powers, res, phi, dphi, dz,
           M, state_mass):
    """The outputs in the layout of :func:`evaluation_layout` (``A`` and ``c`` are written by
    the caller before the loads, so that a jam can report them)."""
    for i in range(n + m):  # dv, lam
        out[i] = x[i]
    o = n + m
    pr = F_T.shape[0]  # the tangential rows (p_rows)
    for i in range(p):
        nr = int(normal_rows[i])
        out[o + i] = x[n + nr] if nr >= 0 else N[i]
        out[o + p + 2 * pr + i] = N[i]
    for r in range(pr):
        out[o + p + r] = F_T[r]
        out[o + p + pr + r] = v_T[r]
    o += 2 * p + 2 * pr
    for r in range(k):
        out[o + r] = lam_abs[r]
    o += k
    for r in range(5):
        out[o + r] = powers[r]
    out[o + 5] = res
    o += 6
    for r in range(m):
        out[o + r] = phi[r]
        out[o + m + r] = dphi[r]
    o += 2 * m + k * k + k  # A and c
    for r in range(dz.shape[0]):
        out[o + r] = dz[r]
    o += dz.shape[0]
    if state_mass:
        for a in range(n):
            for b in range(n):
                out[o + a * n + b] = M[a, b]


@njit(cache=True, _nrt=False, inline="always")
def _contact_forces(x, abs_rows, c, A, faces, preload, Rad, Wt, slip, stick, a_all, b_all,
                    N_slip, n, m, lam_abs, N, F_T):
    """From the KKT solution at the loads: the load rows ``lambda_abs`` (k,), each pair's
    normal load ``N`` (p,) and friction force ``F_T`` (p,; zeroed by the caller) into the
    given arrays; returns the HLCP's residual
    ``max |lambda_abs - c - A |lambda_abs|| / max(1, |c|, |lambda_abs|)``."""
    k, p = c.shape[0], N.shape[0]
    scale = 1.0
    for r in range(k):
        lam_abs[r] = x[int(abs_rows[r])]
        scale = max(scale, abs(c[r]), abs(lam_abs[r]))
    for i in range(p):
        acc = preload[i] + Rad[i]
        for r in range(k):
            acc += Wt[i, r] * (faces[r] * lam_abs[r])
        N[i] = acc
    for s_ in range(slip.shape[0]):
        i = slip[s_]
        F_T[i] = -a_all[i] * N_slip[s_] - b_all[i]
    for r in range(stick.shape[0]):
        F_T[stick[r]] = x[n + m + r]
    res = 0.0
    for r in range(k):
        acc = lam_abs[r] - c[r]
        for col in range(k):
            acc -= A[r, col] * abs(lam_abs[col])
        res = max(res, abs(acc))
    return res / scale


@njit(cache=True)
def acceleration_stage(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan, Wt, v,
                       z, modes, faces, out):
    """The acceleration stage of an evaluation in a smooth phase (modes and faces fixed), for
    any system's terms: the KKT system ``[[M, -G^T, -W_s^T], [G, 0, 0], [W_s, 0, 0]]`` with a
    stick row per sticking Coulomb pair, ``1 + p_slip`` right-hand sides, the smooth laws'
    coefficients ``F_T = -a(v_T, z) N - b(v_T, z)`` and state rates, the face-fixed normal
    loads ``lambda_abs = c + A diag(faces) lambda_abs`` (with a revolute pin's radial load
    ``||lambda_radial||`` by fixed-point iteration around them), friction forces and powers,
    written into ``out`` (layout :func:`evaluation_layout`). Returns ``OK``, ``SINGULAR`` (KKT
    matrix), ``JAMMED`` (``I - A diag(faces)`` near singular; ``A, c`` are in ``out``),
    ``UNCERTIFIED`` (the HLCP's uniqueness not certified: the caller takes the general path) or
    ``NO_LOAD`` (the radial load's iteration did not converge).

    ``plan`` (float64) packs the constants (``Dynamics._compile_plan``): the header ``n, m, p,
    k, state_mass, 2 alpha, beta^2, jam margin, n_z, radial``, then ``mu (p), preload (p),
    law kind (p), law parameters (p * 8), state offset (p, -1: none), radial KKT rows (p * 2,
    -1: none), KKT rows of the load rows (k), normal rows (p, -1: none), driver row flags
    (m)``. ``bias`` (p): ``(dW/dt) v`` (read for sticking pairs only); ``Wt`` (p, k): load
    weights; ``z`` (n_z): the smooth laws' states; ``modes`` (p): +1, -1 slip, 0 stick (read
    for Coulomb pairs); ``faces`` (k). The same arithmetic as ``Dynamics._evaluate_general``
    (``docs/method.md`` sections 2-6 and 9).
    """
    n, m, p, k, n_z = (int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K]),
                       int(plan[H_NZ]))
    p_rows = plan_rows(plan)
    nk, ns = _stick_counts(plan, modes, p_rows)
    size = n + m + nk
    # every array of the stage allocated here, in six blocks; the stages below make their
    # views and fill them without numba's runtime (no reference counts)
    vec = np.zeros(_scratch_size(m, p, k, n_z, ns, size, p_rows))
    idx = np.empty(max(p_rows, 1), dtype=np.int64)
    K = np.zeros((size, size))
    R = np.zeros((size, 1 + ns))
    mats = np.zeros((3, k, k))
    rhs = np.empty((k, 1))
    _stage_kkt(M, f, phi, phi_t, G, gamma, W, bias, plan, v, z, modes, vec, idx, K, R, nk, ns,
               p_rows)
    if p_rows != p and nk:  # stick rows that may depend on each other (two contacts on one
        if not _rows_independent(K, n, np.empty((size - n) * (n + 2)), RANK_TOL):  # body): the
            return SINGULAR  # Python path decides (least squares, or the named error)
    if size <= SMALL_LU:
        if not _lu_solve(K, R):
            return SINGULAR
    elif _is_diagonal(M):
        R[:, :] = _schur_solve(M, K, R, n)
    else:
        R[:, :] = np.linalg.solve(K, R)  # raises LinAlgError when singular: the caller names it
    X = R  # (in R whichever the solve: one layout, one compilation of what takes X)
    _stage_load_equation(X, plan, Wt, faces, vec, idx, mats, out, m, p, k, n_z, ns, size,
                         p_rows)
    status = _certify_bound(mats[0], mats[1], plan[H_JAM])
    if status == GENERAL:
        status = _certify(mats[0], mats[1], plan[H_JAM])
    if status != OK:
        return status
    return _stage_loads(X, M, phi, P_applied, P_damping, plan, Wt, faces, vec, idx, mats, rhs,
                        out, m, p, k, n_z, ns, size, p_rows)


@njit(cache=True, _nrt=False, inline="always")
def _scratch_size(m, p, k, n_z, ns, size, p_rows):
    """Length of the stage's float scratch: ``Gv, dphi (m); v_T, a_all, b_all (p_rows); Rad, N
    (p); F_T, (spare) (p_rows); dz (n_z); N_slip (ns); c_fixed, c, mag, lam_abs, (spare) (k); x
    (size); powers (5)`` (``p_rows == p``: every pair scalar)."""
    return 2 * m + 5 * p_rows + 2 * p + n_z + ns + 5 * k + size + 5


@njit(cache=True, _nrt=False, inline="always")
def _views(vec, m, p, k, n_z, ns, size, pr):
    """The stage's scratch vectors as views into ``vec`` (layout :func:`_scratch_size`; ``pr``
    the rows of ``W``)."""
    Gv, dphi = vec[:m], vec[m:2 * m]
    o = 2 * m
    v_T, a_all, b_all = vec[o:o + pr], vec[o + pr:o + 2 * pr], vec[o + 2 * pr:o + 3 * pr]
    o += 3 * pr
    Rad, N, F_T = vec[o:o + p], vec[o + p:o + 2 * p], vec[o + 2 * p:o + 2 * p + pr]
    o += 2 * p + 2 * pr
    dz, N_slip = vec[o:o + n_z], vec[o + n_z:o + n_z + ns]
    o += n_z + ns
    c_fixed, c = vec[o:o + k], vec[o + k:o + 2 * k]
    mag, lam_abs = vec[o + 2 * k:o + 3 * k], vec[o + 3 * k:o + 4 * k]
    o += 5 * k
    x, powers = vec[o:o + size], vec[o + size:o + size + 5]
    return Gv, dphi, v_T, a_all, b_all, Rad, N, F_T, dz, N_slip, c_fixed, c, mag, lam_abs, x, powers


@njit(cache=True, _nrt=False)  # a call: one compilation for every stage that takes it
def _stage_kkt(M, f, phi, phi_t, G, gamma, W, bias, plan, v, z, modes, vec, idx, K, R, nk, ns,
               p_rows, vector=True):
    """The stage up to the KKT system (``nk`` stick rows, ``ns`` slipping or smooth pairs,
    ``p_rows`` rows of ``W``): kinematics, friction laws, ``K`` and ``R``. ``vector`` None:
    every pair is scalar (the caller guarantees it), and the vector pairs' code is not
    compiled (numba prunes the branches on ``vector is not None``)."""
    (n, m, p, k, mu, preload, law, law_par, z_at, rad_rows, abs_rows, normal_rows,
     driver) = _plan_parts(plan)
    n_z = int(plan[H_NZ])
    (Gv, dphi, v_T, a_all, b_all, Rad, N, F_T, dz, N_slip, c_fixed, c, mag, lam_abs, x,
     powers) = _views(vec, m, p, k, n_z, ns, n + m + nk, p_rows)
    slip, stick = idx[:ns], idx[ns:ns + nk]
    _kinematics(G, v, phi_t, W, Gv, dphi, v_T)
    if vector is not None and p_rows != p:
        _vector_friction_laws(plan, mu, law, law_par, z_at, modes, v, v_T, z, a_all, b_all, dz,
                              slip, stick)
    else:
        _friction_laws(mu, law, law_par, z_at, modes, v_T, z, a_all, b_all, dz, slip, stick)
    _kkt(M, f, phi, gamma, G, W, bias, dphi, v_T, plan[H_2ALPHA], plan[H_BETA2], a_all, b_all,
         slip, stick, K, R)
    if vector is not None and p_rows != p:
        _vector_columns(plan, W, a_all, slip, R)


@njit(cache=True, _nrt=False)  # a call, not inlined: the stage of a small system stays small
def _stage_kkt_delassus(M, f, phi, phi_t, G, gamma, W, bias, plan, v, z, modes, vec, idx, K, R,
                        nk, ns, p_rows, vector=True):
    """:func:`_stage_kkt` for the Delassus solve: ``K`` by :func:`_kkt_delassus` (the same
    steps before it, kept apart so that the inlined stage of a small system is unchanged)."""
    (n, m, p, k, mu, preload, law, law_par, z_at, rad_rows, abs_rows, normal_rows,
     driver) = _plan_parts(plan)
    n_z = int(plan[H_NZ])
    (Gv, dphi, v_T, a_all, b_all, Rad, N, F_T, dz, N_slip, c_fixed, c, mag, lam_abs, x,
     powers) = _views(vec, m, p, k, n_z, ns, n + m + nk, p_rows)
    slip, stick = idx[:ns], idx[ns:ns + nk]
    _kinematics(G, v, phi_t, W, Gv, dphi, v_T)
    if vector is not None and p_rows != p:
        _vector_friction_laws(plan, mu, law, law_par, z_at, modes, v, v_T, z, a_all, b_all, dz,
                              slip, stick)
    else:
        _friction_laws(mu, law, law_par, z_at, modes, v_T, z, a_all, b_all, dz, slip, stick)
    _kkt_delassus(M, f, phi, gamma, G, W, bias, dphi, v_T, plan[H_2ALPHA], plan[H_BETA2], a_all,
                  b_all, slip, stick, K, R)
    if vector is not None and p_rows != p:
        _vector_columns(plan, W, a_all, slip, R)


@njit(cache=True, _nrt=False, inline="always")
def _stage_load_equation(X, plan, Wt, faces, vec, idx, mats, out, m, p, k, n_z, ns, size,
                         p_rows):
    """The normal loads' equation ``A, c`` (written to ``out`` too, for a jam's report) and
    ``Kf = I - A diag(faces)`` into ``mats[0], mats[1]``."""
    (n, m_, p_, k_, mu, preload, law, law_par, z_at, rad_rows, abs_rows, normal_rows,
     driver) = _plan_parts(plan)
    (Gv, dphi, v_T, a_all, b_all, Rad, N, F_T, dz, N_slip, c_fixed, c, mag, lam_abs, x,
     powers) = _views(vec, m, p, k, n_z, ns, size, p_rows)
    A, Kf = mats[0], mats[1]
    _load_equation(X, abs_rows, Wt, preload, idx[:ns], A, c_fixed, faces, Kf)
    o_A = eval_offsets(n, m, p, k, n_z, False, p_rows)[O_A]
    for r in range(k):
        for col in range(k):
            out[o_A + r * k + col] = A[r, col]
        out[o_A + k * k + r] = c_fixed[r]


@njit(cache=True, _nrt=False)  # a call: one compilation for every stage that takes it
def _stage_loads(X, M, phi, P_applied, P_damping, plan, Wt, faces, vec, idx, mats, rhs, out, m,
                 p, k, n_z, ns, size, p_rows, vector=True, pins=True):
    """The stage from the certified loads' equation on: the loads (radial fixed point),
    contact forces, powers, and everything into ``out``. Returns ``OK``, ``UNCERTIFIED`` (the
    radial loads' map not certified a contraction by :func:`_certify_radial`: the Python stage
    decides) or ``NO_LOAD`` (their iteration did not converge). ``vector`` as in
    :func:`_stage_kkt`; ``pins`` None: the plan has no radial loads (``H_RADIAL`` 0), whose
    certificate and iteration are then not compiled."""
    (n, m_, p_, k_, mu, preload, law, law_par, z_at, rad_rows, abs_rows, normal_rows,
     driver) = _plan_parts(plan)
    (Gv, dphi, v_T, a_all, b_all, Rad, N, F_T, dz, N_slip, c_fixed, c, mag, lam_abs, x,
     powers) = _views(vec, m, p, k, n_z, ns, size, p_rows)
    slip, stick = idx[:ns], idx[ns:ns + size - n - m]
    A, Kf, Kw = mats[0], mats[1], mats[2]
    radial = plan[H_RADIAL] != 0.0
    if pins is not None and radial:
        if not _certify_radial(X, rad_rows, abs_rows, Wt, slip, plan[H_JAM]):
            return UNCERTIFIED
    E1, E2 = _load_scratch(vec, m, p, p_rows)
    if not _loads(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, rad_rows, radial,
                  x, N_slip, c, Rad, mag, Kw, rhs, plan, E1, E2, pins):
        return NO_LOAD
    o_A = eval_offsets(n, m, p, k, n_z, False, p_rows)[O_A]
    for r in range(k):  # the equation of the converged loads
        out[o_A + k * k + r] = c[r]
    res = _contact_forces(x, abs_rows, c, A, faces, preload, Rad, Wt, slip, stick, a_all, b_all,
                          N_slip, n, m, lam_abs, N, F_T)
    if vector is not None and p_rows != p:  # vector pairs' rows (the sticking rows were right)
        _vector_forces(plan, a_all, b_all, N_slip, slip, F_T)
    P_total, P_drive = 0.0, 0.0
    for r in range(m):
        term = x[n + r] * Gv[r]
        P_total += term
        P_drive += term * driver[r]
    powers[0], powers[1], powers[2] = P_drive, P_applied, P_damping
    powers[3], powers[4] = _dot(F_T, v_T), P_total - P_drive
    _write(out, n, m, p, k, x, normal_rows, N, F_T, v_T, lam_abs, powers, res, phi, dphi, dz, M,
           plan[H_STATE_MASS] != 0.0)
    return OK


@njit(cache=True, _nrt=False, inline="always")
def _terms_size(n, m, p):
    """Length of the terms' part of a planar workspace (zeroed; layout in
    :func:`_evaluate_into`)."""
    return 2 * n + 3 * m + m * n + p * n + p


@njit(cache=True, _nrt=False, inline="always")
def _stage_size(n, m, p, k, n_z, nk, ns, p_rows):
    """Length of the part of a stage workspace :func:`_stage_body` zeroes with ``nk`` stick
    rows and ``ns`` slipping pairs (layout there)."""
    size = n + m + nk
    return (_scratch_size(m, p, k, n_z, ns, size, p_rows) + size * size + size * (1 + ns)
            + 3 * k * k)


@njit(cache=True, _nrt=False, inline="always")
def _largest_stage(n, m, p, k, n_z, p_rows):
    """The largest :func:`_stage_size` over the stick/slip patterns: exact over the number of
    sticking pairs when every pair is scalar, a bound (up to ``p_rows`` stick rows with ``p``
    columns) with vector pairs."""
    largest = 0
    if p_rows == p:
        for nk in range(p + 1):
            largest = max(largest, _stage_size(n, m, p, k, n_z, nk, p - nk, p)
                          + _schur_scratch(n, n + m + nk, 1 + p - nk))
        return largest
    for nk in range(p_rows + 1):
        largest = max(largest, _stage_size(n, m, p, k, n_z, nk, p, p_rows)
                      + _schur_scratch(n, n + m + nk, 1 + p))
    return largest


@njit(cache=True, _nrt=False, inline="always")
def _schur_scratch(n, size, ncol):
    """The stage workspace's floats after the loads' right-hand side for a KKT system of
    ``size`` rows: the Delassus solve's scratch (``linalg._schur_size``)."""
    return _schur_size(n, size, ncol)


@njit(cache=True)
def stage_workspace(plan):
    """The arrays of :func:`_stage_into` for a system's plan, made once by its caller: float64
    of the largest layout over the number of sticking pairs plus the loads' right-hand side;
    int64 (:func:`stage_ints`) the slipping pairs and the sticking rows, then the Delassus
    solve's indices."""
    n, m, p, k, n_z = (int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K]),
                       int(plan[H_NZ]))
    p_rows = plan_rows(plan)
    largest = _largest_stage(n, m, p, k, n_z, p_rows)
    return np.empty(largest + k), np.empty(stage_ints(n, m, p_rows), dtype=np.int64)


@njit(cache=True, _nrt=False, inline="always")
def stage_ints(n, m, p_rows):
    """Length of the stage's int64 workspace: the slipping pairs and sticking rows (p_rows),
    then the Delassus solve's rows touching each block (``linalg._touching_size`` at the
    largest KKT system)."""
    return p_rows + _touching_size(n, n + m + p_rows)


@njit(cache=True, _nrt=False, inline="always")
def _certify_bound(A, Kf, jam):
    """:func:`_certify` where a norm decides it, without eigenvalues: ``OK`` when
    ``a = min(||A||_inf, ||A||_1, ||A||_F) < 1`` (``rho(|A|) <= a``, ``||A||_2 <= ||A||_F``)
    and ``1 - a >= jam`` (every eigenvalue of ``Kf = I - A diag(faces)``, ``|faces| <= 1``,
    lies within ``a`` of 1); ``GENERAL`` when the bound does not decide (the eigenvalues do).
    One load row is decided exactly, as :func:`_certify` does."""
    k = A.shape[0]
    if k == 0:
        return OK
    if k == 1:
        if not abs(A[0, 0]) < 1.0:
            return UNCERTIFIED
        return JAMMED if Kf[0, 0] < jam else OK
    row, col, fro = 0.0, 0.0, 0.0
    for r in range(k):
        acc_r, acc_c = 0.0, 0.0
        for c in range(k):
            acc_r += abs(A[r, c])
            acc_c += abs(A[c, r])
            fro += A[r, c] * A[r, c]
        row, col = max(row, acc_r), max(col, acc_c)
    a = min(row, col, math.sqrt(fro))
    if a < 1.0 and 1.0 - a >= jam:
        return OK
    return GENERAL


@njit(cache=True, _nrt=False, inline="always")
def _stage_body(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan, Wt, v, z, modes,
                faces, out, sw, iw, nk, ns, p_rows, delassus=False, vector=True, large=True,
                pins=True):
    """The acceleration stage (:func:`acceleration_stage`'s arithmetic) without numba's
    runtime, in the stage workspace ``sw, iw`` (:func:`stage_workspace`): the stage's vectors
    (:func:`_scratch_size`), ``K (size, size), R (size, 1 + ns), mats (3, k, k)`` (zeroed
    here), then ``rhs (k, 1)`` and, above :data:`SMALL_LU` rows, the Delassus solve's scratch
    (:func:`_schur_scratch`); the KKT system by the in-kernel LU (above :data:`SMALL_LU` rows
    with a mass matrix block diagonal in 3 x 3 blocks, a spatial model's: the Delassus matrix,
    ``linalg._block_schur``), the certificate by a norm
    bound (:func:`_certify_bound`); ``nk`` the stick rows, ``ns`` the slipping pairs and
    ``p_rows`` the rows of ``W`` (:func:`_stick_counts`, :func:`plan_rows`); ``delassus``
    true: the caller guarantees a 3 x 3 block-diagonal mass, and the Delassus solve is taken
    at any size (the spatial family's); ``vector`` None: every pair scalar, the vector pairs'
    code not compiled (:func:`_stage_kkt`); ``large`` None: the caller guarantees ``n + m +
    p_rows <= SMALL_LU`` (the Delassus solve is not compiled); ``pins`` None: no radial loads
    (:func:`_stage_loads`). Returns the
    stage's statuses, or ``GENERAL`` for a system above :data:`SMALL_LU` rows whose mass is
    not 3 x 3 block diagonal, or a load equation the bound does not certify (``SINGULAR``
    for stick rows of vector pairs that :func:`_solve_kkt`'s rank test does not accept: the
    Python path's least squares)."""
    n, m, p, k, n_z = (int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K]),
                       int(plan[H_NZ]))
    size = n + m + nk
    if not delassus and size > SMALL_LU:  # above it: the Delassus solve of a block-diagonal
        if large is None or not _is_block3(M):  # mass, else the general path
            return GENERAL
        delassus = True
    zeroed = _stage_size(n, m, p, k, n_z, nk, ns, p_rows)
    n_vec = _scratch_size(m, p, k, n_z, ns, size, p_rows)
    skip = n_vec + size * size if delassus else n_vec  # (K is not zeroed for the Delassus
    for i in range(n_vec):  # solve: _kkt writes what it reads)
        sw[i] = 0.0
    for i in range(skip, zeroed):
        sw[i] = 0.0
    vec = sw[:n_vec]
    o = n_vec
    K = sw[o:o + size * size].reshape(size, size)
    o += size * size
    R = sw[o:o + size * (1 + ns)].reshape(size, 1 + ns)
    o += size * (1 + ns)
    mats = sw[o:o + 3 * k * k].reshape(3, k, k)
    rhs = sw[zeroed:zeroed + k].reshape(k, 1)
    _stage_kkt(M, f, phi, phi_t, G, gamma, W, bias, plan, v, z, modes, vec, iw, K, R, nk, ns,
               p_rows, vector)
    if not _solve_kkt(K, R, n, sw[zeroed + k:], iw[p_rows:], delassus, p_rows != p and nk,
                      m, vector, large):
        return SINGULAR
    _stage_load_equation(R, plan, Wt, faces, vec, iw, mats, out, m, p, k, n_z, ns, size,
                         p_rows)
    status = _certify_bound(mats[0], mats[1], plan[H_JAM])
    if status != OK:
        return status
    return _stage_loads(R, M, phi, P_applied, P_damping, plan, Wt, faces, vec, iw, mats, rhs,
                        out, m, p, k, n_z, ns, size, p_rows, vector, pins)



@njit(cache=True, _nrt=False)
def _stage_body_delassus(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan, Wt, v,
                         z, modes, faces, out, sw, iw, nk, ns, p_rows, vector=True, pins=True):
    """:func:`_stage_body` for a mass the caller guarantees block diagonal in 3 x 3 blocks (a
    spatial model's): the Delassus solve at any size, the KKT matrix written only where that
    solve reads it (:func:`_stage_kkt_delassus`), the same arithmetic otherwise. A call of its
    own, so that the inlined stage of a small system is unchanged. Stick rows of vector pairs
    (rows that may depend on each other) are solved where :func:`_solve_kkt`'s rank test
    accepts them, else ``SINGULAR`` (the Python path decides). ``vector``, ``pins`` as in
    :func:`_stage_body`."""
    n, m, p, k, n_z = (int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K]),
                       int(plan[H_NZ]))
    size = n + m + nk
    zeroed = _stage_size(n, m, p, k, n_z, nk, ns, p_rows)
    n_vec = _scratch_size(m, p, k, n_z, ns, size, p_rows)
    for i in range(n_vec):  # (K is not zeroed: _kkt_delassus writes what the solve reads)
        sw[i] = 0.0
    for i in range(n_vec + size * size, zeroed):
        sw[i] = 0.0
    vec = sw[:n_vec]
    o = n_vec
    K = sw[o:o + size * size].reshape(size, size)
    o += size * size
    R = sw[o:o + size * (1 + ns)].reshape(size, 1 + ns)
    o += size * (1 + ns)
    mats = sw[o:o + 3 * k * k].reshape(3, k, k)
    rhs = sw[zeroed:zeroed + k].reshape(k, 1)
    _stage_kkt_delassus(M, f, phi, phi_t, G, gamma, W, bias, plan, v, z, modes, vec, iw, K, R,
                        nk, ns, p_rows, vector)
    if not _solve_kkt(K, R, n, sw[zeroed + k:], iw[p_rows:], True, p_rows != p and nk > 0,
                      m, vector):
        return SINGULAR
    _stage_load_equation(R, plan, Wt, faces, vec, iw, mats, out, m, p, k, n_z, ns, size,
                         p_rows)
    status = _certify_bound(mats[0], mats[1], plan[H_JAM])
    if status != OK:
        return status
    return _stage_loads(R, M, phi, P_applied, P_damping, plan, Wt, faces, vec, iw, mats, rhs,
                        out, m, p, k, n_z, ns, size, p_rows, vector, pins)

@njit(cache=True, _nrt=False, inline="always")
def _solve_kkt(K, R, n, scratch, T, delassus, dependent, m, vector=True, large=True):
    """``K X = R`` in place: the Delassus solve (``delassus``), else the LU. ``dependent``
    (stick rows of vector pairs, which may depend on each other and on the constraints: two
    sticking contacts on one body): the Delassus solve tests the rows after the ``m``
    constraint rows by their pivots (``linalg._block_schur``, ``linalg.ROW_PIVOT_TOL``: no
    work beside its factorization), the LU first takes the rank test
    ``linalg._rows_independent`` on ``C = [G; W_stick]`` (in ``scratch``, before the solve
    uses it); where either refuses, False, and the Python path decides (least squares, or the
    named error). False: singular. ``vector`` None: no vector pairs (:func:`_stage_kkt`), so
    no dependent rows and no rank test compiled; ``large`` None: no Delassus solve compiled
    (:func:`_stage_body`)."""
    mr = K.shape[0] - n
    if large is not None and delassus:
        return _block_schur(K, R, n, scratch, T, m if dependent else mr)
    if vector is not None and dependent:
        if not _rows_independent(K, n, scratch[:mr * n + 2 * mr], RANK_TOL):
            return False
    return _lu_solve(K, R)


@njit(cache=True, _nrt=False)
def _stage_into(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan, Wt, v, z, modes,
                faces, out, sw, iw, vector=True, large=True, pins=True):
    """:func:`_stage_body` as a call (for a runtime caller: no reference counts inside);
    ``vector=None`` for a caller whose pairs are all scalar, ``large=None`` for one whose KKT
    systems never exceed :data:`SMALL_LU` rows (a generated module's), ``pins=None`` for a
    plan without radial loads: compilations without the vector pairs' code, the Delassus
    solve, the radial loads' iteration."""
    p_rows = plan_rows(plan)
    nk, ns = _stick_counts(plan, modes, p_rows)
    return _stage_body(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan, Wt, v, z,
                       modes, faces, out, sw, iw, nk, ns, p_rows, False, vector, large, pins)


@njit(cache=True, _nrt=False)
def _derivative(y, out, dy, n, m, p, k, n_z, p_rows=-1):
    """``dy/dt = [v, dv/dt, powers, dz/dt]`` of the state ``y = [q, v, work (5), z]`` from an
    evaluation's outputs ``out`` (``p_rows`` the rows of ``W``; -1: ``p``)."""
    offsets = eval_offsets(n, m, p, k, n_z, False, p_rows)
    o_pow, o_dz = offsets[O_POW], offsets[O_DZ]
    o_v, o_work, o_z = state_offsets(n, n)
    for i in range(n):
        dy[i] = y[o_v + i]
        dy[o_v + i] = out[i]
    for i in range(N_WORK):
        dy[o_work + i] = out[o_pow + i]
    for i in range(n_z):
        dy[o_z + i] = out[o_dz + i]


# ------------------------------------------------------------------------------ norm load terms
# A plan whose pairs have general norm load terms (``FrictionPair.norms``: a spatial joint's
# radial, bending and ball loads, weighted groups of 1-3 rows; ``core.layout.RADIAL_NORMS``,
# ``docs/design/spatial_friction.md`` section 3) takes the functions below, each a call of its own:
# the planar stage above (its radial rows, its inlined code) is not touched by them.
norm_offsets = njit(inline="always", _nrt=False)(layout.norm_offsets)


@njit(cache=True, _nrt=False, inline="always")
def _norm_tail(plan):
    """``(number of groups, offset of the first)`` of a plan's norm tail."""
    o_count, o_groups = norm_offsets(int(plan[H_P]), int(plan[H_K]), int(plan[H_M]),
                                     plan_rows(plan))
    return int(plan[o_count]), o_groups


@njit(cache=True, _nrt=False, inline="always")
def _group_norm(x, plan, o):
    """``||x[r_g]||`` of the norm group at ``plan[o]`` (its rows at ``plan[o + 3:]``),
    scaled by its largest entry so that it neither overflows nor underflows where the norm
    is representable (``lcp.arithmetic.norm2``: a pin of 1 km squares loads past 1e154)."""
    rows = int(plan[o + 2])
    largest = 0.0
    for r in range(rows):
        largest = max(largest, abs(x[int(plan[o + 3 + r])]))
    if largest == 0.0 or not math.isfinite(largest):
        return largest
    acc = 0.0
    for r in range(rows):
        xr = x[int(plan[o + 3 + r])] / largest
        acc += xr * xr
    return largest * math.sqrt(acc)


@njit(cache=True, _nrt=False, inline="always")
def _norm_loads(x, plan, n_groups, o_groups, Rad):
    """Each pair's norm loads ``sum_g w_g ||x[r_g]||`` (N) from the KKT solution ``x`` into
    ``Rad`` (p,), in the groups' order (``GeneralStage.radial_norms``' arithmetic); returns
    whether every one changed by at most 1e-12 (relative) from its value in ``Rad``."""
    done = True
    for i in range(Rad.shape[0]):
        new = 0.0
        for g in range(n_groups):
            o = o_groups + layout.N_GROUP * g
            if int(plan[o]) == i:
                new += plan[o + 1] * _group_norm(x, plan, o)
        if abs(new - Rad[i]) > 1e-12 * max(1.0, abs(new)):
            done = False
        Rad[i] = new
    return done


@njit(cache=True, _nrt=False, inline="always")
def _lipschitz_entry(X, plan, n_groups, o_groups, abs_rows, Wt, i, col):
    """``L`` of slipping pair ``i`` against the KKT column ``col`` (``1 + s``) of ``X``:
    ``sum_r |Wt_ir| |X[abs_r, col]| + sum_g w_g ||X[r_g, col]||`` (``GeneralStage.
    load_lipschitz``)."""
    acc = 0.0
    for r in range(abs_rows.shape[0]):
        acc += abs(Wt[i, r]) * abs(X[int(abs_rows[r]), col])
    for g in range(n_groups):
        o = o_groups + layout.N_GROUP * g
        if int(plan[o]) == i:
            acc += plan[o + 1] * _group_norm(X[:, col], plan, o)
    return acc


@njit(cache=True, _nrt=False)
def _certify_norms(X, plan, Wt, slip):
    """The load certificate of norm terms (``docs/design/spatial_friction.md`` section 3.2) without
    eigenvalues: ``OK`` when ``a = min(||L||_inf, ||L||_1, ||L||_F) <= 1 - jam`` (``a >=
    rho(L)``; ``L`` (n_s, n_s) the slipping pairs' load Lipschitz matrix from the KKT columns
    ``X[:, 1:]``), else ``UNCERTIFIED`` (the Python path takes ``rho(L)`` and names a map that
    is not a contraction)."""
    ns = slip.shape[0]
    if ns == 0:
        return OK
    n_groups, o_groups = _norm_tail(plan)
    p, k, m = int(plan[H_P]), int(plan[H_K]), int(plan[H_M])
    abs_rows = plan[plan_offsets(p, k, m)[6]:plan_offsets(p, k, m)[7]]
    row, col, fro = 0.0, 0.0, 0.0
    for a in range(ns):
        acc_r, acc_c = 0.0, 0.0
        for b in range(ns):
            lr = _lipschitz_entry(X, plan, n_groups, o_groups, abs_rows, Wt, slip[a], 1 + b)
            lc = _lipschitz_entry(X, plan, n_groups, o_groups, abs_rows, Wt, slip[b], 1 + a)
            acc_r += lr
            acc_c += lc
            fro += lr * lr
        row, col = max(row, acc_r), max(col, acc_c)
    bound = min(row, col, math.sqrt(fro))
    if 1.0 - bound >= plan[H_JAM]:
        return OK
    return UNCERTIFIED


#: Power steps of :func:`_certify_perron` at most.
PERRON_STEPS = 30


@njit(cache=True, _nrt=False)
def _certify_perron(A, jam, u, w):
    """:func:`_certify_bound`'s certificate where the norms do not decide, without
    eigenvalues: ``OK`` when the Collatz-Wielandt bound ``a = max_i (|A| u)_i / u_i >=
    rho(|A|)`` of a positive ``u`` (power steps of ``I + |A|`` from ones, at most
    :data:`PERRON_STEPS`) has ``1 - a >= jam`` (then ``lambda = c + A |lambda|`` has one
    solution and every eigenvalue of ``I - A diag(faces)``, ``|faces| <= 1``, lies within
    ``a`` of 1: not jammed); ``GENERAL`` otherwise (the eigenvalues decide). ``u, w`` (k,)
    scratch. A load row's axial weight of 25 (a torsion arm 0.02 m) makes ``||A|| = 5`` at
    ``rho = 0.03``: the norms alone send such an evaluation to the allocating path."""
    k = A.shape[0]
    for r in range(k):
        u[r] = 1.0
    for _ in range(PERRON_STEPS):
        bound, top = 0.0, 0.0
        for r in range(k):
            acc = 0.0
            for c in range(k):
                acc += abs(A[r, c]) * u[c]
            bound = max(bound, acc / u[r])
            w[r] = u[r] + acc
            top = max(top, w[r])
        if 1.0 - bound >= jam:
            return OK
        if not top > 0.0 or not top < math.inf:
            return GENERAL
        for r in range(k):
            u[r] = max(w[r] / top, 1e-200)
    return GENERAL


@njit(cache=True, _nrt=False, inline="always")
def _loads_norms(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, plan, x, N_slip, c, Rad,
                 mag, Kw, rhs, E1, E2):
    """:func:`_loads` with the norm terms of the plan's norm tail (:func:`_norm_loads`) in the
    place of the revolute pins' radial loads: the same fixed point (:func:`_load_iteration`),
    started at the loads without friction (``GeneralStage.evaluate``)."""
    n_groups, o_groups = _norm_tail(plan)
    _norm_loads(X[:, 0], plan, n_groups, o_groups, Rad)
    return _load_iteration(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, x, N_slip, c,
                           Rad, mag, Kw, rhs, np.bool_(True), plan, plan[:0], E1, E2)


@njit(cache=True, _nrt=False)
def _stage_loads_norms(X, M, phi, P_applied, P_damping, plan, Wt, faces, vec, idx, mats, rhs,
                       out, m, p, k, n_z, ns, size, p_rows, vector=True):
    """:func:`_stage_loads` of a plan with norm terms: the loads by :func:`_loads_norms`, the
    rest the same. Returns False when the loads' iteration does not converge."""
    (n, m_, p_, k_, mu, preload, law, law_par, z_at, rad_rows, abs_rows, normal_rows,
     driver) = _plan_parts(plan)
    (Gv, dphi, v_T, a_all, b_all, Rad, N, F_T, dz, N_slip, c_fixed, c, mag, lam_abs, x,
     powers) = _views(vec, m, p, k, n_z, ns, size, p_rows)
    slip, stick = idx[:ns], idx[ns:ns + size - n - m]
    A, Kf, Kw = mats[0], mats[1], mats[2]
    E1, E2 = _load_scratch(vec, m, p, p_rows)
    if not _loads_norms(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, plan, x, N_slip, c,
                        Rad, mag, Kw, rhs, E1, E2):
        return False
    o_A = eval_offsets(n, m, p, k, n_z, False, p_rows)[O_A]
    for r in range(k):  # the equation of the converged loads
        out[o_A + k * k + r] = c[r]
    res = _contact_forces(x, abs_rows, c, A, faces, preload, Rad, Wt, slip, stick, a_all, b_all,
                          N_slip, n, m, lam_abs, N, F_T)
    if vector is not None and p_rows != p:  # vector pairs' rows (the sticking rows were right)
        _vector_forces(plan, a_all, b_all, N_slip, slip, F_T)
    P_total, P_drive = 0.0, 0.0
    for r in range(m):
        term = x[n + r] * Gv[r]
        P_total += term
        P_drive += term * driver[r]
    powers[0], powers[1], powers[2] = P_drive, P_applied, P_damping
    powers[3], powers[4] = _dot(F_T, v_T), P_total - P_drive
    _write(out, n, m, p, k, x, normal_rows, N, F_T, v_T, lam_abs, powers, res, phi, dphi, dz, M,
           plan[H_STATE_MASS] != 0.0)
    return True


@njit(cache=True, _nrt=False)
def _stage_body_norms(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan, Wt, v, z,
                      modes, faces, out, sw, iw, nk, ns, p_rows, block3, vector=True):
    """:func:`_stage_body` (``block3`` false) or :func:`_stage_body_delassus` (``block3``: a
    mass the caller guarantees block diagonal in 3 x 3 blocks) for a plan with norm terms: the
    same KKT system, solve and load equation (certified by the norms, else by
    :func:`_certify_perron`), then the norm terms' certificate
    (:func:`_certify_norms`: ``UNCERTIFIED``) and loads (:func:`_loads_norms`: ``NO_LOAD``
    when they do not converge); ``GENERAL`` where those return it (a system above
    :data:`SMALL_LU` rows whose mass is not 3 x 3 block diagonal, a load equation the norm
    bound does not certify). ``vector`` as in :func:`_stage_body`."""
    n, m, p, k, n_z = (int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K]),
                       int(plan[H_NZ]))
    size = n + m + nk
    dependent = p_rows != p and nk > 0  # stick rows that may depend on each other: the rank
    delassus = block3  # test first (_solve_kkt)
    if not delassus and size > SMALL_LU:
        if not _is_block3(M):
            return GENERAL
        delassus = True
    zeroed = _stage_size(n, m, p, k, n_z, nk, ns, p_rows)
    n_vec = _scratch_size(m, p, k, n_z, ns, size, p_rows)
    skip = n_vec + size * size if delassus else n_vec  # (K is not zeroed for the Delassus
    for i in range(n_vec):  # solve: _kkt_delassus writes what it reads)
        sw[i] = 0.0
    for i in range(skip, zeroed):
        sw[i] = 0.0
    vec = sw[:n_vec]
    o = n_vec
    K = sw[o:o + size * size].reshape(size, size)
    o += size * size
    R = sw[o:o + size * (1 + ns)].reshape(size, 1 + ns)
    o += size * (1 + ns)
    mats = sw[o:o + 3 * k * k].reshape(3, k, k)
    rhs = sw[zeroed:zeroed + k].reshape(k, 1)
    if delassus:
        _stage_kkt_delassus(M, f, phi, phi_t, G, gamma, W, bias, plan, v, z, modes, vec, iw, K,
                            R, nk, ns, p_rows, vector)
    else:
        _stage_kkt(M, f, phi, phi_t, G, gamma, W, bias, plan, v, z, modes, vec, iw, K, R, nk,
                   ns, p_rows, vector)
    if not _solve_kkt(K, R, n, sw[zeroed + k:], iw[p_rows:], delassus, dependent, m, vector):
        return SINGULAR
    _stage_load_equation(R, plan, Wt, faces, vec, iw, mats, out, m, p, k, n_z, ns, size,
                         p_rows)
    status = _certify_bound(mats[0], mats[1], plan[H_JAM])
    if status == GENERAL:  # (mats[2], the loads' LU copy, is free until then: the scratch)
        status = _certify_perron(mats[0], plan[H_JAM], mats[2][0], mats[2][1])
    if status == OK:
        status = _certify_norms(R, plan, Wt, iw[:ns])
    if status != OK:
        return status
    if not _stage_loads_norms(R, M, phi, P_applied, P_damping, plan, Wt, faces, vec, iw, mats,
                              rhs, out, m, p, k, n_z, ns, size, p_rows, vector):
        return NO_LOAD
    return OK


@njit(cache=True)
def acceleration_stage_norms(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan,
                             Wt, v, z, modes, faces, out):
    """:func:`acceleration_stage` for a plan with norm terms (``core.layout.RADIAL_NORMS``):
    the same KKT system and load equation (its certificate by the eigenvalues where the bound
    does not decide), then :func:`_certify_norms` (``UNCERTIFIED``: the Python path takes
    ``rho(L)``) and :func:`_loads_norms` (``NO_LOAD``: not converged). The same arguments and
    statuses."""
    n, m, p, k, n_z = (int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K]),
                       int(plan[H_NZ]))
    p_rows = plan_rows(plan)
    nk, ns = _stick_counts(plan, modes, p_rows)
    size = n + m + nk
    vec = np.zeros(_scratch_size(m, p, k, n_z, ns, size, p_rows))
    idx = np.empty(max(p_rows, 1), dtype=np.int64)
    K = np.zeros((size, size))
    R = np.zeros((size, 1 + ns))
    mats = np.zeros((3, k, k))
    rhs = np.empty((k, 1))
    _stage_kkt(M, f, phi, phi_t, G, gamma, W, bias, plan, v, z, modes, vec, idx, K, R, nk, ns,
               p_rows)
    if p_rows != p and nk:  # stick rows that may depend on each other: the Python path decides
        if not _rows_independent(K, n, np.empty((size - n) * (n + 2)), RANK_TOL):
            return SINGULAR
    if size <= SMALL_LU:
        if not _lu_solve(K, R):
            return SINGULAR
    elif _is_diagonal(M):
        R[:, :] = _schur_solve(M, K, R, n)
    else:
        R[:, :] = np.linalg.solve(K, R)  # raises LinAlgError when singular: the caller names it
    X = R  # (in R whichever the solve: one layout, one compilation of what takes X)
    _stage_load_equation(X, plan, Wt, faces, vec, idx, mats, out, m, p, k, n_z, ns, size,
                         p_rows)
    status = _certify_bound(mats[0], mats[1], plan[H_JAM])
    if status == GENERAL:
        status = _certify(mats[0], mats[1], plan[H_JAM])
    if status == OK:
        status = _certify_norms(X, plan, Wt, idx[:ns])
    if status != OK:
        return status
    if not _stage_loads_norms(X, M, phi, P_applied, P_damping, plan, Wt, faces, vec, idx, mats,
                              rhs, out, m, p, k, n_z, ns, size, p_rows):
        return NO_LOAD
    return OK
