"""Python's progress line refreshes as the CLI's does (issue 53): while a call runs, the line is rewritten
with the seconds so far even when no new line arrives (it stayed at "2 s: ... in about 35.1 s" for 165 s
before), in a notebook's display and on a terminal, and the refreshing stops when the call ends.

A fake clock stands for the time that passes; the ticker runs every 10 ms of real time, and the tests wait
(up to 20 s, on a loaded machine) for the line to change: they assert that it changes, never how fast."""

import sys
import threading
import time

import pytest

import netpoly
from netpoly._progress import Progress


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Notebook:
    """A notebook's display(obj, display_id=True) and its handle's update, recorded."""

    def __init__(self):
        self.shown = []
        self.lock = threading.Lock()

    def __call__(self, obj, display_id):
        assert display_id is True
        self.record(obj)
        return self

    def update(self, obj):
        self.record(obj)

    def record(self, obj):
        with self.lock:
            self.shown.append(obj._repr_mimebundle_()["text/plain"])

    def last(self):
        with self.lock:
            return self.shown[-1] if self.shown else None


def wait_for(test, what):
    end = time.monotonic() + 20
    while time.monotonic() < end:
        if test():
            return
        time.sleep(0.01)
    pytest.fail(f"waited 20 s for {what}")


def test_the_line_counts_the_seconds_without_a_new_line():
    clock, nb = Clock(), Notebook()
    p = Progress("seprank", delay=0.0, display=nb, interval=0.01, clock=clock)
    p("blackbox: rank >= 665 at 256 points, 2 s; next 6,688 points in about 35.1 s")
    assert nb.last() == ("netpoly seprank, 0 s: blackbox: rank >= 665 at 256 points, 2 s; next 6,688 points in "
                         "about 35.1 s")
    clock.now = 7.0  # no new line: the seconds so far change
    wait_for(lambda: nb.last().startswith("netpoly seprank, 7 s: blackbox"), "the line at 7 s")
    assert "still running" not in nb.last()
    clock.now = 165.0  # a line this old says so, as the CLI's heartbeat does
    wait_for(lambda: nb.last().startswith("netpoly seprank, 165 s: "), "the line at 165 s")
    assert nb.last().endswith("in about 35.1 s (still running, 165 s)")
    p("blackbox: rank >= 9,017 at 6,688 points, 168 s")  # a new line is shown at once, and is fresh
    assert nb.last() == "netpoly seprank, 165 s: blackbox: rank >= 9,017 at 6,688 points, 168 s"
    p(None)
    assert nb.last() == "" and not p.ticker.is_alive()  # cleared, and the ticker stopped with the call
    n = len(nb.shown)
    clock.now = 200.0
    time.sleep(0.05)
    assert len(nb.shown) == n


def test_a_line_that_came_before_the_delay_is_shown_once_the_delay_passed():
    # before, a line that arrived in the first second of a long, silent step was never shown
    clock, nb = Clock(), Notebook()
    p = Progress("table", delay=1.0, display=nb, interval=0.01, clock=clock)
    clock.now = 0.5
    p("0 of 3 done")
    assert nb.shown == []
    clock.now = 2.0
    wait_for(lambda: nb.last() == "netpoly table, 2 s: 0 of 3 done", "the early line")
    p(None)
    assert nb.last() == "" and not p.ticker.is_alive()


def test_on_a_terminal_the_line_is_rewritten_in_place(monkeypatch):
    class Err:
        def __init__(self):
            self.text, self.lock = "", threading.Lock()

        def write(self, s):
            with self.lock:
                self.text += s

        def flush(self):
            pass

        def read(self):
            with self.lock:
                return self.text

    err = Err()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setenv("COLUMNS", "60")
    clock = Clock()
    p = Progress("check", delay=0.0, interval=0.01, clock=clock)
    p("2 of 6 claims; the next: a long claim name that runs on and on past the terminal's width")
    clock.now = 42.0
    wait_for(lambda: "\rnetpoly check, 42 s: " in err.read(), "the line at 42 s")
    clock.now = 99.0
    wait_for(lambda: "(still running, 99 s)\033[K" in err.read(), "the stale line")
    p(None)
    written = err.read()
    assert written.endswith("\r\033[K") and not p.ticker.is_alive()
    for line in written.split("\r"):
        assert len(line.replace("\033[K", "")) <= 59  # fits the terminal: "\r" returns to its start
    assert "\rnetpoly check, 99 s: 2 of 6 claims" in written  # the seconds first, the end cut


def test_a_display_that_fails_stops_the_ticker_not_the_call():
    clock = Clock()

    class Broken(Notebook):
        def update(self, obj):
            raise RuntimeError("the front end went away")

    p = Progress("expand", delay=0.0, display=Broken(), interval=0.01, clock=clock)
    p("expanding y0_0")
    clock.now = 3.0
    wait_for(lambda: not p.ticker.is_alive(), "the ticker to stop")


def test_a_real_call_stops_its_ticker_when_it_returns():
    nb = Notebook()
    p = Progress("table", delay=0.0, display=nb, interval=0.01)
    rows = netpoly.table("attention", layers=[1, 2], widths=[2, 3], heads=[1], tokens=[4], seeds=2, progress=p)
    assert len(rows) == 8  # 0.3 s: the library passes its lines every 50 ms
    assert nb.shown[0].startswith("netpoly table, 0 s: ") and " of 8 done" in nb.shown[0] and nb.last() == ""
    assert p.ticker is not None and not p.ticker.is_alive()


def test_a_display_nobody_calls_any_more_stops_ticking():
    # a Progress made by hand and never given None (the library always ends with None)
    clock, nb = Clock(), Notebook()
    p = Progress("seprank", delay=0.0, display=nb, interval=0.01, clock=clock)
    p("blackbox: rank >= 10")
    ticker = p.ticker
    del p
    wait_for(lambda: not ticker.is_alive(), "the ticker of a collected display to stop")


def test_ctrl_c_stops_the_ticker_and_clears_the_line():
    import os
    import signal
    nb = Notebook()
    p = Progress("seprank", delay=0.0, display=nb, interval=0.01)
    net = netpoly.make("mixer", layers=4, width=4, tokens=4, seed=1, weights="generic")
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        net.seprank(partition="half", methods=["support", "blackbox"], seed=1, max_points=1 << 20, progress=p)
    timer.join()
    assert nb.shown and nb.last() == ""
    assert p.ticker is not None and not p.ticker.is_alive()
