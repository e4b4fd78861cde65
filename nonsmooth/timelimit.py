"""A wall-clock limit on a block of Python code that may never return (a model's ``build()``):
:class:`time_limit`.

In the main thread of a POSIX process the limit is a ``SIGALRM`` timer (``signal.setitimer``):
it interrupts Python code and sleeps. Elsewhere (a Dask worker's thread, Windows) a timer thread
raises the interrupt in the limited thread (``PyThreadState_SetAsyncExc``), which takes effect
in Python code only, not inside a blocking call. Either way the block ends with
:class:`~nonsmooth.errors.BuildTimeoutError`; a block that returns late without being
interrupted fails with it too.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time

from .errors import BuildTimeoutError

__all__ = ["time_limit"]


class _Expired(BaseException):
    """The interrupt raised in the limited code: a BaseException, so that the code's own
    ``except Exception`` does not swallow it; :class:`time_limit` turns it into a
    :class:`BuildTimeoutError`."""


class time_limit:  # noqa: N801 - used as a function: ``with time_limit(5, "..."):``
    """``with time_limit(seconds, message):`` raise ``BuildTimeoutError(message)`` when the
    block runs longer than ``seconds`` (None: no limit).

    Parameters
    ----------
    seconds : float or None   the limit (s), > 0
    message : str             the error's message
    """

    def __init__(self, seconds: float | None, message: str):
        self.seconds, self.message = seconds, message
        self._armed = False
        self._expired = False
        self._timer: threading.Timer | None = None
        self._previous = None
        self._lock = threading.Lock()

    def __enter__(self) -> time_limit:
        if self.seconds is None:
            return self
        self._start = time.perf_counter()
        self._armed = True
        if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGALRM, self._on_alarm)
            self._outer = signal.setitimer(signal.ITIMER_REAL, self.seconds)
        else:
            self._thread = threading.get_ident()
            self._timer = threading.Timer(self.seconds, self._fire)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _on_alarm(self, signum, frame) -> None:
        if self._armed:
            self._expired = True
            raise _Expired

    def _fire(self) -> None:  # in the timer thread
        with self._lock:
            if self._armed:
                self._expired = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread),
                                                           ctypes.py_object(_Expired))

    def __exit__(self, exc_type, exc, tb) -> bool:
        if self.seconds is None:
            return False
        with self._lock:
            self._armed = False
        if self._timer is not None:
            self._timer.cancel()
            if self._expired and exc_type is not _Expired:  # raised but not yet delivered
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread), None)
        else:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)
            delay, interval = self._outer
            if delay:  # an outer timer was running: it goes on
                spent = time.perf_counter() - self._start
                signal.setitimer(signal.ITIMER_REAL, max(delay - spent, 1e-6), interval)
        late = time.perf_counter() - self._start > self.seconds
        if exc_type is _Expired or (exc_type is None and (self._expired or late)):
            raise BuildTimeoutError(self.message) from None
        return False
