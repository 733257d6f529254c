"""``python -m components``: the ``raygang`` command line."""

import sys

from components.cli import main

sys.exit(main())
