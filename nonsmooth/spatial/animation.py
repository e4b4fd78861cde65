"""Animations of spatial results (``docs/design/spatial.md`` section 7, step 4): matplotlib 3-D
frames (``mpl_toolkits.mplot3d``, drawn off screen on the Agg canvas: no display, no pyplot) written
as a GIF (``matplotlib.animation.PillowWriter``; Pillow comes with matplotlib) or an MP4
(``FFMpegWriter``, when an ``ffmpeg`` executable is found).

What a frame shows, from the recorded motion (``result.sol``, the dense output, at the frame
times; the Euler parameters normalized):

* every body's centre of mass (a dot, labelled with the body's name);
* for every joint, a line from the joint point (as carried by each of its two bodies) to the
  centre of that body, and a ring at the joint point on ``body_b``; a joint on the ground draws
  its fixed point;
* optionally (``triads=True``) every body's axes: red x, green y, blue z;
* every contact shape (``nonsmooth.contact``) as a wire outline moving with its body: a
  sphere's three great circles, a box's edges, a plane's square (:func:`shape_outline`);
* optionally (``trace=True``) the path of every centre of mass up to the frame;
* the time ``t = ... s`` in the corner (it also keeps consecutive frames distinct, so the GIF
  has exactly one image per frame time).

The frame times are ``t0 + k speed / fps``, ``k = 0 .. floor((t_end - t0) fps / speed)``: a
1 s run at ``fps = 30`` has 31 frames.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np

from nonsmooth.errors import ModelError

from . import rotation as rot

#: The file suffixes :func:`animate` writes, and the writer of each.
FORMATS = {".gif": "pillow", ".mp4": "ffmpeg"}

#: The most frames :func:`animate` draws (each is one matplotlib render, ~20-50 ms).
MAX_FRAMES = 5000


def spatial_system(obj):
    """The :class:`~nonsmooth.spatial.SpatialSystem` of a result or model, or a
    :class:`~nonsmooth.errors.ModelError` saying that only spatial results are animated."""
    model = getattr(obj, "model", obj)  # a Result's model, else the model itself
    system = getattr(model, "system", model)
    if not hasattr(system, "kernel_key") and callable(getattr(model, "compile", None)):
        system = model.compile()  # a builder (a SpatialModel)
    # (the spatial family's system by its kernels' key: this module is the model's, which it
    # must not import back)
    if getattr(system, "kernel_key", lambda: None)() != "nonsmooth.spatial.kernels":
        name = getattr(model, "name", type(model).__name__)
        raise ModelError(f"cannot animate '{name}': animations are drawn for spatial models "
                         "(nonsmooth.spatial) only; plot a planar result with result.plot()")
    return system


def check_path(path) -> Path:
    """``path`` as a :class:`~pathlib.Path` if an animation can be written there (a ``.gif``
    or, with ffmpeg installed, ``.mp4`` suffix; an existing folder), else a
    :class:`~nonsmooth.errors.ModelError` naming the problem."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in FORMATS:
        raise ModelError(f"cannot write an animation to {path}: unknown format {p.suffix!r}; "
                         f"name the file with one of {', '.join(FORMATS)}")
    if suffix == ".mp4" and shutil.which("ffmpeg") is None:
        raise ModelError(f"cannot write {path}: MP4 needs the ffmpeg executable, which is not "
                         "installed; write a .gif instead")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise ModelError(f"cannot write the animation to {path}: the folder {folder} does not "
                         "exist; create it first")
    return p


def check_frames(t0: float, t_end: float, fps: float = 30.0, speed: float = 1.0) -> int:
    """The number of frames of an animation of ``[t0, t_end]`` (s) at ``fps`` and ``speed``
    (both > 0), or a :class:`~nonsmooth.errors.ModelError` when it is above
    :data:`MAX_FRAMES` (checked before a run: the command line's ``--animate``)."""
    if not (fps > 0 and math.isfinite(fps)) or not (speed > 0 and math.isfinite(speed)):
        raise ModelError(f"animate: fps = {fps!r} and speed = {speed!r} must be positive")
    n = frame_count(t0, t_end, fps, speed)
    if n > MAX_FRAMES:
        longest = (MAX_FRAMES - 1) * speed / fps
        raise ModelError(f"animate: {n} frames for t = {t0:g} .. {t_end:g} s at {fps:g} frames "
                         f"per second and speed {speed:g} (at most {MAX_FRAMES}: each is one "
                         f"render); animate at most {longest:g} s of motion, or lower fps or "
                         "raise speed (result.animate(path, fps, speed=...))")
    return n


def frame_count(t0: float, t_end: float, fps: float = 30.0, speed: float = 1.0) -> int:
    """The number of frames of :func:`frame_times`."""
    return int(math.floor((t_end - t0) * fps / speed + 1e-9)) + 1


def frame_times(t0: float, t_end: float, fps: float, speed: float = 1.0) -> np.ndarray:
    """The frame times (s), shape (n,): ``t0 + k speed / fps`` up to ``t_end``."""
    n = frame_count(t0, t_end, fps, speed)
    return t0 + np.arange(n) * (speed / fps)


def _poses(result, system, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centres (n, N, 3, m) and rotations (n, N, 3, 3) of the N bodies at the frame times."""
    N = system.n_bodies
    if len(result.t) > 1:
        q = np.asarray(result.sol(times))[:7 * N].T.reshape(len(times), N, 7)
    else:
        q = np.repeat(result.q[:1, :7 * N], len(times), axis=0).reshape(len(times), N, 7)
    p = q[:, :, 3:] / np.linalg.norm(q[:, :, 3:], axis=2, keepdims=True)
    R = rot.rotation_matrices(p).reshape(
        len(times), N, 3, 3)
    return q[:, :, :3].copy(), R


def _joint_points(system, c: np.ndarray, R: np.ndarray) -> list[tuple]:
    """Per joint: ``(P_a (n, 3), i_a, P_b (n, 3), i_b)``, the joint point as carried by each
    body (world, m; ``i = -1`` for the ground, then the point is fixed)."""
    index = {id(b): i for i, b in enumerate(system.model.bodies)}
    out = []
    for j in system.model.joints:
        ends = []
        for body in (j.body_a, j.body_b):
            i = index.get(id(body), -1)
            s = body.local_point(j.point)
            P = (np.broadcast_to(s, (len(c), 3)) if i < 0
                 else c[:, i] + np.einsum("kij,j->ki", R[:, i], s))
            ends += [P, i]
        out.append(tuple(ends))
    return out


def _circle(u: np.ndarray, w: np.ndarray, r1: float, r2: float, centre=(0.0, 0.0, 0.0),
            n: int = 33) -> np.ndarray:
    """The ellipse ``centre + r1 cos(s) u + r2 sin(s) w`` (n, 3)."""
    s = np.linspace(0.0, 2.0 * math.pi, n)[:, None]
    return np.asarray(centre) + r1 * np.cos(s) * u + r2 * np.sin(s) * w


def shape_outline(shape, extent: float = 1.0) -> list[np.ndarray]:
    """A contact shape's wire outline in its body's frame: polylines ``(k, 3)`` (m): a
    sphere's or an ellipsoid's three principal circles, a box's twelve edges, a capsule's or
    cylinder's end circles and four lines along it, a plane's square of side ``2 extent``
    around its point (with its diagonals); a solid shape about its ``position``."""
    lines = _outline(shape, extent)
    offset = np.asarray(shape.position, dtype=float)
    return [line + offset for line in lines] if np.any(offset) else lines


def _outline(shape, extent: float) -> list[np.ndarray]:
    """:func:`shape_outline` in the shape's own frame."""
    from ..contact import shapes as sh

    e = np.eye(3)
    if isinstance(shape, sh.Sphere):
        r = shape.radius
        return [_circle(e[i], e[(i + 1) % 3], r, r) for i in range(3)]
    if isinstance(shape, sh.Ellipsoid):
        ax = (shape.a, shape.b, shape.c)
        return [_circle(e[i], e[(i + 1) % 3], ax[i], ax[(i + 1) % 3]) for i in range(3)]
    if isinstance(shape, sh.Box):
        h = np.asarray(shape.half_extents, dtype=float)
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1)
                            for sz in (-1, 1)], dtype=float) * h
        return [np.array([corners[i], corners[j]]) for i in range(8) for j in range(i + 1, 8)
                if np.count_nonzero(corners[i] != corners[j]) == 1]
    if isinstance(shape, (sh.Capsule, sh.Cylinder)):
        r, z = shape.radius, 0.5 * shape.length
        out = [_circle(e[0], e[1], r, r, (0.0, 0.0, zz)) for zz in (-z, z)]
        out += [np.array([[r * cx, r * cy, -z], [r * cx, r * cy, z]])
                for cx, cy in ((1, 0), (0, 1), (-1, 0), (0, -1))]
        if isinstance(shape, sh.Capsule):  # the caps' half circles
            out += [_circle(e[0], e[2], r, r, (0.0, 0.0, zz))[(slice(0, 17) if zz > 0 else
                                                                slice(16, 33))]
                    for zz in (-z, z)]
        return out
    if isinstance(shape, sh.Plane):
        n = np.asarray(shape.normal, dtype=float)
        u = np.cross(n, e[int(np.argmin(np.abs(n)))])
        u /= np.linalg.norm(u)
        w = np.cross(n, u)
        P = np.asarray(shape.point, dtype=float)
        sq = [P + extent * (a * u + b * w) for a, b in ((1, 1), (-1, 1), (-1, -1), (1, -1),
                                                          (1, 1))]
        return [np.array(sq), np.array([sq[0], sq[2]]), np.array([sq[1], sq[3]])]
    return []  # (planar shapes: not in a spatial model)


def _contact_outlines(system, c: np.ndarray, R: np.ndarray, extent: float) -> list[np.ndarray]:
    """Every contact shape's outline at every frame: polylines ``(n, k, 3)`` (world, m)."""
    index = {id(b): i for i, b in enumerate(system.model.bodies)}
    out = []
    for contact in getattr(system.model, "contacts", ()):
        for body, shape in ((contact.body_a, contact.shape_a), (contact.body_b, contact.shape_b)):
            i = index.get(id(body), -1)
            for line in shape_outline(shape, extent):
                out.append(np.broadcast_to(line, (len(c), *line.shape)) if i < 0 else
                           c[:, i, None, :] + np.einsum("kij,lj->kli", R[:, i], line))
    return out


def animate(result, path, fps: float = 30.0, *, speed: float = 1.0, triads: bool = True,
            trace: bool = False, triad_length: float | None = None,
            elev: float = 20.0, azim: float = -60.0, size: tuple = (6.0, 6.0),
            dpi: int = 80, title: str | None = None) -> Path:
    """Draw a spatial result's motion frame by frame and write it to ``path``.

    Parameters
    ----------
    result : Result
        Of a spatial model (:mod:`nonsmooth.spatial`); anything else is refused with a
        :class:`~nonsmooth.errors.ModelError`.
    path : str or Path
        ``.gif`` (Pillow) or ``.mp4`` (ffmpeg, if installed); its folder must exist.
    fps : float
        Frames per second of the file (1/s), > 0.
    speed : float
        Simulated seconds per second of the animation (> 0; 0.25: four times slower).
    triads : bool
        Draw every body's axes (x red, y green, z blue).
    trace : bool
        Draw the path of every centre of mass up to the frame.
    triad_length : float, optional
        Length of the axes drawn (m); default a fifth of the largest joint-to-centre distance
        (or a tenth of the scene without joints).
    elev, azim : float
        The view (degrees, ``Axes3D.view_init``).
    size : (float, float)
        Figure size (inches); with ``dpi`` the frame is ``size * dpi`` pixels.
    dpi : int
    title : str, optional
        Default: the model's name.

    Returns
    -------
    Path
        The file written: ``len(frame_times(...))`` frames.
    """
    system = spatial_system(result)
    p = check_path(path)
    check_frames(float(result.t[0]), float(result.t[-1]), fps, speed)
    times = frame_times(float(result.t[0]), float(result.t[-1]), fps, speed)
    from matplotlib import animation
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    bodies = system.model.bodies
    c, R = _poses(result, system, times)
    joints = _joint_points(system, c, R)
    # the scene: every centre, joint point and contact shape (its plane a square the size of
    # the motion) over the run, a cube around them
    pts = [c.reshape(-1, 3)] + [P for (Pa, _, Pb, _) in joints for P in (Pa, Pb)]
    reach = float(np.ptp(np.concatenate(pts), axis=0).max()) if len(c) else 0.0
    outlines = _contact_outlines(system, c, R, max(0.5 * reach, _shape_size(system)))
    cloud = np.concatenate(pts + [o.reshape(-1, 3) for o in outlines])
    arms = [float(np.max(np.linalg.norm(P - c[:, i], axis=1)))
            for (Pa, ia, Pb, ib) in joints for P, i in ((Pa, ia), (Pb, ib)) if i >= 0]
    lo, hi = cloud.min(axis=0), cloud.max(axis=0)
    span = float(np.max(hi - lo))
    if triad_length is None:
        triad_length = 0.2 * max(arms) if arms and max(arms) > 0 else 0.1 * max(span, 1e-3)
    half = 0.5 * max(span, 2 * triad_length, 1e-3) + triad_length
    mid = 0.5 * (lo + hi)

    fig = Figure(figsize=size, dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(projection="3d")
    ax.view_init(elev=elev, azim=azim)
    for k, set_lim in enumerate((ax.set_xlim, ax.set_ylim, ax.set_zlim)):
        set_lim(mid[k] - half, mid[k] + half)
    ax.set_box_aspect((1.0, 1.0, 1.0))
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_zlabel("z [m]")
    ax.set_title(title if title is not None else getattr(result.model, "name", ""))
    scene = _Scene(fig, ax, [b.name for b in bodies], joints, c, R, triads, trace,
                   triad_length, outlines)
    writer = (animation.PillowWriter(fps=fps) if FORMATS[p.suffix.lower()] == "pillow"
              else animation.FFMpegWriter(fps=fps))
    with writer.saving(fig, str(p), dpi):
        for k, t in enumerate(times):
            scene.update(k, t)
            writer.grab_frame()
    return p


def _shape_size(system) -> float:
    """The largest size (m) of the model's contact shapes but planes (a plane's square is at
    least twice it)."""
    size = 0.0
    for contact in getattr(system.model, "contacts", ()):
        for shape in (contact.shape_a, contact.shape_b):
            pts = [p for line in shape_outline(shape, 0.0) for p in line]
            if pts and type(shape).__name__ != "Plane":
                size = max(size, float(np.max(np.linalg.norm(pts, axis=1))))
    return 2.0 * size


def _set(line, P, Q) -> None:
    """A 3-D line artist from point P to point Q (world, m)."""
    line.set_data_3d([P[0], Q[0]], [P[1], Q[1]], [P[2], Q[2]])


class _Scene:
    """The artists of one animation and their update to frame ``k``."""

    def __init__(self, fig, ax, names, joints, c, R, triads, trace, triad_length, outlines=()):
        self.joints, self.c, self.R = joints, c, R
        self.outlines = outlines
        self.shapes = [ax.plot([], [], [], "-", color="C2", lw=0.8)[0] for _ in outlines]
        self.triad_length = triad_length
        self.links = [ax.plot([], [], [], "-", color="0.3", lw=2)[0]
                      for (_, ia, _, ib) in joints for i in (ia, ib) if i >= 0]
        self.rings = [ax.plot([], [], [], "o", mfc="none", mec="k", ms=7)[0] for _ in joints]
        self.dots = [ax.plot([], [], [], "o", color="C0", ms=6)[0] for _ in names]
        self.labels = [ax.text(*c[0, i], f"  {name}", fontsize=7) for i, name in
                       enumerate(names)]
        self.axes = [[ax.plot([], [], [], "-", color=col, lw=1)[0] for col in "rgb"]
                     for _ in names] if triads else []
        self.paths = [ax.plot([], [], [], "-", color="C1", lw=0.8, alpha=0.6)[0]
                      for _ in names] if trace else []
        self.clock = fig.text(0.02, 0.02, "", fontsize=9, family="monospace")

    def update(self, k: int, t: float) -> None:
        c, R = self.c, self.R
        links = iter(self.links)
        for (Pa, ia, Pb, ib), ring in zip(self.joints, self.rings, strict=True):
            for P, i in ((Pa, ia), (Pb, ib)):
                if i >= 0:
                    _set(next(links), P[k], c[k, i])
            ring.set_data_3d([Pb[k, 0]], [Pb[k, 1]], [Pb[k, 2]])
        for i, dot in enumerate(self.dots):
            dot.set_data_3d([c[k, i, 0]], [c[k, i, 1]], [c[k, i, 2]])
            self.labels[i].set_position_3d(c[k, i])
        for i, lines in enumerate(self.axes):
            for a, line in enumerate(lines):
                _set(line, c[k, i], c[k, i] + self.triad_length * R[k, i, :, a])
        for i, line in enumerate(self.paths):
            line.set_data_3d(c[:k + 1, i, 0], c[:k + 1, i, 1], c[:k + 1, i, 2])
        for outline, line in zip(self.outlines, self.shapes, strict=True):
            line.set_data_3d(outline[k, :, 0], outline[k, :, 1], outline[k, :, 2])
        self.clock.set_text(f"t = {t:8.3f} s")
