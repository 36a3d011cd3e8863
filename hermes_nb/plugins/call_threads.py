"""Daemon threads that run provider calls under a deadline (and batch items), reused between calls.

``call_with_deadline`` runs each synchronous provider call in a thread of its own so that the caller
can stop waiting at the deadline. Starting a thread per call costs more than a fast provider's
whole request (a 32-wide batch spent a third of its time there), so finished threads wait here for
the next call instead of exiting. The pool is elastic: a call never queues behind a busy thread
(a new one starts when none is idle), so a provider that hangs past its deadline holds only its own
thread and cannot delay anyone else's call. Idle threads exit after ``IDLE_EXIT_S``. Threads are
daemons: an abandoned call never keeps the interpreter from exiting.
"""

from __future__ import annotations

import collections
import os
import threading
from collections.abc import Callable

__all__ = ["IDLE_EXIT_S", "run_in_thread", "idle_threads"]

#: Seconds an idle thread waits for another call before it exits.
IDLE_EXIT_S = 30.0

_IDLE_NAME = "hermes_nb-provider-idle"
_lock = threading.Lock()
#: One entry per idle thread: the event it sleeps on and the slot its next job is put in.
_idle: collections.deque[_Waiting] = collections.deque()


class _Waiting:
    __slots__ = ("wake", "job")

    def __init__(self) -> None:
        self.wake = threading.Event()
        self.job: tuple[Callable[[], None], str] | None = None


def _serve(job: Callable[[], None], name: str) -> None:
    me = _Waiting()
    thread = threading.current_thread()
    while True:
        thread.name = f"hermes_nb-provider-{name}"
        job()
        thread.name = _IDLE_NAME
        del job  # drop the finished call's references before sleeping
        with _lock:
            me.job = None
            _idle.append(me)
        while True:
            woke = me.wake.wait(IDLE_EXIT_S)
            with _lock:
                me.wake.clear()  # a wake-up left over from an earlier hand-over is ignored below
                if me.job is not None:
                    (job, name), me.job = me.job, None
                    break
                if not woke:  # no job while idle (a thread with no job is always in _idle)
                    _idle.remove(me)
                    return


def run_in_thread(job: Callable[[], None], name: str) -> None:
    """Run ``job()`` in an idle pooled thread, or in a new daemon thread when none is idle.

    ``job`` must not raise (it puts its outcome where the caller reads it, e.g. a future). While it
    runs, its thread is named ``hermes_nb-provider-<name>``.
    """
    with _lock:
        waiting = _idle.pop() if _idle else None
        if waiting is not None:
            waiting.job = (job, name)  # a thread whose job is set has left _idle, under this lock
    if waiting is not None:
        waiting.wake.set()
        return
    threading.Thread(target=_serve, args=(job, name), name=f"hermes_nb-provider-{name}", daemon=True).start()


def _forget_after_fork() -> None:
    """A forked child (the extraction workers) has none of the parent's threads: start afresh."""
    global _lock, _idle
    _lock = threading.Lock()
    _idle = collections.deque()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def idle_threads() -> int:
    """How many pooled threads wait for a call now (for tests and diagnostics)."""
    with _lock:
        return len(_idle)
