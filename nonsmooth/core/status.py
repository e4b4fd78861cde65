"""The status codes the kernels and the compiled phases return, as plain ints (one owner).

Three groups (``tests/core/test_layout.py`` checks that each equals its kernel module's constant):

* **evaluation statuses** of ``kernels.planar_evaluate`` / ``acceleration_stage`` and a
  generated module's ``evaluate``: :data:`OK`, :data:`SINGULAR` (the KKT matrix),
  :data:`JAMMED` (the load equation), :data:`COINCIDENT` (a spring's two points; its row in
  ``out[0]``), :data:`UNCERTIFIED` (the loads' uniqueness), :data:`NONFINITE` (a user value or
  the state), :data:`NO_LOAD` (a radial load did not converge), and the internal
  :data:`GENERAL` (the runtime-free evaluation needs the allocating general path); the element
  error code :data:`ERR_COINCIDENT` of ``planar_terms``;
* **DOP853 phase statuses** of ``dop853.planar_dop853_phase``: ``DOP853_DONE`` ... (the names
  of :data:`DOP853_STATUSES`, as ``dop853.DONE`` ...);
* **fixed-step phase statuses** of ``fixed_step`` (``_fixed_phase_with`` and its
  instantiations): ``FIXED_DONE`` ... (:data:`FIXED_STATUSES`, as ``fixed_step.DONE`` ...).

The two phase groups share names with different values (``DECLINED`` is 4 in DOP853, 3 in the
fixed-step phase), hence the prefixes.
"""

from __future__ import annotations

__all__ = [
    "OK", "SINGULAR", "JAMMED", "COINCIDENT", "UNCERTIFIED", "NONFINITE", "NO_LOAD", "GENERAL",
    "EVALUATION_STATUSES", "ERR_COINCIDENT",
    "DOP853_DONE", "DOP853_EVENT", "DOP853_PAUSE", "DOP853_FULL", "DOP853_DECLINED",
    "DOP853_TOO_SMALL", "DOP853_BUDGET", "DOP853_STATUSES",
    "FIXED_DONE", "FIXED_EVENT", "FIXED_PAUSE", "FIXED_DECLINED", "FIXED_BUDGET",
    "FIXED_STATUSES",
]

#: Evaluation statuses.
OK, SINGULAR, JAMMED, COINCIDENT, UNCERTIFIED, NONFINITE, NO_LOAD = 0, 1, 2, 3, 4, 5, 6
#: Internal evaluation status: the general path (LAPACK) takes the evaluation.
GENERAL = 7
#: The names of the evaluation statuses, by value.
EVALUATION_STATUSES = ("OK", "SINGULAR", "JAMMED", "COINCIDENT", "UNCERTIFIED", "NONFINITE",
                       "NO_LOAD", "GENERAL")
#: Element error code of ``planar_terms`` (second return value; the element row the first).
ERR_COINCIDENT = 1

#: DOP853 phase statuses: ``t_end`` reached, an event, a pause (clock, progress), the output
#: buffer full, an evaluation declined, a step below round-off, the budget nearly spent.
DOP853_DONE, DOP853_EVENT, DOP853_PAUSE, DOP853_FULL = 0, 1, 2, 3
DOP853_DECLINED, DOP853_TOO_SMALL, DOP853_BUDGET = 4, 5, 6
DOP853_STATUSES = ("DONE", "EVENT", "PAUSE", "FULL", "DECLINED", "TOO_SMALL", "BUDGET")

#: Fixed-step phase statuses: the phase's end reached, an event, a pause, a step declined, the
#: budget nearly spent.
FIXED_DONE, FIXED_EVENT, FIXED_PAUSE, FIXED_DECLINED, FIXED_BUDGET = 0, 1, 2, 3, 4
FIXED_STATUSES = ("DONE", "EVENT", "PAUSE", "DECLINED", "BUDGET")
