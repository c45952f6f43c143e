"""`python -m flowledger …`: the same as the `flowledger` command."""

from flowledger.tools.cli import main

main()
