"""The model-independent core: the layouts every kernel and the Python path share.

Nothing here is imported eagerly (``import nonsmooth`` stays numba-free): import the modules
themselves, :mod:`nonsmooth.core.layout` (the state, the evaluation buffer, the stage constants)
and :mod:`nonsmooth.core.status` (the kernels' and phases' status codes). The core knows no
element kind and no model family (``tests/test_layering.py``).
"""
