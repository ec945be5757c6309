"""`python -m apache2nginx` runs the command line."""
from .cli import run

run()
