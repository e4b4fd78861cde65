"""The spatial model family (issue 21, ``docs/spatial.md``): rigid bodies in 3-D with Euler
parameters (7 position and 6 velocity coordinates per body). Built so far: the rotation algebra
(:mod:`nonsmooth.spatial.rotation`)."""
