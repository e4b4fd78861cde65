"""Shared test set-up: the independent reference computations in this folder are importable."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
