"""Many games at once: the same work here, in worker processes or on a Ray cluster, with one result.

`run_tasks(setup, args, work, tasks)` returns `[work(context, task) for task in tasks]` where
`context = setup(*args)` is made once per worker (loading a game, say). `setup` and `work` must
be functions at the top of a module, so that a worker process can import them. The results come
in the order of the tasks whoever computed them, so a run gives the same figures with any number
of workers. A worker process ignores Ctrl-C: the parent stops the pool and reports it once.
"""
from __future__ import annotations

import os
import signal
from typing import Callable

from ..errors import GamedslError


def run_tasks(setup: Callable, args: tuple, work: Callable, tasks: list, jobs: int = 1,
              progress: Callable | None = None, ray: str | None = None) -> list:
    """work(setup(*args), task) for every task, in order. `jobs` worker processes (1: here), or
    the Ray cluster at `ray` ("auto": the one running on this machine, else a new local one; or an
    address; `jobs` actors, or one per CPU of the cluster when jobs is 0). Every node of a cluster
    needs gamedsl installed: the workers import `setup` and `work` from it. `progress(done)` is called as tasks finish."""
    if ray is not None:
        return _on_ray(ray, setup, args, work, tasks, jobs, progress)
    if jobs <= 1 or len(tasks) < 2:
        context = setup(*args)
        results = []
        for task in tasks:
            results.append(work(context, task))
            if progress is not None:
                progress(len(results))
        return results
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # "spawn", not "fork": the parent may run a progress thread, and a fork copies a thread's locks
    pool = ProcessPoolExecutor(min(jobs, len(tasks)), mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker, initargs=(setup, args))
    try:
        futures = [pool.submit(_work_in_worker, work, task) for task in tasks]
        results = []
        for future in futures:  # in task order, so the first failing task is the one reported
            results.append(future.result())
            if progress is not None:
                progress(len(results))
        return results
    finally:
        pool.shutdown(cancel_futures=True)


def default_jobs() -> int:
    """Worker processes by default: one per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not every system has it
        return os.cpu_count() or 1


_CONTEXT: object = None  # in a worker process: what setup made


def _start_worker(setup: Callable, args: tuple):
    global _CONTEXT
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: no trace per worker
    _CONTEXT = setup(*args)


def _work_in_worker(work: Callable, task):
    return work(_CONTEXT, task)


class _RayWorker:
    """One Ray actor: the context made once, then task after task."""

    def __init__(self, setup: Callable, args: tuple):
        self.context = setup(*args)

    def run(self, work: Callable, task):
        return work(self.context, task)


def _on_ray(address: str, setup: Callable, args: tuple, work: Callable, tasks: list, jobs: int,
            progress: Callable | None) -> list:
    try:
        import ray
    except ModuleNotFoundError:
        raise GamedslError("--ray needs Ray, which is not installed: pip install 'gamedsl[ray]'") from None
    if not ray.is_initialized():
        if address != "auto":
            _reachable(address)
        quiet = {"log_to_driver": False, "configure_logging": False}
        try:
            ray.init(address=address, **quiet)  # "auto": the cluster running on this machine, if any
        except ConnectionError as exc:
            if address != "auto":
                raise GamedslError(f"cannot reach the Ray cluster at '{address}': {exc}") from None
            ray.init(include_dashboard=False, **quiet)  # none runs: a local one, for this run
        except (RuntimeError, ValueError) as exc:
            raise GamedslError(f"cannot reach the Ray cluster at '{address}': {exc}") from None
    cpus = int(ray.cluster_resources().get("CPU", 1))
    count = max(1, min(jobs or cpus, len(tasks)))
    actor = ray.remote(num_cpus=1)(_RayWorker)
    workers = [actor.remote(setup, args) for _ in range(count)]
    pending = {}  # object ref -> (task index, worker)
    results: list = [None] * len(tasks)
    queue = list(enumerate(tasks))[::-1]
    for w in workers:
        if queue:
            i, task = queue.pop()
            pending[w.run.remote(work, task)] = (i, w)
    done = 0
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            i, w = pending.pop(ready[0])
            results[i] = ray.get(ready[0])
            done += 1
            if progress is not None:
                progress(done)
            if queue:
                j, task = queue.pop()
                pending[w.run.remote(work, task)] = (j, w)
    finally:
        for w in workers:
            ray.kill(w)
    return results


def check_ray(address: str, timeout: float = 5.0):
    """A GamedslError at once, in one line, when Ray is not installed or nothing answers at a Ray
    address (HOST:PORT or ray://HOST:PORT; "auto" always does): Ray itself would wait for minutes,
    logging as it goes."""
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise GamedslError("--ray needs Ray, which is not installed: pip install 'gamedsl[ray]'")
    if address != "auto":
        _reachable(address, timeout)


def _reachable(address: str, timeout: float):
    import socket

    host, _, port = address.partition("://")[2].rpartition(":") if "://" in address else address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except ValueError:
        raise GamedslError(f"'{address}' is not a Ray address: give HOST:PORT, ray://HOST:PORT or auto") from None
    except OSError as exc:
        raise GamedslError(f"cannot reach the Ray cluster at '{address}': {exc.strerror or exc}") from None


def with_progress(label: str, total: int, run: Callable, err, unit: str = "games"):
    """run(progress) with a progress bar on `err` when it is a terminal (done/total, rate, time left),
    else run(None): a pipe or a log file gets no bar. progress(done, more=n) also adds n tasks to the total."""
    if not err.is_terminal:
        return run(None)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Tasks finished per second (games/s)."""

        def __init__(self, unit: str):
            super().__init__()
            self.unit = unit

        def render(self, task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:.1f} {self.unit}/s", style="progress.data.speed")

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), RateColumn(unit),
                  TextColumn("ETA"), TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task(unit, total=total)
        now = [total]

        def step(done: int, more: int = 0):  # `more`: tasks found to do since the bar began
            now[0] += more
            bar.update(task, completed=done, total=now[0])
        return run(step)
