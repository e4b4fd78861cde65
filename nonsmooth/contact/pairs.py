"""Contacts for many shapes at once: :func:`contacts` makes a :class:`~nonsmooth.contact.
element.Contact` for every pair of shapes that can touch (a collision filter at build time),
as a scene with more than a few shapes needs."""

from __future__ import annotations

from itertools import combinations

from ..errors import ModelError
from .element import Contact
from .geometry import supported
from .shapes import Shape

__all__ = ["contacts"]


def _shapes_of(shapes) -> list[tuple[object, Shape]]:
    """``[(body, shape)]`` from ``{body: shape or [shapes]}`` or ``[(body, shape)]``."""
    items = shapes.items() if isinstance(shapes, dict) else shapes
    out = []
    for body, shape in items:
        for s in (shape if isinstance(shape, (list, tuple)) else (shape,)):
            if not isinstance(s, Shape):
                raise ModelError(f"contacts: {s!r} (on {getattr(body, 'name', body)!r}) is not "
                                 "a contact shape (nonsmooth.contact.Sphere, Box, Plane, ...)")
            out.append((body, s))
    return out


def contacts(model, shapes, *, exclude="joined", prefix: str = "", **contact) -> list[Contact]:
    """Add a :class:`Contact` for every pair of ``shapes`` on two different bodies that has a
    closed-form geometry, except the excluded pairs; returns them.

    Parameters
    ----------
    model
        A model with ``add`` and ``joints`` (``nonsmooth.spatial.SpatialModel``); its bodies
        and ground as the keys of ``shapes``.
    shapes : dict or sequence
        ``{body: shape or [shapes]}`` (or ``[(body, shape), ...]``), each shape in its body's
        frame; the ground's shapes (a ``Plane``) under the model's ground.
    exclude : "joined", None or sequence of (body, body)
        ``"joined"`` (default): no contact between two bodies that a joint connects (a link's
        shapes overlap its neighbours' at the joint); None: none excluded; or the pairs of
        bodies to leave out (with ``"joined"``'s: give ``("joined", [(a, b), ...])``).
    prefix : str
        Prefixes the contacts' names, ``<prefix><body_a>-<body_b>`` (``#k`` after it when two
        bodies have several pairs of shapes).
    **contact
        The :class:`Contact` arguments every contact takes (``normal=``, ``restitution=``,
        ``mu=``, ...).

    Raises
    ------
    ModelError
        A shape that is not one, an ``exclude`` that is not one of these; a contact's own
        errors (its law, its coefficients).
    """
    items = _shapes_of(shapes)
    skip: set[frozenset] = set()
    if isinstance(exclude, tuple) and len(exclude) == 2 and exclude[0] == "joined":
        joined, given = True, exclude[1]
    elif exclude == "joined":
        joined, given = True, ()
    elif exclude is None:
        joined, given = False, ()
    else:
        joined, given = False, exclude
    try:
        skip |= {frozenset((id(a), id(b))) for a, b in given}
    except (TypeError, ValueError):
        raise ModelError(f"contacts: exclude = {exclude!r} is invalid; give 'joined', None or "
                         "pairs of bodies [(a, b), ...]") from None
    if joined:
        for j in getattr(model, "joints", ()):
            bodies = j.bodies()
            skip |= {frozenset((id(a), id(b))) for a, b in combinations(bodies, 2)}
    made, count = [], {}
    for (ba, sa), (bb, sb) in combinations(items, 2):
        if ba is bb or frozenset((id(ba), id(bb))) in skip or sa.planar != sb.planar:
            continue
        if not supported(sa.kind, sb.kind):
            continue
        base = f"{prefix}{getattr(ba, 'name', 'ground')}-{getattr(bb, 'name', 'ground')}"
        count[base] = count.get(base, 0) + 1
        made.append((base, ba, sa, bb, sb))
    seen: dict[str, int] = {}
    out = []
    for base, ba, sa, bb, sb in made:
        k = seen.get(base, 0)
        seen[base] = k + 1
        name = base if count[base] == 1 else f"{base}#{k}"
        out.append(model.add(Contact(name, ba, sa, bb, sb, **contact)))
    return out
