"""The run: what ``simulate`` does between its checks and its result, one concept per module:
the integrators, one ``Method`` each (:mod:`.methods`: where a new integrator goes), options
and schedule (:mod:`.schedule`), the run's state (:mod:`.state`) with its recording
(:mod:`.recording`) and its modes and events (:mod:`.modes`), the Python steppers and their
loop (:mod:`.steppers`), a phase's chain of runners with the compiled phases (:mod:`.phase`)
and the one event loop (:mod:`.loop`). It calls a model family only through ``Dynamics`` and
``family.CompiledFamily`` (``docs/architecture.md``)."""
