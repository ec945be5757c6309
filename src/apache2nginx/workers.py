"""What every worker process of a ProcessPoolExecutor runs first."""
from __future__ import annotations

import os
import signal


def quiet_worker() -> None:
    """Ctrl-C reaches the whole process group: a worker ends at once and silently (no traceback of its
    own on the terminal); the parent process reports the interruption."""
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))
