"""Joint friction of the spatial family: MotionSolve's ``Force_JointFriction`` on the revolute,
spherical, translational and cylindrical joints (``docs/design/spatial_friction.md``,
``docs/method.md`` section 15.4).

A frictional joint is one :class:`~nonsmooth.system.FrictionPair` whose slip velocity and
normal load come from the joint's own rows (``body_a`` the carrier, MotionSolve's J marker;
``(f, g, h)`` the joint frame fixed in ``body_a``, ``h`` the axis; ``dw = omega_b - omega_a``
in world axes):

=============  =====  ==========================  ===============================================
joint          dim    slip ``v_T`` (m/s)          normal load ``N`` (N)
=============  =====  ==========================  ===============================================
revolute       1      ``r_p h . dw``              ``||(F_f, F_g)|| + (r_n / r_p) |F_h|``
                                                  ``+ ||(M_f, M_g)|| / r_b + T_pre / (mu_s r_p)``
spherical      3      ``r_ball (f, g, h) . dw``   ``||F|| + T_pre / (mu_s r_ball)``
translational  1      ``h . (d' - omega_a x d)``  ``||(F_f, F_g)|| + |M_h| / (2 r_n)``
                                                  ``+ ||(M_f, M_g)|| / x_s + F_pre / mu_s``
cylindrical    2      ``(r_p h . dw, v_h)``       ``||(F_f, F_g)|| + ||(M_f, M_g)|| / x_s``
                                                  ``+ F_pre / mu_s + T_pre / (mu_s r_p)``
=============  =====  ==========================  ===============================================

``F``, ``M`` the joint's reaction force and moment on ``body_b`` at the joint point in the
joint frame: the multipliers of its rows (a frictional revolute's point rows are written along
``f, g, h``, ``.f .g .h``, so that its radial and axial loads are rows of their own). The
friction acts on ``body_b`` through ``W^T F_T`` (on ``body_a`` the opposite): a torque ``r F_T``
about the axis (revolute), ``r_ball F_T`` in the joint frame (spherical), a force ``F_T`` along
the axis (translational), both (cylindrical, one isotropic cone ``||(T / r_p, F_h)|| <= mu N``).
The four ``inputs`` bits (Preload, Reaction_Force, Bending_Moment, Torsional_Moment) switch the
terms; a bit that does not apply to the type is accepted and has no effect. A preload adds to
the normal load before the coefficient, as in the planar family (``N_pre = preload / (mu_s
r)``). The overlap is ``x_s = initial_overlap`` or, with ``overlap_delta="increase"`` /
``"decrease"``, ``initial_overlap +- s`` (``s`` the joint's displacement; ``x_s <= 0`` is a
``ModelError``). References: Altair MotionSolve
reference, ``Force_JointFriction``; ``docs/design/spatial_friction.md`` sections 2 and 4.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..errors import ModelError
from ..system import FrictionPair
from .primitives import Dot2Primitive, Kinematics, _cross

__all__ = ["ARMS", "JointFrictionSpec", "CompiledJointFriction", "friction_outputs"]

#: The geometric parameters of each joint type's friction and their defaults (MotionSolve's,
#: in m): radii, arms, overlap and preloads (N, N m).
ARMS = {
    "Revolute": {"pin_radius": 1.0, "friction_arm": 1.0, "bending_arm": 1.0,
                 "torque_preload": 0.0},
    "Spherical": {"ball_radius": 1.0, "torque_preload": 0.0},
    "Translational": {"reaction_arm": 1.0, "initial_overlap": 1000.0, "force_preload": 0.0,
                      "overlap_delta": "constant"},
    "Cylindrical": {"pin_radius": 1.0, "initial_overlap": 1000.0, "force_preload": 0.0,
                    "torque_preload": 0.0, "overlap_delta": "constant"},
    "Universal": {"pin_radius": 1.0, "friction_arm": 1.0, "bending_arm": 1.0,
                  "torque_preload": 0.0, "yoke_choice": "both"},
}
#: ``yoke_choice`` of a universal joint: the cross axes with friction (MotionSolve's I marker
#: is ``body_b``, its J marker ``body_a``: ``I_YOKE`` the cross axis fixed in ``body_b``)
YOKES = {"both": ("a", "b"), "j_yoke": ("a",), "i_yoke": ("b",)}
_PRELOADS = ("torque_preload", "force_preload")
#: The largest radius, arm or overlap (m): a kilometre, MotionSolve's default overlap of 1000
#: (in metres) included; beyond it a unit error (a length in mm given in m), and the loads' fixed
#: point overflows.
MAX_ARM = 1e3
#: The largest preload (N or N m), as the regularized law's largest force.
MAX_PRELOAD = 1e9
#: ``overlap_delta``: the overlap ``x_s = initial_overlap + sign * s`` with ``s`` the joint's
#: displacement along its axis (MotionSolve: INCREASE when I moves along +z of J)
OVERLAP = {"constant": 0.0, "increase": 1.0, "decrease": -1.0}
_CHOICES = (("overlap_delta", OVERLAP, "'constant', 'increase' (the overlap grows as body_b "
             "moves along +axis), 'decrease'"),
            ("yoke_choice", YOKES, "'both' (friction on both cross axes), 'J_YOKE' (the axis "
             "fixed in body_a), 'I_YOKE' (the axis fixed in body_b)"))


def _bits(where: str, inputs) -> tuple[bool, bool, bool, bool]:
    text = str(inputs)
    if len(text) != 4 or set(text) - {"0", "1"}:
        raise ModelError(f"{where}: inputs = {inputs!r} is invalid; give four bits (Preload, "
                         "Reaction_Force, Bending_Moment, Torsional_Moment), e.g. '1111' (all) "
                         "or '0100' (reaction force only)")
    return tuple(c == "1" for c in text)


def _law_and_params(where: str, law, friction) -> tuple[str, dict]:
    """The joint's law (a name of :data:`nonsmooth.friction.LAWS`, lower case) and its
    parameters (a dict whose keys are parameters of some law: a pair's description serves
    every law, ``simulate(friction=...)`` may pick another), checked."""
    from ..friction import LAWS
    from ..friction.schema import LAW_SCHEMAS

    if not isinstance(law, str) or law.lower() not in LAWS:
        raise ModelError(f"{where}: law = {law!r} is invalid; allowed: "
                         f"{', '.join(repr(k) for k in LAWS)}")
    law = law.lower()
    if friction is None:
        return law, {}
    if not isinstance(friction, Mapping):
        raise ModelError(f"{where}: friction = {friction!r} is invalid; give the law's "
                         "parameters as a dict, e.g. friction={'sigma0': 1e5, 'v_s': 1e-3} "
                         "(lugre)")
    known = {name for schema in LAW_SCHEMAS.values() for name in schema.names} - {"mu_s", "mu_d"}
    unknown = sorted(str(k) for k in friction if k not in known)
    if unknown:
        own = [n for n in LAW_SCHEMAS[law].names if n not in ("mu_s", "mu_d")]
        raise ModelError(f"{where}: unknown friction parameter(s) {unknown}; the {law} law "
                         f"takes {own or 'none (mu and mu_s are keywords of the joint)'}; the "
                         f"others: {sorted(known - set(own))}")
    return law, dict(friction)


class JointFrictionSpec:
    """A spatial joint's friction, validated (the joint classes' friction keywords).

    Parameters
    ----------
    joint : SpatialJoint      the joint (its ``kind`` selects the arms, :data:`ARMS`)
    mu : float               dynamic coefficient ``mu_d`` (-)
    mu_s : float or None     static coefficient (-), >= mu; None: equal to ``mu``
    law : str                ``"coulomb"`` (default), ``"lugre"``, ``"regularized"``, ``"bristle"``
                             (LuGre and bristle need ``mu >= 1e-4``: for ``mu = 0`` the
                             coulomb or regularized law)
    friction : dict or None  the law's parameters (``FrictionPair.params``: names of
                             :mod:`nonsmooth.friction.schema`, checked against the law's ranges
                             here; an unknown name is refused)
    inputs : str             the four bits, default ``"1111"``
    arms : dict              the type's entries of :data:`ARMS`: radii, arms and overlaps in
                             (0, :data:`MAX_ARM`] m, preloads in [0, :data:`MAX_PRELOAD`] N or
                             N m (a preload needs ``mu_s > 0``); others refused
    """

    def __init__(self, joint, mu, mu_s, law, friction, inputs, arms: dict):
        self.kind, self.name = joint.kind, joint.name
        where = f"{joint.label} '{joint.name}'"
        if self.kind not in ARMS:
            raise ModelError(f"{where}: joint friction is available on revolute, spherical, "
                             "translational, cylindrical and universal joints, not on a "
                             f"{joint.label} joint")
        allowed = ARMS[self.kind]
        unknown = sorted(set(arms) - set(allowed))
        if unknown:
            raise ModelError(f"{where}: unknown friction parameter(s) {unknown}; a "
                             f"{joint.label} joint takes {sorted(allowed)}")
        values = dict(allowed)
        arms = dict(arms)
        for key, choices, meaning in _CHOICES:  # the words among the numbers
            if key in arms:
                word = str(arms.pop(key)).lower()
                if word not in choices:
                    raise ModelError(f"{where}: {key} = {word!r} is invalid; allowed: "
                                     f"{meaning}")
                values[key] = word
        for key, value in arms.items():
            x = (float(value) if isinstance(value, (int, float)) and not isinstance(value, bool)
                 else math.nan)
            preload = key in _PRELOADS
            top = MAX_PRELOAD if preload else MAX_ARM
            if not (math.isfinite(x) and (x >= 0.0 if preload else x > 0.0) and x <= top):
                bound = (f"in [0, {top:g}] ({'N m' if key.startswith('torque') else 'N'})"
                         if preload else f"in (0, {top:g}] m (a length in mm is 1e-3 m)")
                raise ModelError(f"{where}: {key} = {value!r} is invalid; it must be a finite "
                                 f"number {bound}")
            values[key] = x
        self.arms = values
        self.inputs = _bits(where, inputs)
        law, params = _law_and_params(where, law, friction)
        self.pair = FrictionPair(joint.name, None, mu, mu_s, law=law,
                                 params=params, load=())  # checks mu, mu_s
        self.mu, self.mu_s, self.law = self.pair.mu, self.pair.mu_s, law
        self.params = params
        try:  # the law's own ranges (LuGre's mu >= 1e-4 ...), here rather than at the run
            self.pair.make_law()
        except ModelError as exc:
            raise ModelError(f"{where}: {exc}") from None
        pre = self.preload_terms()
        if pre and not self.mu_static > 0.0:
            raise ModelError(f"{where}: a preload ({', '.join(pre)}) needs a static coefficient "
                             f"mu_s > 0 (it enters as the normal load preload / mu_s), got "
                             f"mu_s = {self.mu_static:g}; give mu_s > 0 or no preload")

    @property
    def mu_static(self) -> float:
        return self.mu if self.mu_s is None else self.mu_s

    def preload_terms(self) -> list[str]:
        """The preloads that act (Preload bit on, value > 0), by name."""
        if not self.inputs[0]:
            return []
        return [key for key in _PRELOADS if self.arms.get(key, 0.0) > 0.0]

    def preload(self) -> float:
        """The preload's normal load (N): ``T_pre / (mu_s r)`` and ``F_pre / mu_s`` (0
        without a preload, whatever ``mu_s``: a frictionless joint, ``mu = 0``, has none)."""
        pre = self.preload_terms()
        if not pre:
            return 0.0
        a, mu_s = self.arms, self.mu_static
        radius = a.get("pin_radius", a.get("ball_radius", 1.0))
        return (a.get("torque_preload", 0.0) / (mu_s * radius)
                + a.get("force_preload", 0.0) / mu_s)

    @property
    def yokes(self) -> tuple:
        """The pairs of the joint: ``(None,)``, or a universal joint's ``"a"`` and / or ``"b"``
        (the cross axis fixed in ``body_a`` / ``body_b``, ``yoke_choice``)."""
        return YOKES[self.arms["yoke_choice"]] if self.kind == "Universal" else (None,)

    @staticmethod
    def pair_name(name: str, yoke: str | None) -> str:
        """The pair's name: the joint's, or ``<joint>.yoke_a`` / ``.yoke_b``."""
        return name if yoke is None else f"{name}.yoke_{yoke}"

    def terms(self, name: str, yoke: str | None = None) -> tuple[list, list]:
        """The load terms over the joint's rows: ``(norms, load)`` of
        :class:`~nonsmooth.system.FrictionPair` (norm terms of 2-3 rows ``((rows), weight)``,
        1-row terms ``(row, weight)``), from :meth:`labelled_terms`."""
        norms, load = [], []
        for _, rows, weight in self.labelled_terms(name, yoke):
            if len(rows) == 1:
                load.append((rows[0], weight))
            else:
                norms.append((tuple(rows), weight))
        return norms, load

    def labelled_terms(self, name: str, yoke: str | None = None) -> list[tuple[str, list, float]]:
        """``[(label, rows, weight)]`` (labels ``reaction``, ``axial``, ``bending``,
        ``torsion``): the terms the inputs switch on (module docstring)."""
        _, reaction, bending, torsion = self.inputs
        a, n = self.arms, name
        out = []
        if self.kind == "Revolute":
            if reaction:
                out += [("reaction", [f"{n}.f", f"{n}.g"], 1.0),
                        ("axial", [f"{n}.h"], a["friction_arm"] / a["pin_radius"])]
            if bending:
                out.append(("bending", [f"{n}.perp1", f"{n}.perp2"], 1.0 / a["bending_arm"]))
        elif self.kind == "Universal":  # each cross axis a revolute (rows .a .b .n .cross)
            own, other = (f"{n}.a", f"{n}.b") if yoke == "a" else (f"{n}.b", f"{n}.a")
            if reaction:
                out += [("reaction", [other, f"{n}.n"], 1.0),
                        ("axial", [own], a["friction_arm"] / a["pin_radius"])]
            if bending:
                out.append(("bending", [f"{n}.cross"], 1.0 / a["bending_arm"]))
        elif self.kind == "Spherical":
            if reaction:
                out.append(("reaction", [f"{n}.x", f"{n}.y", f"{n}.z"], 1.0))
        else:  # translational, cylindrical
            if reaction:
                out.append(("reaction", [f"{n}.line1", f"{n}.line2"], 1.0))
            if bending:
                out.append(("bending", [f"{n}.perp1", f"{n}.perp2"],
                            1.0 / a["initial_overlap"]))
            if torsion and self.kind == "Translational":
                out.append(("torsion", [f"{n}.lock"], 1.0 / (2.0 * a["reaction_arm"])))
        return out

    @property
    def dim(self) -> int:
        """The slip's dimension: 3 (spherical), 2 (cylindrical), else 1."""
        return {"Spherical": 3, "Cylindrical": 2}.get(self.kind, 1)

    def make_pair(self, name: str, yoke: str | None = None) -> FrictionPair:
        """The :class:`~nonsmooth.system.FrictionPair` of the joint (or of one of a universal
        joint's cross axes, ``yoke``); rows by name."""
        norms, load = self.terms(name, yoke)
        return FrictionPair(self.pair_name(name, yoke), None, self.mu, self.mu_s, law=self.law,
                            params=self.params, load=tuple(load), norms=tuple(norms),
                            preload=self.preload(), dim=self.dim)


class CompiledJointFriction:
    """A frictional joint against the model's body indices: its rows of ``W`` and of the
    tangential bias ``(dW/dt) v`` at a state (:meth:`fill`).

    Parameters
    ----------
    spec : JointFrictionSpec
    a, b : int               body indices (-1 the ground)
    frame_a : ndarray (3, 3) the joint frame's columns ``(f, g, h)`` in ``body_a``'s axes
    s_a, s_b : ndarray (3,)  the joint point in each body's axes
    """

    def __init__(self, spec: JointFrictionSpec, a: int, b: int, frame_a, s_a, s_b,
                 yoke: str | None = None, axis_b=None):
        self.spec, self.a, self.b, self.yoke = spec, a, b, yoke
        self.dim = spec.dim
        arms = spec.arms
        kind = spec.kind
        self.radius = arms.get("pin_radius", arms.get("ball_radius", 1.0))
        # the angular rows: r c_k . dw for the columns c_k of C (fixed in body_a; a universal
        # joint's yoke "b": the cross axis axis_b fixed in body_b, in its axes)
        self.in_b = yoke == "b"
        if kind == "Spherical":
            self.C_a = np.array(frame_a, float)
        elif kind in ("Revolute", "Cylindrical", "Universal"):
            self.C_a = (np.asarray(axis_b, float).reshape(3, 1) if self.in_b
                        else np.array(frame_a, float)[:, 2:3])
        else:
            self.C_a = np.zeros((3, 0))
        self.slide = (Dot2Primitive(a, frame_a[:, 2], s_a, b, s_b)
                      if kind in ("Translational", "Cylindrical") else None)
        # a bending term over an overlap that changes with the displacement: its weight
        # 1 / x_s(q), the others constant (the pair's norm terms in order)
        self.overlap_sign = OVERLAP[arms.get("overlap_delta", "constant")]
        groups = [(lab, w) for lab, rows, w in spec.labelled_terms("_", yoke) if len(rows) > 1]
        labels = [lab for lab, _ in groups]
        self.weights = np.array([w for _, w in groups])
        self.bending = labels.index("bending") if "bending" in labels else -1
        self.variable = bool(self.overlap_sign) and self.bending >= 0
        self.name = spec.name

    def norm_weights(self, K: Kinematics) -> np.ndarray:
        """The weights of this pair's norm terms at ``K`` (the bending one ``1 / x_s(q)``
        with ``overlap_delta``); raises :class:`ModelError` when the overlap is gone."""
        if not self.variable:
            return self.weights
        s = self.slide.evaluate(K, np.zeros((1, 6 * (max(self.a, self.b) + 1))), 0)[0]
        x_s = self.spec.arms["initial_overlap"] + self.overlap_sign * s
        if not x_s > 0.0:
            raise ModelError(f"joint '{self.name}': the overlap x_s = {x_s:.6g} m is no longer "
                             f"positive (initial_overlap {self.spec.arms['initial_overlap']:g}"
                             f" m, displacement {s:.6g} m, overlap_delta "
                             f"'{self.spec.arms['overlap_delta']}'): the slider has left its "
                             "guide")
        out = self.weights.copy()
        out[self.bending] = 1.0 / x_s
        return out

    def fill(self, K: Kinematics, W: np.ndarray, bias: np.ndarray, row: int) -> None:
        """Write this pair's rows ``row .. row + dim - 1`` of ``W`` (p_rows, n_v; zero there
        before) and of ``bias`` (p_rows,) at the kinematics ``K``."""
        a, b, r = self.a, self.b, self.radius
        owner = b if self.in_b else a  # the body the axes are fixed in
        C = K.R[owner] @ self.C_a  # world axes (the ground's R is the identity)
        dw = K.w[b] - K.w[a]
        w_owner = K.w[owner]
        for k in range(C.shape[1]):
            c = C[:, k]
            if b >= 0:
                W[row + k, 6 * b + 3:6 * b + 6] += r * (K.R[b].T @ c)
            if a >= 0:
                W[row + k, 6 * a + 3:6 * a + 6] -= r * (K.R[a].T @ c)
            bias[row + k] = r * float(_cross(w_owner, c) @ dw)
        if self.slide is not None:
            k = row + C.shape[1]
            _, second = self.slide.evaluate(K, W, k)
            bias[k] = second


def friction_outputs(system) -> dict:
    """The frictional joints' named outputs of a
    :class:`~nonsmooth.spatial.model.SpatialSystem` (``element_outputs``): ``{name: (function
    (result) -> (N,), unit, description)}``.

    Per frictional joint ``j``: ``j.N`` (N) the normal load and its terms ``j.N_reaction``,
    ``.N_axial``, ``.N_bending``, ``.N_torsion`` (each after its weight; those the type and
    its inputs have), ``.N_preload``; ``j.mode`` (+1/-1 slip, 0 stick; a spherical or
    cylindrical joint 2 slip, 0 stick); ``j.slip`` (m/s, dim 1) or ``j.slip1 .. slip<d>``;
    the friction on ``body_b`` in the joint frame ``(f, g, h)``: ``j.Ff_f .Ff_g .Ff_h`` (N)
    and ``j.Tf_f .Tf_g .Tf_h`` (N m), zero where the type has none (module docstring).
    """
    out = {}
    names = system.constraint_names
    for i, (pair, fr) in enumerate(zip(system.pairs[:len(system._friction)], system._friction,
                                                  strict=True)):
        j, w, d = pair.name, int(system.w_row[i]), fr.dim
        out[f"{j}.N"] = (lambda r, i=i: r.N[:, i], "N", "normal load of the joint friction")
        for label, rows, weight in fr.spec.labelled_terms(fr.spec.name, fr.yoke):
            cols = [names.index(rw) for rw in rows]
            if label == "bending" and fr.variable:  # over the overlap x_s(q)
                x0, sign = fr.spec.arms["initial_overlap"], fr.overlap_sign

                def wt(r, j=fr.spec.name, x0=x0, sign=sign):
                    return 1.0 / (x0 + sign * r[f"{j}.displacement"])
            else:
                def wt(r, w=weight):
                    return w
            out[f"{j}.N_{label}"] = (
                lambda r, c=cols, wt=wt: wt(r) * np.sqrt(np.sum(r.lam[:, c] ** 2, axis=1)),
                "N", f"{label} term of the normal load")
        pre = fr.spec.preload()
        out[f"{j}.N_preload"] = (lambda r, p=pre: np.full(r.t.size, p), "N",
                                 "preload term of the normal load")
        out[f"{j}.mode"] = (lambda r, i=i: r.modes[:, i], "-",
                            "+1 slip+, -1 slip-, 0 stick" if d == 1 else "2 slip, 0 stick")
        if d == 1:
            out[f"{j}.slip"] = (lambda r, w=w: r.v_T[:, w], "m/s", "slip velocity")
        else:
            for k in range(d):
                out[f"{j}.slip{k + 1}"] = (lambda r, w=w + k: r.v_T[:, w], "m/s",
                                           f"slip velocity, component {k + 1}")
        if fr.yoke is not None:  # a universal joint's cross axis
            out[f"{j}.Tf_axis"] = (lambda r, w=w, a=fr.radius: a * r.F_T[:, w], "N m",
                                   "friction torque on body_b about the cross axis")
            continue
        force, torque = _frame_friction(fr, w)
        for k, c in enumerate("fgh"):
            out[f"{j}.Ff_{c}"] = (lambda r, f=force[k]: f(r), "N",
                                  f"friction force on body_b along the joint frame's {c} axis")
            out[f"{j}.Tf_{c}"] = (lambda r, f=torque[k]: f(r), "N m",
                                  f"friction torque on body_b about the joint frame's {c} axis")
    return out


def _frame_friction(fr: CompiledJointFriction, w: int):
    """Functions of a result for the friction force and torque components ``(f, g, h)`` on
    ``body_b`` in the joint frame (three each)."""
    def zero(r):
        return np.zeros(r.t.size)

    def col(k, scale=1.0):
        return lambda r: scale * r.F_T[:, w + k]

    force, torque = [zero] * 3, [zero] * 3
    kind, rad = fr.spec.kind, fr.radius
    if kind == "Revolute":
        torque[2] = col(0, rad)
    elif kind == "Spherical":
        torque = [col(0, rad), col(1, rad), col(2, rad)]
    elif kind == "Translational":
        force[2] = col(0)
    else:  # cylindrical
        torque[2], force[2] = col(0, rad), col(1)
    return force, torque
