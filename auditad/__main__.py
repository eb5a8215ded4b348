"""``python -m auditad``: the same command line as the ``auditad`` console script."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C before main() took over the signals: the same line and code as inside it
    print("auditad: interrupted; nothing half-written was left", file=sys.stderr)
    sys.exit(130)

if __name__ == "__main__":
    sys.exit(main())
