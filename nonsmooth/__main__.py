"""``python -m nonsmooth``: the command line."""

from .cli import main

raise SystemExit(main())
