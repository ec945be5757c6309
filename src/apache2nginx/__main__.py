"""`python -m apache2nginx` runs the command line."""
from .cli import main

main()
