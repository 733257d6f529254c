"""``python -m benchmarks``: run every scenario and print the report."""

import sys

from benchmarks.runner import main

sys.exit(main())
