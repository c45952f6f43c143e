"""`python -m flowledger.tools.bench.list_pages [options]`: the list-pages benchmark."""

import sys

from flowledger.tools.bench.list_pages.command import main

sys.exit(main())
