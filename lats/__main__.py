"""`python -m lats` is the `lats` command."""

from lats.cli import main

main()
