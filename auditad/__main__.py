"""``python -m auditad``: the same command line as the ``auditad`` console script.

SIGTERM and SIGINT are recorded from the first line on (`auditad.cli.main` honours them at the
command's first safe point), so that a signal while the command line loads is no different from one
during the run; only a Ctrl-C in the interpreter's own start-up, before this file runs, is Python's.
Importing this module (as documentation tools do) changes nothing.
"""

import signal
import sys

if __name__ == "__main__":
    try:
        from ._progress import request_stop

        def _record(signum, frame):
            request_stop(signum)

        signal.signal(signal.SIGTERM, _record)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when Ctrl-C is ignored
            signal.signal(signal.SIGINT, _record)
        from .cli import main
    except KeyboardInterrupt:  # Ctrl-C before the handlers were installed: the same line and code as inside main()
        print("auditad: interrupted; nothing half-written was left", file=sys.stderr)
        sys.exit(130)
    sys.exit(main())
