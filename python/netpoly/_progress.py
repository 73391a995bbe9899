"""A progress display for long calls: one line rewritten in place on a terminal, a live line in a
notebook (an IPython display handle, updated like tqdm's), nothing elsewhere. netpoly's calls pass
it each new line of progress (black-box rounds, claims, table rows) and None when they end. A call
that Ctrl-C stops raises ``interruption(...)``: a KeyboardInterrupt with what finished, within a
fraction of a second (the work, if it is inside a long step, stops on its own at the step's end; the
interpreter's exit waits for it)."""

from __future__ import annotations

import atexit
import sys
import time

from . import _netpoly

# Work that Ctrl-C left to stop on its own ends before the interpreter tears the library down.
atexit.register(_netpoly.wait_for_stopped_work, 600.0)


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    ip = get_ipython()
    return ip is not None and "IPKernelApp" in getattr(ip, "config", {})


class _Line:
    """One line of text for a notebook's display: shown as text (a str would show as its repr, in
    quotes), and empty once the call ends, as a terminal's line is cleared."""

    def __init__(self, text: str):
        self.text = text

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": self.text}


def _columns() -> int:
    """The terminal's width less one (a longer line wraps, and the next "\r" would not return to its
    start); 100 when unknown."""
    import shutil
    return max(20, shutil.get_terminal_size((101, 24)).columns - 1)


class Progress:
    """Callable with a line of progress, or None at the end. Shows nothing for calls under ``delay``
    seconds. The seconds so far come first, so a narrow terminal cuts the line's end, not them."""

    def __init__(self, what: str, delay: float = 1.0, display=None):
        self.what, self.delay, self.t0 = what, delay, time.monotonic()
        self.display = display  # a notebook's display(obj, display_id=True); None: looked up
        self.handle = None
        self.shown = False

    def __call__(self, line):
        if line is None:
            if self.handle is not None:
                self.handle.update(_Line(""))
            elif self.shown:
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()
            return
        if time.monotonic() - self.t0 < self.delay:
            return
        text = f"netpoly {self.what}, {time.monotonic() - self.t0:.0f} s: {line}"
        display = self.display
        if display is None and _in_notebook():
            from IPython.display import display
        if display is not None:
            if self.handle is None:
                self.handle = display(_Line(text), display_id=True)
            else:
                self.handle.update(_Line(text))
        else:
            sys.stderr.write("\r" + text[:_columns()] + "\033[K")
            sys.stderr.flush()
        self.shown = True


def progress_for(what: str, progress):
    """The display a call uses: ``progress=None`` shows it on a terminal or in a notebook, ``False``
    never, ``True`` always (on stderr outside notebooks), or any callable of one argument."""
    if not (progress is None or isinstance(progress, bool) or callable(progress)):
        from ._api import _short
        from ._netpoly import InputError
        raise InputError(f"{what}: progress=: expected True, False, None or a callable of one argument, got "
                         f"{_short(progress)}")
    if progress is False:
        return None
    if callable(progress) and progress is not True:
        return progress
    if progress is None and not (_in_notebook() or sys.stderr.isatty()):
        return None
    return Progress(what)


def interruption(done: list, what: str):
    """The KeyboardInterrupt of a call that Ctrl-C stopped: the results that finished (and the pairs in
    flight, with ``unfinished`` set) on its ``partial``."""
    flight = sum(1 for r in done if getattr(r, "unfinished", False))
    also = f", {flight} in flight with the ends found so far" if flight else ""
    e = KeyboardInterrupt(f"netpoly: {what} interrupted; {len(done) - flight} finished{also} (on .partial)")
    e.partial = done
    return e
