"""The ``netpoly`` command of an installed wheel, and ``python -m netpoly``.

The wheel carries the compiled executable ``netpoly`` in this package's
directory (next to the extension and libnetpoly_fflas.so); the console
script replaces this Python process with it (os.execv), so the exit code,
the standard streams and every signal are the command's own, as with
build/netpoly. Python ignores SIGPIPE and SIGXFSZ, and an ignored signal
stays ignored across exec: both are set back to the default first, so that
``netpoly expand ... | head`` ends as it does from a shell.
"""

from __future__ import annotations

import os
import signal
import sys


def main() -> None:
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "netpoly")
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        os.execv(exe, ["netpoly", *sys.argv[1:]])
    except OSError as e:
        print(f"netpoly: cannot run {exe}: {e.strerror} (reinstall netpoly: see README.md, 'Python')",
              file=sys.stderr)
        sys.exit(127 if isinstance(e, FileNotFoundError) else 126)


if __name__ == "__main__":
    main()
