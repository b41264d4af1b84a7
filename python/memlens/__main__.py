"""python -m memlens: the memlens command."""
from ._cli import main

main()
