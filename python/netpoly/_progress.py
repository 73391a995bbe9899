"""A progress display for long calls: one line rewritten in place on a terminal, a live line in a
notebook (an IPython display handle, updated like tqdm's), nothing elsewhere. netpoly's calls pass
it each new line of progress (black-box rounds, claims, table rows) and None when they end. A call
that Ctrl-C stops raises ``interruption(...)``: a KeyboardInterrupt with what finished, within a
fraction of a second (the work, if it is inside a long step, stops on its own at the step's end; the
interpreter's exit waits for it)."""

from __future__ import annotations

import atexit
import contextvars
import sys
import threading
import time
import weakref

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
    seconds. The seconds so far come first, so a narrow terminal cuts the line's end, not them.

    While a call runs, a daemon thread rewrites the line every ``interval`` seconds with the seconds so
    far, as the CLI's heartbeat does (a black-box round can be minutes without a new line); a line older
    than ``stale`` seconds says so: "(still running, 155 s)". It starts with the first line and stops at
    None (the end of the call, Ctrl-C included). ``clock`` (``time.monotonic``) is for tests."""

    def __init__(self, what: str, delay: float = 1.0, display=None, interval: float = 1.0, stale: float = 10.0,
                 clock=time.monotonic):
        self.what, self.delay, self.interval, self.stale, self.clock = what, delay, interval, stale, clock
        self.t0 = clock()
        self.display = display  # a notebook's display(obj, display_id=True); None: looked up
        self.handle = None
        self.shown = False
        self.line, self.since = None, self.t0  # the last line given, and when
        self.lock = threading.Lock()  # one writer at a time: the call's thread or the ticker
        self.stop = threading.Event()
        self.ticker = None

    def __call__(self, line):
        if line is None:
            self.close()
            return
        with self.lock:
            self.line, self.since = line, self.clock()
            self._show()
        if self.ticker is None and not self.stop.is_set():
            # in the call's context: a kernel that keeps the cell's output target in a context variable
            # sends the ticker's updates to that cell
            self.ticker = threading.Thread(target=contextvars.copy_context().run,
                                           args=(_tick, weakref.ref(self), self.stop, self.interval),
                                           name=f"netpoly {self.what} progress", daemon=True)
            self.ticker.start()

    def close(self) -> None:
        """Stops the ticker and clears the line (a terminal's) or empties it (a notebook's)."""
        self.stop.set()
        if self.ticker is not None and self.ticker is not threading.current_thread():
            self.ticker.join(timeout=5)
        with self.lock:
            if self.handle is not None:
                self.handle.update(_Line(""))
            elif self.shown:
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()
            self.shown = False

    def _refresh(self) -> bool:
        """The ticker's rewrite; False when it should stop (the call ended, or the display failed)."""
        with self.lock:
            if self.stop.is_set():
                return False
            try:
                self._show()
            except Exception:  # noqa: BLE001 - a display that fails must not outlive the call with a trace
                return False
        return True

    def _show(self) -> None:
        """Writes the line with the seconds so far (under self.lock)."""
        now = self.clock()
        if self.line is None or now - self.t0 < self.delay:
            return
        old = now - self.since
        more = f" (still running, {old:.0f} s)" if old >= self.stale else ""
        text = f"netpoly {self.what}, {now - self.t0:.0f} s: {self.line}"
        display = self.display
        if display is None and _in_notebook():
            from IPython.display import display
        if display is not None:
            if self.handle is None:
                self.handle = display(_Line(text + more), display_id=True)
            else:
                self.handle.update(_Line(text + more))
        else:
            width = _columns()
            sys.stderr.write("\r" + text[:max(20, width - len(more))] + more + "\033[K")
            sys.stderr.flush()
        self.shown = True


def _tick(ref, stop, interval: float) -> None:
    """The ticker: holds its Progress only weakly, so that one nobody calls any more (a display made
    by hand, never given None) stops ticking when it is collected."""
    while not stop.wait(interval):
        p = ref()
        if p is None or not p._refresh():
            return
        del p


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
    flight, with ``unfinished`` set) on its ``partial``; the pairs in flight alone on its ``unfinished``
    (a list, empty when none was)."""
    flight = [r for r in done if getattr(r, "unfinished", False)]
    also = f", {len(flight)} in flight with the ends found so far" if flight else ""
    e = KeyboardInterrupt(f"netpoly: {what} interrupted; {len(done) - len(flight)} finished{also} "
                          f"(on .partial; in flight: .unfinished)")
    e.partial = done
    e.unfinished = flight
    return e
