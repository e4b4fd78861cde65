"""A rattleback (celt): a half-ellipsoid spun on a table reverses its spin, held by exact stick.

Built with the spatial family (``nonsmooth.spatial``) and a compliant point contact
(``nonsmooth.contact``): an ellipsoid of semi-axes ``a`` (m, along the body's x), ``b`` (y) and
``c`` (z, up) whose centre of mass is ``h`` (m) below the ellipsoid's centre, on a table (a
ground ``Plane`` at ``z = 0``). Its principal axes of inertia (moments ``A``, ``B``, ``C``,
kg m^2, about x, y, z) are turned by ``delta`` (rad) about z away from the ellipsoid's axes:
this misalignment of the axes of inertia and of curvature couples the spin to the pitching and
rolling oscillations, so that a spin in one direction makes the body pitch, stop and spin the
other way (G. T. Walker, 1896; the no-slip equations and their analysis: M. Garcia and M.
Hubbard, Proc. R. Soc. Lond. A 418, 165-197, 1988; T. R. Kane and D. A. Levinson, Int. J.
Non-Linear Mech. 17, 175-186, 1982, whose figures of the body these defaults are of the order
of, not a copy).

The contact: Hertz (one material, ``E``, ``nu``, against itself) with the effective radius of
the ellipsoid's bottom, ``sqrt(R_1 R_2)`` of its principal radii of curvature ``a^2 / c`` and
``b^2 / c`` (a single radius: Hertz's elliptic contact to leading order), restitution ``e``
(exact), Coulomb friction ``mu`` / ``mu_s`` with exact stick. The body rolls without slipping:
the contact sticks for the whole run (the friction force stays inside ``mu_s N``), and a stuck
contact point does not creep, so the compliant model follows the rigid no-slip equations
(:func:`rigid_rolling`, Garcia and Hubbard's, written here with Newton-Euler) to the contact's
compliance.

The start: spinning at ``omega0`` (rad/s) about the vertical, rolled by ``roll0`` (rad) about
the long axis, at the contact's static penetration, its centre moving as rolling asks
(``v = -omega x r``). With the defaults (-3 rad/s) a negative ``omega0`` is the unstable
direction: the pitching grows, the spin stops at about 4.8 s and the body spins the other way
(the rigid body reaches +3 rad/s: no energy is lost rolling); a positive ``omega0`` spins on.
Against the rigid equations over the growth (0-3.5 s) the spin differs by 3e-2 rad/s at the
default plastic (a static penetration of 5e-6 m) and by 4e-4 rad/s on steel (``E=2e11``):
the compliance, converging (``tests/contact/test_rattleback.py``); the reversal itself
amplifies such differences (the spin stops within 0.1 s of the rigid body's time). Run time
about 4 s for the 6 s (1.6 million evaluations of 3 us: the stiff contact).

Outputs: ``spin`` (rad/s, the angular velocity about the vertical), ``pitch`` and ``roll``
(rad, the long axis' and the short axis' angles to the table), ``N`` (N, the contact force),
``F_t`` (N, the friction force's magnitude), ``slip`` (m/s, the contact point's speed on the
table: zero while it sticks), and every element output (``table.N``, ``celt.wz_world`` ...).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.contact import Contact, Ellipsoid, Hertz, Plane
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

NAME = "contact_rattleback"
DESCRIPTION = ("Rattleback: a half-ellipsoid whose inertia is turned against its curvature "
               "reverses its spin, rolling on exact stick")

#: Ranges (SI): semi-axes (0, 1] m, the centre of mass' depth [0, c) m, mass (0, 100] kg,
#: moments (0, 10] kg m^2, misalignment [-0.5, 0.5] rad, spin [-100, 100] rad/s, roll
#: [-0.5, 0.5] rad, modulus (0, 1e13] Pa, Poisson's ratio [0, 0.5), restitution (0, 1],
#: coefficients (0, 10], gravity (0, 1e3] m/s^2, end time (0, 100] s.
PARAMETERS = [
    Parameter("a", 0.2, "m", "semi-axis along the body's x (the long axis)", 0.0, 1.0,
              exclusive=True),
    Parameter("b", 0.03, "m", "semi-axis along the body's y", 0.0, 1.0, exclusive=True),
    Parameter("c", 0.02, "m", "semi-axis along the body's z (up)", 0.0, 1.0, exclusive=True),
    Parameter("h", 0.01, "m", "depth of the centre of mass below the ellipsoid's centre", 0.0,
              1.0),
    Parameter("m", 1.0, "kg", "mass", 0.0, 100.0, exclusive=True),
    Parameter("A", 2e-4, "kg m^2", "principal moment about the (turned) long axis", 0.0, 10.0,
              exclusive=True),
    Parameter("B", 1.6e-3, "kg m^2", "principal moment about the (turned) short axis", 0.0,
              10.0, exclusive=True),
    Parameter("C", 1.7e-3, "kg m^2", "principal moment about the vertical axis", 0.0, 10.0,
              exclusive=True),
    Parameter("delta", 0.02, "rad", "turn of the principal axes of inertia about z", -0.5, 0.5),
    Parameter("omega0", -3.0, "rad/s", "initial spin about the vertical", -100.0, 100.0),
    Parameter("roll0", 0.02, "rad", "initial turn about the long axis", -0.5, 0.5),
    Parameter("E", 2e9, "Pa", "Young's modulus of body and table (a hard plastic)", 0.0, 1e13,
              exclusive=True),
    Parameter("nu", 0.35, "-", "Poisson's ratio of body and table", 0.0, 0.4999),
    Parameter("e", 0.5, "-", "coefficient of restitution of the contact", 0.0, 1.0,
              exclusive=True),
    Parameter("mu", 0.5, "-", "dynamic friction coefficient", 0.0, 10.0, exclusive=True),
    Parameter("mu_s", 0.6, "-", "static friction coefficient (>= mu)", 0.0, 10.0,
              exclusive=True),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3, exclusive=True),
    Parameter("t_end", 6.0, "s", "default end time", 0.0, 100.0, exclusive=True),
]

OUTPUT_UNITS = {
    "spin": ("rad/s", "angular velocity about the vertical"),
    "pitch": ("rad", "angle of the long axis to the table"),
    "roll": ("rad", "angle of the short axis to the table"),
    "N": ("N", "contact force"),
    "F_t": ("N", "friction force at the contact (magnitude, in the table)"),
    "slip": ("m/s", "speed of the contact point on the table"),
}


def inertia(p: dict) -> np.ndarray:
    """The inertia tensor (3, 3) (kg m^2) about the centre of mass in the ellipsoid's axes:
    ``Rz(delta) diag(A, B, C) Rz(delta)^T``."""
    cd, sd = math.cos(p["delta"]), math.sin(p["delta"])
    Rz = np.array([[cd, -sd, 0.0], [sd, cd, 0.0], [0.0, 0.0, 1.0]])
    return Rz @ np.diag([p["A"], p["B"], p["C"]]) @ Rz.T


def hertz_stiffness(p: dict) -> tuple[float, float]:
    """``(K, R)``: Hertz's stiffness (N/m^1.5) and the effective radius (m) of the bottom,
    ``sqrt(a^2/c * b^2/c)``."""
    R = math.sqrt(p["a"] ** 2 / p["c"] * p["b"] ** 2 / p["c"])
    K = 4.0 / 3.0 * p["E"] / (2.0 * (1.0 - p["nu"] ** 2)) * math.sqrt(R)
    return K, R


def _quat_matrix(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def contact_arm(p: dict, R: np.ndarray, omega: np.ndarray | None = None):
    """``r`` (3,) (m, world): from the centre of mass to the ellipsoid's lowest point at the
    attitude ``R`` (3, 3), and with ``omega`` (rad/s, world) also ``dr/dt`` (m/s, world), the
    point sliding over the surface as the body turns: the point whose outward normal is
    ``n' = -R^T z``, ``x = (0, 0, h) + D^2 n' / |D n'|``, ``D = diag(a, b, c)``,
    ``dn'/dt = -omega' x n'``."""
    D2 = np.array([p["a"], p["b"], p["c"]]) ** 2
    n = -R[2]  # R^T (0, 0, -1)
    w = math.sqrt(D2 @ (n * n))
    x = np.array([0.0, 0.0, p["h"]]) + D2 * n / w
    r = R @ x
    if omega is None:
        return r
    wb = R.T @ omega
    dn = -np.cross(wb, n)
    dx = D2 * dn / w - D2 * n * (D2 @ (n * dn)) / w ** 3
    return r, np.cross(omega, r) + R @ dx


def rigid_rolling(p: dict, t_end: float, t_eval: np.ndarray, *, rtol: float = 1e-11,
                  R0: np.ndarray | None = None, omega0: np.ndarray | None = None) -> dict:
    """The rigid body rolling without slip on the table (Garcia and Hubbard's equations, in
    Newton-Euler form): the reference the compliant model is compared with.

    With ``r`` from the centre of mass to the contact point (:func:`contact_arm`), no slip
    ``v = -omega x r`` gives ``a = -domega/dt x r - omega x dr/dt``, and Euler's equation about
    the centre of mass with the contact force ``F = m (a + g z)`` reads
    ``(I + m (|r|^2 1 - r r^T)) domega/dt = -omega x I omega + m r x (g z - omega x dr/dt)``
    (``I`` the inertia in world axes). The attitude is a quaternion; the centre's height is
    ``-r_z``. Integrated by scipy's DOP853 at ``rtol`` (and ``atol = rtol * 1e-3``).

    Returns a dict of arrays over ``t_eval`` (s): ``omega`` (3, n) (rad/s, world), ``R`` (n, 3,
    3), ``position`` (3, n) (m), ``F`` (3, n) (N, the contact force on the body), ``energy``
    (n,) (J, kinetic plus potential, constant: a check of the integration).
    """
    from scipy.integrate import solve_ivp

    m, g = p["m"], p["g"]
    J = inertia(p)
    if R0 is None:
        R0 = initial_attitude(p)
    if omega0 is None:
        omega0 = np.array([0.0, 0.0, p["omega0"]])
    ez = np.array([0.0, 0.0, 1.0])

    def accel(R, omega):
        r, dr = contact_arm(p, R, omega)
        Iw = R @ J @ R.T
        M = Iw + m * (r @ r * np.eye(3) - np.outer(r, r))
        rhs = -np.cross(omega, Iw @ omega) + m * np.cross(r, g * ez - np.cross(omega, dr))
        domega = np.linalg.solve(M, rhs)
        return r, dr, domega

    def f(t, y):
        q, omega = y[:4], y[4:7]
        R = _quat_matrix(q)
        r, dr, domega = accel(R, omega)
        w, x, yy, z = q
        ox, oy, oz = omega  # dq/dt = 1/2 (0, omega) * q (omega in world axes)
        dq = 0.5 * np.array([-ox * x - oy * yy - oz * z, ox * w + oy * z - oz * yy,
                             oy * w + oz * x - ox * z, oz * w + ox * yy - oy * x])
        v = -np.cross(omega, r)
        return np.concatenate((dq, domega, v[:2]))

    q0 = _matrix_quat(R0)
    y0 = np.concatenate((q0, omega0, [0.0, 0.0]))
    sol = solve_ivp(f, (0.0, t_end), y0, method="DOP853", rtol=rtol, atol=rtol * 1e-3,
                    t_eval=t_eval)
    if not sol.success:  # pragma: no cover - a smooth ODE
        raise RuntimeError(sol.message)
    n = sol.t.size
    out = {"t": sol.t, "omega": sol.y[4:7], "R": np.empty((n, 3, 3)),
           "position": np.empty((3, n)), "F": np.empty((3, n)), "energy": np.empty(n)}
    for k in range(n):
        R = _quat_matrix(sol.y[:4, k])
        omega = sol.y[4:7, k]
        r, dr, domega = accel(R, omega)
        v = -np.cross(omega, r)
        a = -np.cross(domega, r) - np.cross(omega, dr)
        out["R"][k] = R
        out["position"][:, k] = (sol.y[7, k], sol.y[8, k], -r[2])
        out["F"][:, k] = m * (a + g * ez)
        out["energy"][k] = (0.5 * m * v @ v + 0.5 * omega @ (R @ J @ R.T) @ omega
                            - m * g * r[2])
    return out


def _matrix_quat(R: np.ndarray) -> np.ndarray:
    w = 0.5 * math.sqrt(max(1.0 + R[0, 0] + R[1, 1] + R[2, 2], 0.0))
    return np.array([w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w),
                     (R[1, 0] - R[0, 1]) / (4 * w)])


def initial_attitude(p: dict) -> np.ndarray:
    """The attitude (3, 3) at the start: turned by ``roll0`` about the long (x) axis."""
    c, s = math.cos(p["roll0"]), math.sin(p["roll0"])
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def angles(R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(pitch, roll)`` (rad) of attitudes ``R`` (n, 3, 3): the angles of the body's x and y
    axes to the table, ``asin(R[2, 0])`` and ``asin(R[2, 1])``."""
    return np.arcsin(R[:, 2, 0]), np.arcsin(R[:, 2, 1])


def _attitudes(r) -> np.ndarray:
    """The body's attitudes (n, 3, 3) at the rows of result ``r`` (from its quaternion)."""
    Q = np.stack([r[f"celt.q{c}"] for c in "wxyz"], axis=1)
    return np.array([_quat_matrix(q) for q in Q])


def build(**params) -> Model:
    """Build the rattleback on its table; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    from nonsmooth.errors import ModelError

    if p["mu_s"] < p["mu"]:
        raise ModelError(f"model {NAME}: mu_s = {p['mu_s']:g} must be >= mu = {p['mu']:g}")
    if p["h"] >= p["c"]:
        raise ModelError(f"model {NAME}: h = {p['h']:g} m must be < c = {p['c']:g} m (the centre"
                         " of mass inside the body, above its bottom)")
    if not p["A"] + p["B"] >= p["C"]:
        raise ModelError(f"model {NAME}: A + B = {p['A'] + p['B']:g} must be >= C = "
                         f"{p['C']:g} kg m^2 (the triangle inequality of principal moments)")
    K, R_eff = hertz_stiffness(p)
    d = (p["m"] * p["g"] / K) ** (2.0 / 3.0)  # Hertz's static penetration under the weight
    R0 = initial_attitude(p)
    omega = np.array([0.0, 0.0, p["omega0"]])
    r = contact_arm(p, R0)
    mdl = SpatialModel(NAME)
    celt = mdl.add(Body("celt", p["m"], inertia(p), position=(0.0, 0.0, -r[2] - d),
                        orientation=R0, velocity=-np.cross(omega, r), angular_velocity=omega))
    mdl.add(Contact("table", celt, Ellipsoid(p["a"], p["b"], p["c"], position=(0, 0, p["h"])),
                    ground, Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
                    normal=Hertz(E=p["E"], nu=p["nu"], radius=R_eff), restitution=p["e"],
                    mu=p["mu"], mu_s=p["mu_s"]))
    mdl.add(Gravity(p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()

    def slip(r):
        # the contact point's velocity: v + omega x (x_P - x_G), in the table's plane
        P = np.stack([r["table.x"], r["table.y"], r["table.z"]])
        G = np.stack([r["celt.x"], r["celt.y"], r["celt.z"]])
        w = np.stack([r["celt.wx_world"], r["celt.wy_world"], r["celt.wz_world"]])
        v = np.stack([r["celt.vx"], r["celt.vy"], r["celt.vz"]]) + np.cross(w, P - G, axis=0)
        return np.hypot(v[0], v[1])

    columns = {
        "spin": lambda r: r["celt.wz_world"],
        "pitch": lambda r: angles(_attitudes(r))[0],
        "roll": lambda r: angles(_attitudes(r))[1],
        "N": lambda r: r["table.N"],
        "F_t": lambda r: np.hypot(r["table.Fx"], r["table.Fy"]),
        "slip": slip,
    }
    outputs = {k: Output(columns[k], *OUTPUT_UNITS[k]) for k in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=2e-3, description=DESCRIPTION, plot_outputs=("spin", "pitch", "roll"),
                 motion_outputs=("spin", "pitch"))
