"""The run: what ``simulate`` does between its checks and its result, one concept per module:
options and schedule (:mod:`.schedule`), the run's state, modes and events (:mod:`.state`), the
Python steppers and their loop (:mod:`.steppers`), a phase's chain of runners with the
compiled phases (:mod:`.phase`) and the one event loop (:mod:`.loop`). It calls a model family
only through ``Dynamics`` and ``family.CompiledFamily`` (``docs/architecture.md``)."""
