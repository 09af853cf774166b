"""``python -m jurybox`` runs the command line."""

from .cli import main

main()
