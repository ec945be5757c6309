"""How many worker processes to start, and what every worker process of a ProcessPoolExecutor runs first."""
from __future__ import annotations

import os
import signal


def quiet_worker() -> None:
    """Ctrl-C reaches the whole process group: a worker ends at once and silently (no traceback of its
    own on the terminal); the parent process reports the interruption."""
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))


def worker_count(jobs: int, tasks: int) -> int:
    """Worker processes for `tasks` pieces of work asked for with --jobs JOBS (0: every core).

    Never more than the cores nor the tasks: ProcessPoolExecutor forks every worker it is given at once, so
    an unbounded --jobs (600) started 600 processes and ~1.3 GB for no gain on a few cores."""
    cores = os.cpu_count() or 1
    return max(1, min(jobs or cores, cores, tasks))
