"""The engine's model-independent core (``docs/architecture.md``, "Model families and one
core"): compiled numerics that know no element kind and no space dimension, instantiated by
each model family, and the layouts every kernel and the Python path share
(:mod:`nonsmooth.core.layout`: the state, the evaluation buffer, the stage constants;
:mod:`nonsmooth.core.status`: the kernels' and phases' status codes). Nothing here is imported
eagerly: ``import nonsmooth`` loads no numba (``tests/docs/test_layering.py``)."""
