"""`python -m tools.bench [options]`: the same as `flowledger bench [options]`."""

from tools.bench.cli import main

main()
