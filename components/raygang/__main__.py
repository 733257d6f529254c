"""``python -m raygang``: the ``raygang`` command line."""

import sys

from raygang.cli import main

sys.exit(main())
