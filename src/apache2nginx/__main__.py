"""`python -m apache2nginx` runs the command line."""
import os
import sys


def entry() -> None:
    """The program: Ctrl-C while its modules are still loading also ends it quietly with 130."""
    try:
        from .cli import run
    except KeyboardInterrupt:
        sys.stderr.write("apache2nginx: interrupted; no output was written\n")
        sys.stderr.flush()
        os._exit(130)   # a module half imported may not be left to run its exit handlers
    run()


if __name__ == "__main__":
    entry()
