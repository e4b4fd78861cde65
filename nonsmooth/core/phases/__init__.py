"""The compiled smooth phases as templates over a family's right-hand side
``rhs(ctx, t, y, modes, faces, out, dy) -> status``: :mod:`.dop853` (adaptive) and the
fixed-step phase (``nonsmooth.planar.fixed_step``). A family instantiates a template in
source code of its own (a ``@njit(cache=True)`` entry point calling it with module-level
functions), the only pattern numba keeps cached across processes (``docs/seam.md`` section 6b)."""
