"""``python -m auditad``: the same command line as the ``auditad`` console script."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
