"""`python -m flowledger.tools.bench [options]`: the same as `flowledger bench [options]`."""

from flowledger.tools.bench.cli import main

main()
