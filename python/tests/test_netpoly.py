"""The Python module against values obtained independently: SymPy's own
expansion of the network (an evaluator written here from the model file's
weights), SymPy's rank of the coefficient matrix, the CLI's output, and
hand-worked cases."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from fractions import Fraction

import pytest
import sympy

import netpoly

CLI = os.environ.get("NETPOLY_CLI", "netpoly")
DATA = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data")


# ---------------------------------------------------------------- an independent evaluator
def weight(w):
    return sympy.Rational(str(w))  # integers, "p/q" (the presets' weights are rational)


def mat(rows):
    return sympy.Matrix([[weight(w) for w in r] for r in rows])


def eval_attention(model, X):
    """LV eq. (1), written from the format document: per head Y += (X Q^T)(X K^T)^T X V^T O^T, summed;
    a residual adds X."""
    for layer in model["layers"]:
        assert layer["type"] == "attention"
        Y = sympy.zeros(X.rows, X.cols)
        for h in layer["heads"]:
            Q, K, V, O = mat(h["Q"]), mat(h["K"]), mat(h["V"]), mat(h["O"])
            Y += (X * Q.T) * (X * K.T).T * X * V.T * O.T
        X = Y + (X if layer.get("residual") else sympy.zeros(X.rows, X.cols))
    return X


def symbols_for(N, d):
    xs = sympy.Matrix(N, d, lambda i, c: sympy.Symbol(f"x{i}_{c}"))
    return xs


# ---------------------------------------------------------------- tests
def test_version_matches_the_cli():
    out = subprocess.run([CLI, "--version"], capture_output=True, text=True).stdout
    assert out.startswith(f"netpoly {netpoly.__version__} ")


@pytest.mark.parametrize("layers,width,heads,tokens,residual,seed", [
    (1, 2, 1, 2, False, 1), (1, 2, 2, 3, True, 2), (2, 2, 1, 2, False, 3), (1, 3, 1, 2, False, 4)])
def test_expansion_equals_sympys_expansion_of_the_same_network(layers, width, heads, tokens, residual, seed):
    net = netpoly.make("attention", layers=layers, width=width, heads=heads, tokens=tokens, residual=residual,
                       seed=seed)
    model = json.loads(net.to_json())
    X = symbols_for(tokens, width)
    Y = eval_attention(model, X)
    for t in range(tokens):
        for c in range(width):
            p = net.expand(output=(t, c))
            got = p.to_sympy()
            assert sympy.expand(got - Y[t, c]) == 0
            # the sympy.Poly form: the same polynomial, term for term
            assert p.to_sympy(poly=True) == sympy.Poly(sympy.expand(Y[t, c]), *sympy.symbols(p.var_names()), domain="QQ")


def coefficient_matrix_rank(expr, A, B):
    """rank of [coeff of a^alpha b^beta] with SymPy's own Poly and Matrix."""
    P = sympy.Poly(sympy.expand(expr), *A, *B)
    rows, cols, entries = {}, {}, {}
    for e, c in P.terms():
        a, b = e[:len(A)], e[len(A):]
        i = rows.setdefault(a, len(rows))
        j = cols.setdefault(b, len(cols))
        entries[i, j] = c
    M = sympy.zeros(len(rows), len(cols))
    for (i, j), c in entries.items():
        M[i, j] = c
    return M.rank()


def test_seprank_of_sympy_polynomials_equals_sympys_rank():
    x = sympy.symbols("x0:6")
    rng = __import__("random").Random(5)
    for trial in range(12):
        terms = []
        for _ in range(rng.randint(2, 6)):
            mono = 1
            for v in x:
                mono *= v ** rng.randint(0, 2)
            terms.append(rng.randint(-3, 3) * mono)
        f = sympy.expand(sum(terms))
        if f == 0 or not f.free_symbols:
            continue
        A = [v for v in x[:3]]
        got = netpoly.seprank(f, side_a=A)
        want = coefficient_matrix_rank(f, [v for v in x[:3]], [v for v in x[3:]])
        assert got.status == "exact"
        assert got.value == want, (f, got, want)


def test_seprank_over_C_by_hand():
    # (x0 + i x1)(x2 + i x3): one product across A = {x0, x1}; its real part x0 x2 - x1 x3 has sep 2.
    x0, x1, x2, x3 = sympy.symbols("x0 x1 x2 x3")
    f = (x0 + sympy.I * x1) * (x2 + sympy.I * x3)
    assert netpoly.seprank(f, side_a=[x0, x1]).value == 1
    assert netpoly.seprank(x0 * x2 - x1 * x3, side_a=[x0, x1]).value == 2


def test_model_round_trip_and_save(tmp_path):
    for arch, kw in [("attention", dict(layers=2, width=4, heads=2, tokens=3)),
                     ("mixer", dict(layers=3, width=2, tokens=3, permuted=True)),
                     ("product", dict(degree=3, layers=2, width=2)),
                     ("lv-witness", dict(layers=3, width=5, heads=1, tokens=2))]:
        net = netpoly.make(arch, **kw)
        again = netpoly.from_json(net.to_json())
        assert again == net and again.to_json() == net.to_json()
        p = tmp_path / f"{arch}.json"
        net.save(str(p))
        assert netpoly.load(str(p)) == net
        # the CLI writes the same file
        cli = subprocess.run([CLI, "make", arch] + sum(([f"--{k.replace('_', '-')}", str(v)] if v is not True
                                                        else [f"--{k}"] for k, v in kw.items()), []),
                             capture_output=True, text=True, check=True).stdout
        assert cli == net.to_json()


def test_save_writes_as_the_cli_writes_its_outputs(tmp_path):
    """Network.save is the CLI's one writer (io.hpp's write_output): a symbolic link is written through
    (the link stays, the file it names gets the model), a link to nothing is refused, a file is replaced
    (its permissions kept), and the file a model was loaded from may be saved over (a save is a run of its
    own)."""
    net = netpoly.make("attention", layers=1, width=2, heads=1, tokens=2, seed=1)
    target = tmp_path / "models" / "real.json"
    target.parent.mkdir()
    target.write_text("old")
    os.chmod(target, 0o640)
    link = tmp_path / "model.json"
    link.symlink_to(target)
    net.save(link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == net.to_json() and netpoly.load(str(link)) == net
    assert (target.stat().st_mode & 0o777) == 0o640
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    with pytest.raises(netpoly.InputError, match="does not exist; not written"):
        net.save(dangling)
    assert not (tmp_path / "nowhere.json").exists()
    other = netpoly.make("mixer", layers=1, width=2, tokens=2, seed=2)
    loaded = netpoly.load(str(target))
    other.save(target)
    assert netpoly.load(str(target)) == other != loaded
    assert sorted(p.name for p in target.parent.iterdir()) == ["real.json"]  # no temporary left


def test_generic_seprank_of_a_degenerate_draw(tmp_path):
    """seprank(generic=True) speaks of the shape: a draw (small weights, seed 1) whose y0_1 is 0 here (SymPy,
    from the file's weights) has sep 0, while the shape's generic sep is at least the black-box's certified
    lower end (>= 1) and at most its weight-independent upper end; the same as the CLI's --generic JSON."""
    net = netpoly.make("attention", layers=2, width=2, heads=1, tokens=4, seed=1, weights="small")
    model = json.loads(net.to_json())
    Y = eval_attention(model, symbols_for(4, 2))
    assert sympy.expand(Y[0, 1]) == 0
    drawn = net.seprank("A=0,1", output=(0, 1))
    assert drawn.value == 0 and drawn.quantity == "sep of this network" and "sep = 0" in repr(drawn)
    g = net.seprank("A=0,1", output=(0, 1), generic=True, seed=3)
    assert g.quantity == "generic sep of this shape"
    assert repr(g).split(": ", 1)[1].startswith("gsep = ")
    assert g.lower >= 1 > drawn.value
    assert g.lower <= g.upper
    p = tmp_path / "att.json"
    net.save(str(p))
    cli = json.loads(subprocess.run([CLI, "seprank", str(p), "--output", "0,1", "--partition", "A=0,1", "--generic",
                                     "--seed", "3", "--json"], capture_output=True, text=True, check=True).stdout)
    r = cli["results"][0]
    assert r["quantity"] == g.quantity
    assert (r["lower"]["value"], r["upper"]["value"], r["status"]) == (g.lower, g.upper, g.status)


def test_from_numpy_is_exact():
    np = pytest.importorskip("numpy")
    W = np.array([[0.1, -2.0], [0.5, 3]])
    net = netpoly.from_numpy([{"type": "channel_mix", "W": W}], tokens=1, width=2)
    y = net.expand(output=(0, 0))
    # y0 = 0.1 x0 - 2 x1 (channel_mix: y_c = sum_k W[c][k] x_k), with 0.1 the double nearest 1/10
    assert y.to_dict() == {(1, 0): Fraction(0.1), (0, 1): Fraction(-2)}
    assert Fraction(0.1) != Fraction(1, 10)
    F = np.array([[Fraction(1, 3), 2], [0, -1]], dtype=object)
    net2 = netpoly.from_numpy([{"type": "channel_mix", "W": F}], tokens=1, width=2)
    assert net2.expand(output=(0, 0)).to_dict() == {(1, 0): Fraction(1, 3), (0, 1): Fraction(2)}


def test_errors_carry_the_clis_message_with_pythons_keywords(tmp_path):
    # the CLI's message, naming the keywords a Python caller gives (issue 38: the CLI's flags before)
    with pytest.raises(netpoly.InputError, match="heads= must divide width="):
        netpoly.make("attention", layers=1, width=3, heads=2, tokens=2)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "netpoly-model/1", "input": {"tokens": 2, "width": 2}, "layers": [{"type": "nope"}]}')
    with pytest.raises(netpoly.InputError, match=r"bad.json.*layers\[0\]"):
        netpoly.load(str(bad))
    net = netpoly.make("attention", layers=3, width=4, heads=2, tokens=4)
    with pytest.raises(netpoly.LimitError, match="max_terms=") as e:
        net.expand(max_terms=1000)
    assert "--" not in str(e.value)
    assert issubclass(netpoly.LimitError, netpoly.Error)


def test_results_keep_their_provenance():
    net = netpoly.make("attention", layers=2, width=2, heads=1, tokens=4, seed=1)
    r = net.seprank(methods=["support", "blackbox"], seed=1)
    assert r.status == "probabilistic"
    assert 0 < r.eps < 1e-9
    assert r.prime is not None and 2**49 <= r.prime < 2**50
    assert "with probability" in r.how["blackbox"]
    exact = net.seprank(seed=1)
    assert exact.status == "exact" and exact.value == r.value == 18
    assert "sep = 18 (exact)" in exact._repr_html_() and "= 18$ (exact)" in exact._repr_latex_()
    assert set(exact.timings) <= {m["method"] for m in exact.methods} | {"expansion"}
    b = net.seprank(methods="support")
    assert b.status == "bracket" and b.value is None and b.lower is None and b.upper == 70


def test_small_prime_certifies_and_can_be_skipped():
    # mixer (3,4,4): sep = 660 = the support bound. The black-box's ranks mod
    # its small random prime meet it, so the result is exact with no
    # probability (README, "The black-box's small prime"); without the phase,
    # the large prime's rank reaches the same 660 (also certified exact: its
    # rank is a certified lower bound meeting support).
    net = netpoly.make("mixer", layers=3, width=4, tokens=4, seed=1)
    r = net.seprank(methods=["support", "blackbox"], seed=2)
    assert r.status == "exact" and r.value == 660 and r.eps is None
    assert 2**22 <= r.prime < 2**23 and r.prime % 120 == 1
    assert "equal to the best certified upper bound" in r.how["blackbox"]
    big = net.seprank(methods=["support", "blackbox"], seed=2, small_prime=False)
    assert big.status == "exact" and big.value == 660
    assert 2**49 <= big.prime < 2**50 and "small prime" not in big.how["blackbox"]


def test_sup_and_inf_over_partitions_and_outputs():
    net = netpoly.make("mixer", layers=3, width=2, tokens=4, seed=11, weights="small")
    rs = net.seprank(partitions="all-balanced", methods="exact")
    # examples/mixer-partition-dependence.json: 105, 105, 97 (README)
    assert sorted(r.value for r in rs) == [97, 105, 105]
    assert rs.sup == {"lower": 105, "upper": 105, "status": "exact"}
    assert rs.inf == {"lower": 97, "upper": 97, "status": "exact"}


def test_bounds_equal_the_clis():
    py = netpoly.bounds("attention", layers=2, width=4, heads=2, tokens=4)
    cli = json.loads(subprocess.run([CLI, "bounds", "--arch", "attention", "--layers", "2", "--width", "4",
                                     "--heads", "2", "--tokens", "4", "--json"],
                                    capture_output=True, text=True, check=True).stdout)
    assert [b.id for b in py] == [b["id"] for b in cli["bounds"]]
    for b, c in zip(py, cli["bounds"]):
        assert (str(b.value) if b.value is not None else None) == c["value"]
    thm3 = next(b for b in py if b.id == "LV Thm 3")
    assert thm3.value == (2 * (2 + 1)) ** 4  # (H (d_a + 1))^C(L), C(2) = 4


def test_check_runs_claims(tmp_path):
    f = tmp_path / "c.np"
    f.write_text('claim "two"\n  check 1 + 1 == 2\n\nclaim "wrong"\n  check 1 + 1 == 3\n')
    reps = netpoly.check(str(f))
    assert [r.verdict for r in reps] == ["PASS", "FAIL"]
    assert reps[0].passed and not reps[1].passed
    # str(report) is the claim's text as `netpoly check` prints it (one renderer): each is a block of
    # the CLI's output for the same file, in order, and names its verdict and title.
    cli = subprocess.run([CLI, "check", str(f)], capture_output=True, text=True)
    assert cli.returncode == 1
    assert str(reps[0]) in cli.stdout and str(reps[1]) in cli.stdout
    assert cli.stdout.index(str(reps[0])) < cli.stdout.index(str(reps[1]))
    assert "PASS" in str(reps[0]) and "two" in str(reps[0]) and "FAIL" in str(reps[1])
    assert str(reps[1]) != repr(reps[1])


def test_table_rows():
    rows = netpoly.table("attention", layers=[1], widths=[2], heads=[1], tokens=[2])
    assert len(rows) == 1
    # attention L1 d2 N2, seed 1: sep 3 (the same as `netpoly seprank` of that preset; README)
    assert rows[0]["lower"] == rows[0]["upper"] == 3 and rows[0]["status"] == "exact"
    # numbers, not text: the exact value an int, log3 a float (issue 30)
    thm3 = next(b for b in rows[0]["bounds"] if b["id"] == "LV Thm 3")
    assert thm3["value"] == 3 and thm3["log3"] == 1.0
    thm2 = next(b for b in rows[0]["bounds"] if b["id"] == "LV Thm 2 (upper)")
    assert thm2["value"] is None and isinstance(thm2["log3"], float)
    assert rows[0]["params"] == 16 and isinstance(rows.to_latex(), str)


def test_rows_render_chosen_columns_as_the_cli_does(tmp_path):
    # Rows.to_latex(columns=...) is `netpoly table --columns` (one renderer, one parser of the list):
    # the same tabular for the same sweep, and an unknown column refused naming it.
    rows = netpoly.table("attention", layers=[1], widths=[2], heads=[1], tokens=[2])
    out = tmp_path / "t.tex"
    subprocess.run([CLI, "table", "--arch", "attention", "--layers", "1", "--width", "2", "--heads", "1",
                    "--tokens", "2", "--columns", "L,d,sep", "-o", str(out)], check=True, capture_output=True)

    def tabular(tex):
        return tex[tex.index("\\begin{tabular}"):tex.index("\\end{tabular}")]

    mine = tabular(rows.to_latex(columns=["L", "d", "sep"]))
    assert mine == tabular(out.read_text())
    assert mine.splitlines()[2].startswith("\\(L\\) & \\(d\\) & sep & ")
    # the default is a paper's (no params column); columns=["all"] is --columns all
    assert "params" in rows.to_markdown(columns=["all"]) and "params" not in rows.to_markdown()
    assert "params" not in rows.to_markdown(columns="L,d,sep".split(","))
    with pytest.raises(netpoly.InputError, match="nope"):
        rows.to_latex(columns=["L", "nope"])


def test_long_calls_release_the_gil():
    net = netpoly.make("attention", layers=3, width=2, heads=1, tokens=4, seed=1)
    ticks = []
    done = threading.Event()

    def work():
        net.seprank(methods=["support", "blackbox"], seed=1, max_points=4096)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        ticks.append(time.monotonic())
        time.sleep(0.01)
    t.join()
    assert len(ticks) >= 3  # the main thread ran while the analysis did


def test_ctrl_c_interrupts_and_keeps_finished_results():
    net = netpoly.make("mixer", layers=4, width=4, tokens=4, seed=1, weights="generic")
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt) as e:
        net.seprank(partitions=["half", "A=0,2"], methods=["support", "blackbox"], seed=1, max_points=1 << 16)
    assert time.monotonic() - t0 < 30
    assert isinstance(e.value.partial, list)


def test_ctrl_c_keeps_the_pair_in_flight_with_its_ends_so_far():
    """As the CLI's interrupted seprank prints it (issue 38, item 12: `.partial == []` before)."""
    net = netpoly.make("mixer", layers=4, width=4, tokens=4, seed=1, weights="generic")
    sent = []
    timer = threading.Timer(2.0, lambda: (sent.append(time.monotonic()), os.kill(os.getpid(), signal.SIGINT)))
    timer.start()
    with pytest.raises(KeyboardInterrupt) as e:
        net.seprank(partition="half", methods=["support", "blackbox"], seed=1, max_points=1 << 20)
    latency = time.monotonic() - sent[0]
    print(f"SIGINT to KeyboardInterrupt: {latency:.2f} s")
    partial = e.value.partial
    assert len(partial) == 1 and partial[0].unfinished
    assert e.value.unfinished == partial  # the pairs in flight, as the docs name them (issue 53 §5)
    assert partial[0].output == (0, 0) and partial[0].partition is not None
    assert partial[0].lower is not None or partial[0].upper is not None
    assert "in flight" in str(e.value)
    assert latency < 5


_CTRL_C_CHILD = """
import json, sys, time
import netpoly
net = netpoly.make("mixer", layers=4, width=4, tokens=4, seed=1, weights="generic")
print("started", flush=True)
try:
    net.seprank(partition="half", methods=["support", "blackbox"], seed=1, max_points=1 << 20, threads=1)
except KeyboardInterrupt as e:
    caught = time.monotonic()
    print(json.dumps({"caught": caught, "partial": [[r.lower, r.upper, r.unfinished] for r in e.partial]}),
          flush=True)
"""


# One thread: the run takes about 17 s on a quiet machine (10 s on two threads, which finished before a
# signal at 12 s once the machine was quiet), so both signals arrive while it works.
@pytest.mark.parametrize("after", [2.0, 8.0])
def test_ctrl_c_stops_a_python_seprank_within_a_second_and_keeps_the_bracket(after):
    """As the CLI (0.22 s): SIGINT to KeyboardInterrupt within 1 s, at normal priority on a loaded machine,
    also when the black-box is inside a long rank computation mod p (after 8 s here: that step polls
    only when it ends, and the call took 5 s and more before), with the bracket so far on .partial."""
    child = subprocess.Popen([sys.executable, "-c", _CTRL_C_CHILD], stdout=subprocess.PIPE, text=True,
                             env=dict(os.environ))
    try:
        assert child.stdout.readline().strip() == "started"
        time.sleep(after)
        sent = time.monotonic()  # CLOCK_MONOTONIC: one clock for both processes
        child.send_signal(signal.SIGINT)
        out = json.loads(child.stdout.readline())
    finally:
        child.wait(timeout=600)  # the exit waits for the work to reach its next poll
    latency = out["caught"] - sent
    print(f"SIGINT after {after} s to KeyboardInterrupt: {latency:.2f} s")
    assert latency <= 1.0
    [(lower, upper, unfinished)] = out["partial"]
    assert unfinished and lower is not None and upper is not None and 1 <= lower <= upper


def test_every_call_reports_bad_input_as_input_error(tmp_path):
    net = netpoly.make("attention", layers=1, width=2, heads=1, tokens=2)
    with pytest.raises(netpoly.InputError, match="partition"):
        net.seprank(partition="A=7")
    with pytest.raises(netpoly.InputError):
        net.seprank(methods="nonsense")
    with pytest.raises(netpoly.InputError, match="out of range"):
        net.expand(output=(5, 0))
    with pytest.raises(netpoly.InputError):
        netpoly.bounds("transformer", layers=1, width=2)
    bad = tmp_path / "bad.np"
    bad.write_text('claim "x"\n  check nosuchfunction(1) == 1\n')
    with pytest.raises(netpoly.InputError, match="bad.np"):
        netpoly.check(str(bad))
    with pytest.raises(netpoly.InputError):
        netpoly.table("attention", layers=[1], widths=[2], heads=[3], tokens=[2], weights="odd")
    with pytest.raises(netpoly.InputError, match="Gaussian|1 mod 4"):
        netpoly.load(os.path.join(DATA, "gaussian.json")).seprank(methods="blackbox", prime=7)


def test_progress_in_a_notebook_is_a_live_text_line_cleared_at_the_end():
    # A notebook's display (IPython's display(obj, display_id=True) and handle.update) recorded: the
    # line is shown as text (not a str's repr in quotes), updated in place, and emptied at the end.
    from netpoly._progress import Progress
    shown = []

    class Handle:
        def update(self, obj):
            shown.append(obj._repr_mimebundle_()["text/plain"])

    def display(obj, display_id):
        assert display_id is True
        shown.append(obj._repr_mimebundle_()["text/plain"])
        return Handle()

    p = Progress("seprank", delay=0.0, display=display)
    p("blackbox: rank >= 10 at 16 points, 0.1 s")
    p("blackbox: rank >= 20 at 32 points, 0.3 s")
    p(None)
    assert shown[0].startswith("netpoly seprank, 0 s: blackbox: rank >= 10")
    assert shown[1].endswith("rank >= 20 at 32 points, 0.3 s")
    assert shown[2] == "" and len(shown) == 3
    assert not shown[0].startswith(("'", '"'))


def test_progress_on_a_terminal_fits_its_width_with_the_seconds_first(monkeypatch, capsys):
    # COLUMNS=40: the line written after "\r" is at most 39 characters (a longer one wraps and the
    # next "\r" would not return to its start), and the seconds so far are in what is kept.
    from netpoly._progress import Progress
    monkeypatch.setenv("COLUMNS", "40")
    p = Progress("seprank", delay=0.0)
    p("blackbox: rank >= 5120 at 2048 points, 12 s; next 4096 points in about 40 s")
    err = capsys.readouterr().err
    line = err.split("\r")[-1].replace("\033[K", "")
    assert len(line) == 39 and line.startswith("netpoly seprank, 0 s: blackbox")
