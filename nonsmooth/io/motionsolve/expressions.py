"""The ``Post_Request`` expression compiler: MotionSolve expressions as output functions.

:class:`Expression` compiles one ``expr<k>`` text into ``fn(kinematics) -> ndarray`` (values
in the model's units, over the output times of a run; ``kinematics`` is a
:class:`~.kinematics.MarkerKinematics`) and the unit text of its value, or None when the unit
cannot be told (a product of two measures ...). Expressions may combine numbers, ``PI``,
``TIME``, ``+ - * / **``, ``ABS SIN COS TAN ASIN ACOS ATAN ATAN2 SQRT EXP LOG LOG10 SINH COSH
TANH MIN MAX SIGN`` and the measures

* ``DX, DY, DZ(I[, J[, K]])``: displacement of marker I relative to J along K's axes,
  ``DM(I[, J])``;
* ``VX, VY, VZ(I[, J[, K[, L]]])``: velocity of I relative to J (time derivative in the ground
  frame, ``L = 0`` only) along K's axes, ``VM(I[, J])``;
* ``WX, WY, WZ(I[, J[, K]])``: angular velocity of I relative to J along K's axes, ``WM(I[, J])``;
* ``FRICTION(id, comp)``: of ``Force_JointFriction id`` -- 1-3 friction force along the J marker
  axes (on the I body), 4-6 friction torque about them, 7-9 translational and 10-12 rotational
  friction coefficient (``|friction| / N`` along the axis, ``N`` the joint's normal load as the
  law sees it -- reaction, bending and preload terms --, the torque's friction force
  ``|T . axis| / (r N)`` with ``r`` the pin or ball radius: our reading), 13-15 translational
  slip velocity, 16-18 rotational slip velocity (``pin_radius * w``, length/time, as the LuGre
  law sees it: our reading). The run's kinematics gives the 18 components in SI
  (``friction_components``: the planar :class:`~.kinematics.MarkerKinematics` from the pair,
  the spatial :class:`~.spatial_kinematics.SpatialMarkerKinematics` from the joint's friction
  outputs in its joint frame, turned into the J marker's axes).

J, K default to the ground origin and the global axes (marker 0). The text is parsed by Python's
:mod:`ast` (upper-cased, backquotes removed); anything else is a
:class:`~nonsmooth.errors.ModelError` naming the request, the attribute and the text.

Reference: Altair MotionSolve Reference Guide, XML format (Post_Request) and its functions
DX, VX, WZ, FRICTION.
"""

from __future__ import annotations

import ast
import math

import numpy as np

from .units import FORCE, LENGTH, NONE, RATE, TIME, TORQUE, VELOCITY

__all__ = ["Expression", "MATH_FUNCTIONS", "MEASURES"]

#: name: (number of arguments, numpy function, keeps the unit of its first argument)
MATH_FUNCTIONS = {
    "ABS": (1, np.abs, True), "SIN": (1, np.sin, False), "COS": (1, np.cos, False),
    "TAN": (1, np.tan, False), "ASIN": (1, np.arcsin, False), "ACOS": (1, np.arccos, False),
    "ATAN": (1, np.arctan, False), "ATAN2": (2, np.arctan2, False), "SQRT": (1, np.sqrt, False),
    "EXP": (1, np.exp, False), "LOG": (1, np.log, False), "LOG10": (1, np.log10, False),
    "SINH": (1, np.sinh, False), "COSH": (1, np.cosh, False), "TANH": (1, np.tanh, False),
    "MIN": (2, np.minimum, True), "MAX": (2, np.maximum, True),
    "SIGN": (2, lambda a, b: np.abs(a) * np.where(np.asarray(b) >= 0, 1.0, -1.0), True),
}
#: name: (dimension, numerator, min args, max args)
MEASURES = {
    **{f"D{c}": (LENGTH, "", 1, 3) for c in "XYZ"}, "DM": (LENGTH, "", 1, 2),
    **{f"V{c}": (VELOCITY, "", 1, 4) for c in "XYZ"}, "VM": (VELOCITY, "", 1, 3),
    **{f"W{c}": (RATE, "rad", 1, 3) for c in "XYZ"}, "WM": (RATE, "rad", 1, 2),
}
#: the dimension of each FRICTION component 1 .. 18
FRICTION_DIMS = [FORCE] * 3 + [TORQUE] * 3 + [NONE] * 6 + [VELOCITY] * 6

_BINARY = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.divide,
           ast.Pow: np.power}


def _binary_unit(node: ast.BinOp, ua, ub):
    """The unit of ``a op b``: kept by a sum of equal units and by scaling with a number."""
    if isinstance(node.op, (ast.Add, ast.Sub)):
        return ua if ua == ub else None
    if isinstance(node.op, ast.Mult):
        if ub is None and isinstance(node.right, ast.Constant):
            return ua
        return ub if ua is None and isinstance(node.left, ast.Constant) else None
    if isinstance(node.op, ast.Div):
        return ua if isinstance(node.right, ast.Constant) else None
    return None


def _measure_function(kind, comp, i, j, kk, scale):
    """``fn(kinematics)`` of a D/V/W measure of marker i relative to j along kk's axes."""

    def measure(k):
        if kind == "D":
            vec = k.position(i) - k.position(j)
        elif kind == "V":
            vec = k.velocity(i) - k.velocity(j)
        else:
            vec = k.omega(i) - k.omega(j)
        if comp == "M":
            return np.linalg.norm(vec, axis=1) / scale
        axis = k.axes(kk)[:, :, "XYZ".index(comp)]
        return np.einsum("ij,ij->i", vec, axis) / scale

    return measure


class Expression:
    """Compile one MotionSolve expression into ``fn(kinematics) -> ndarray`` (model units).

    ``e`` is the Post_Request :class:`~.element.Element` (for messages), ``attr`` the attribute
    (``expr1`` ...), ``info`` the :class:`~.records.MotionSolveModel` it refers to.
    """

    def __init__(self, e, attr: str, text: str, info):
        self.e, self.attr, self.text, self.info = e, attr, text, info

    def error(self, message):
        return self.e.error(f"{self.attr} = {self.text!r}: {message}")

    def compile(self):
        """``(fn, unit)``: the function of a :class:`~.kinematics.MarkerKinematics` and the
        unit text of its value (None: not known)."""
        src = self.text.replace("`", "").strip().upper()
        try:
            tree = ast.parse(src, mode="eval")
        except SyntaxError:
            raise self.error("cannot parse the expression") from None
        return self._node(tree.body)

    # ---------------------------------------------------------------- syntax
    def _node(self, node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            value = float(node.value)
            return (lambda k: value), None
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            fn, unit = self._node(node.operand)
            sign = -1.0 if isinstance(node.op, ast.USub) else 1.0
            return (lambda k: sign * fn(k)), unit
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            return self._call(node.func.id, node.args)
        raise self.error("unsupported syntax")

    def _name(self, name):
        if name == "PI":
            return (lambda k: math.pi), None
        if name == "TIME":
            units = self.info.units
            scale = units.factor(TIME)
            return (lambda k: k.t / scale), units.label(TIME)
        raise self.error(f"unknown name {name}; known: PI, TIME")

    def _binary(self, node: ast.BinOp):
        op = _BINARY.get(type(node.op))
        if op is None:
            raise self.error("only + - * / ** are supported")
        fa, ua = self._node(node.left)
        fb, ub = self._node(node.right)
        return (lambda k: op(fa(k), fb(k))), _binary_unit(node, ua, ub)

    def _int_arg(self, node, fname):
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        raise self.error(f"{fname}: the arguments must be integer ids")

    def _marker(self, mid, fname):
        if mid not in self.info.markers:
            raise self.error(f"{fname}: marker {mid} refers to no Reference_Marker")
        return mid

    # ---------------------------------------------------------------- functions
    def _call(self, fname, args):
        if fname in MATH_FUNCTIONS:
            return self._math(fname, args)
        if fname in MEASURES:
            return self._measure(fname, args)
        if fname == "FRICTION":
            return self._friction(args)
        raise self.error(f"unknown function {fname}; supported: {', '.join(MEASURES)}, "
                         f"FRICTION, {', '.join(MATH_FUNCTIONS)}")

    def _math(self, fname, args):
        nargs, fn, keeps_unit = MATH_FUNCTIONS[fname]
        if len(args) != nargs:
            raise self.error(f"{fname} takes {nargs} argument(s)")
        compiled = [self._node(a) for a in args]
        fns = [c[0] for c in compiled]
        unit = compiled[0][1] if keeps_unit else None
        return (lambda k: fn(*(f(k) for f in fns))), unit

    def _measure(self, fname, args):
        units = self.info.units
        dim, numerator, lo, hi = MEASURES[fname]
        if not lo <= len(args) <= hi:
            raise self.error(f"{fname} takes {lo} to {hi} marker ids")
        ids = [self._marker(self._int_arg(a, fname), fname) for a in args]
        if fname[0] == "V" and len(ids) == (4 if fname != "VM" else 3) and ids[-1] != 0:
            raise self.error(f"{fname}: only velocities seen from the ground (L = 0) are "
                             "supported")
        i = ids[0]
        j = ids[1] if len(ids) > 1 else 0
        kk = ids[2] if len(ids) > 2 and fname[1] != "M" else 0
        fn = _measure_function(fname[0], fname[1], i, j, kk, units.factor(dim))
        return fn, units.label(dim, numerator)

    def _friction(self, args):
        units = self.info.units
        if len(args) != 2:
            raise self.error("FRICTION takes (id, component)")
        fid, comp = (self._int_arg(a, "FRICTION") for a in args)
        match = [f for f in self.info.frictions.values() if f.id == fid]
        if not match:
            raise self.error(f"FRICTION: {fid} refers to no Force_JointFriction")
        if not 1 <= comp <= 18:
            raise self.error(f"FRICTION: component {comp} is out of range; allowed: 1 to 18")
        fr = match[0]
        joint = self.info.joints[fr.joint]
        dim = FRICTION_DIMS[comp - 1]
        scale = units.factor(dim)

        def friction(k):
            return k.friction_components(joint, fr.values)[:, comp - 1] / scale

        return friction, units.label(dim)
