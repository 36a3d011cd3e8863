"""The pooled daemon threads that run provider calls (``hermes_nb.plugins.call_threads``)."""

from __future__ import annotations

import os
import threading
import time

import pytest

from hermes_nb.plugins import call_threads

WITHIN_S = 10.0


def _run(name: str, release: threading.Event | None = None) -> tuple[threading.Event, list[threading.Thread]]:
    """Start one job; the returned event is set when it has finished, the list holds its thread."""
    done = threading.Event()
    ran_on: list[threading.Thread] = []

    def job() -> None:
        ran_on.append(threading.current_thread())
        if release is not None:
            release.wait(WITHIN_S)
        done.set()

    call_threads.run_in_thread(job, name)
    return done, ran_on


def _until(condition: object, what: str) -> None:
    until = time.monotonic() + WITHIN_S
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < until, what
        time.sleep(0.005)


def test_a_finished_thread_runs_the_next_call() -> None:
    done, first = _run("one")
    assert done.wait(WITHIN_S)
    _until(lambda: first[0].name == "hermes_nb-provider-idle", "the thread went idle")
    done, second = _run("two")
    assert done.wait(WITHIN_S)
    assert second[0] is first[0] and second[0].daemon


def test_a_busy_thread_never_delays_another_call() -> None:
    release = threading.Event()
    try:
        _, blocked = _run("stuck", release)
        _until(lambda: bool(blocked), "the stuck job started")
        assert blocked[0].name == "hermes_nb-provider-stuck"
        done, other = _run("free")
        assert done.wait(WITHIN_S), "a call waited behind a stuck one"
        assert other[0] is not blocked[0]
    finally:
        release.set()


def test_idle_threads_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(call_threads, "IDLE_EXIT_S", 0.05)
    done, ran_on = _run("brief")
    assert done.wait(WITHIN_S)
    ran_on[0].join(WITHIN_S)
    assert not ran_on[0].is_alive()


def test_a_stale_wake_up_does_not_lose_the_thread() -> None:
    done, first = _run("a")
    assert done.wait(WITHIN_S)
    _until(lambda: first[0].name == "hermes_nb-provider-idle", "the thread went idle")
    with call_threads._lock:
        waiting = [w for w in call_threads._idle]
    for w in waiting:
        w.wake.set()  # woken with no job: must go back to waiting, still in the pool
    time.sleep(0.05)
    assert first[0].is_alive()
    for _ in range(20):  # every call still runs (a thread lost from the pool would hang one)
        done, _ = _run("b")
        assert done.wait(WITHIN_S)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_starts_its_own_threads() -> None:
    done, _ = _run("before-fork")
    assert done.wait(WITHIN_S)
    _until(lambda: call_threads.idle_threads() > 0, "a thread went idle")
    pid = os.fork()
    if pid == 0:  # the child: the parent's idle threads do not exist here
        ok = call_threads.idle_threads() == 0
        child_done, _ = _run("in-child")
        os._exit(0 if ok and child_done.wait(WITHIN_S) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
