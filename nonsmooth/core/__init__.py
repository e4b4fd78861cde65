"""The engine's model-independent core (``docs/architecture.md``, "Model families and one
core"): compiled numerics that know no element kind and no space dimension, instantiated by
each model family. Nothing here is imported eagerly: ``import nonsmooth`` loads no numba."""
