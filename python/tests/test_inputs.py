"""Every Python entry point checks what the CLI checks (issue 29, items 8-10): bad input is a
netpoly.InputError naming the argument, never a crash of the interpreter, a hang, a cast error
from the binding layer, or code run from a string. Each case here crashed, hung or passed silently
before (see the issue); the crashing ones run in a child interpreter so a regression fails the test
instead of killing pytest."""

import math
import os
import subprocess
import sys
import textwrap
from fractions import Fraction

import pytest
import sympy

import netpoly


def child(code: str) -> subprocess.CompletedProcess:
    """Runs code in a fresh interpreter with this netpoly; returns the finished process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    src = "import netpoly\nnet = netpoly.make('attention', layers=1, width=2, heads=1, tokens=2)\n" + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, timeout=60, env=env)


def refused_in_child(call: str, error: str) -> str:
    """Runs call in a child interpreter, printing the netpoly error it raises; its output (a crash of the
    child, e.g. FLINT's SIGABRT, fails the test)."""
    r = child(f"""
        try:
            {call}
        except netpoly.{error} as e:
            print("{error}:", e)
        """)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("call,named", [
    ("net.seprank(prime=4, methods=['blackbox'])", "prime="),      # SIGABRT in FLINT before
    ("net.seprank(prime=6, methods=['grid'])", "prime="),
    ("net.seprank(prime=9, methods=['modular'])", "prime="),
    ("net.seprank(prime=15, methods=['blackbox'])", "prime="),
    ("net.seprank(prime=1, methods=['blackbox'])", "prime="),      # SIGFPE before
    ("netpoly.seprank(net.expand(), side_a=[10000000])", "side_a="),  # segfault before
    ("netpoly.seprank(net.expand(), side_a=[99])", "side_a="),     # analysed A={} before
    ("net.expand(threads=100000)", "threads="),                    # hung, memory growing
    ("netpoly.table('attention', seeds=-2)", "seeds="),            # MemoryError before
    # found by fuzz/fuzz_python.py:
    ("netpoly.seprank('1/0', side_a=['x0'])", "division"),              # FLINT abort (SIGABRT) before
    ("netpoly.seprank('x0/(x1 - x1)', side_a=['x0'])", "division"),  # FLINT abort before
    ("netpoly.from_numpy([{'type': 'token_mix', 'W': [[1, 0], [0, 1]], 'b': 3}], tokens=2, width=1)",
     "layers[0].b"),                                                 # TypeError before
    ("netpoly.from_numpy([7], tokens=2, width=1)", "layers[0]"),     # AttributeError before
    ("netpoly.Poly({('x',): 1}, 1)", "exponent"),                    # ValueError before
    ("netpoly.Poly({(1,): 1}, -1)", "nvars"),                        # accepted before
    ("net.seprank(generic=['\u00e9' * 50])", "generic="),            # cut inside a character: RuntimeError before
    ("netpoly.seprank(netpoly.Poly({(): 1}, 0), side_a=['x'])", "side_a="),  # IndexError before
    ("netpoly.seprank(netpoly.Poly({(1,): 1}, 1), side_a=[10**5000])", "side_a="),  # int-to-text ValueError before
    ("netpoly.seprank('x*y', side_a=[10**5000])", "side_a="),       # int-to-text ValueError before
    ("net.seprank(outputs=10**5000)", "outputs="),                   # int-to-text ValueError before
])
def test_calls_that_crashed_raise_input_error(call, named):
    out = refused_in_child(call, "InputError")
    assert "InputError:" in out and named in out, out


def test_a_string_is_never_run_as_code(tmp_path):
    target = tmp_path / "pwned"
    with pytest.raises(netpoly.InputError):
        netpoly.seprank(f"__import__('os').system('touch {target}') or x*y", side_a=["x"])
    assert not target.exists()
    # what text can be: a polynomial, read by netpoly's own parser
    assert netpoly.seprank("x0*x2 + x1*x3", side_a=["x0", "x1"]).value == 2
    assert netpoly.seprank("(a + b)**2", side_a=["a"]).value == 3


@pytest.mark.parametrize("kw", [dict(layers=-1), dict(layers=1.5), dict(layers=float("nan")), dict(layers=10**30),
                                dict(width="2"), dict(residual=1), dict(layer=3), dict(seed=-1)])
def test_make_checks_every_keyword(kw):
    args = dict(layers=1, width=2, heads=1, tokens=2)
    args.update(kw)
    with pytest.raises(netpoly.InputError, match=next(iter(kw))):
        netpoly.make("attention", **args)


def test_misspelled_keywords_are_refused():
    net = netpoly.make("attention", layers=1, width=2, heads=1, tokens=2)
    with pytest.raises(netpoly.InputError, match="unknown keyword 'max_point'"):
        net.seprank(max_point=3)
    with pytest.raises(netpoly.InputError, match="unknown keyword 'A'"):
        netpoly.seprank("x*y", A=["x"])
    with pytest.raises(netpoly.InputError, match="unknown keyword 'layer'"):
        netpoly.make("mixer", layer=3, width=2, tokens=2)


@pytest.mark.parametrize("kw,named", [
    (dict(budget=float("nan")), "budget="), (dict(budget=-1), "budget="), (dict(budget=0), "budget="),
    (dict(max_terms=float("nan")), "max_terms="), (dict(max_points=0), "max_points="),
    (dict(max_points=2.5), "max_points="), (dict(seed=-3), "seed="), (dict(seed=2**64), "seed="),
    (dict(methods="nonsense"), "methods="), (dict(methods=[]), "methods="), (dict(small_prime=1), "small_prime="),
    (dict(max_memory="8X"), "max_memory="), (dict(templates=[[0.5]]), "templates="),
])
def test_analysis_options_are_checked_as_the_cli_checks_them(kw, named):
    net = netpoly.make("attention", layers=1, width=2, heads=1, tokens=2)
    with pytest.raises(netpoly.InputError, match=named):
        net.seprank(**kw)


def test_weights_that_are_not_numbers_are_refused():
    np = pytest.importorskip("numpy")
    for bad in (float("nan"), float("inf"), -math.inf):
        with pytest.raises(netpoly.InputError, match=r"layers\[0\]\.W\[0\]\[0\]"):
            netpoly.from_numpy([{"type": "channel_mix", "W": np.array([[bad, 1.0]])}], tokens=1, width=2)
    with pytest.raises(netpoly.InputError):
        netpoly.from_numpy([{"type": "channel_mix", "W": [[object(), 1]]}], tokens=1, width=2)


def test_integers_of_any_size_are_exact():
    big = 10**5000 + 7  # str() of it raises ValueError in Python 3.11
    net = netpoly.from_numpy([{"type": "channel_mix", "W": [[big, Fraction(1, big)]]}], tokens=1, width=2)
    assert net.expand().to_dict() == {(1, 0): Fraction(big), (0, 1): Fraction(1, big)}


def test_sympy_input_that_is_not_a_polynomial_or_too_big():
    x, y = sympy.symbols("x y")
    with pytest.raises(netpoly.InputError, match="not a polynomial"):
        netpoly.seprank(sympy.sin(x) * y, side_a=[x])
    with pytest.raises(netpoly.InputError, match="not a polynomial"):
        netpoly.seprank(x**-1 * y, side_a=[x])
    with pytest.raises(netpoly.InputError, match="exponent"):
        netpoly.seprank(x ** (2**70) * y, side_a=[x])
    # a power of a sum too large to expand is refused before SymPy expands it (it hung before)
    with pytest.raises(netpoly.InputError, match="max_terms"):
        netpoly.seprank((x + y + 1) ** 100000, side_a=[x])
    with pytest.raises(netpoly.InputError, match="not a polynomial|coefficient"):
        netpoly.seprank(sympy.sqrt(2) * x * y, side_a=[x])
    with pytest.raises(netpoly.InputError, match="not a polynomial|coefficient"):
        netpoly.seprank(sympy.pi * x * y, side_a=[x])


def test_a_thousand_variables():
    xs = sympy.symbols("v0:1000")
    f = sum(xs[k] * xs[k + 500] for k in range(500))
    r = netpoly.seprank(f, side_a=xs[:500], methods=["group"])
    assert r.upper == 500


def test_expand_and_table_limits():
    net = netpoly.make("attention", layers=1, width=2, heads=1, tokens=2)
    with pytest.raises(netpoly.InputError, match="max_terms="):
        net.expand(max_terms=0)
    with pytest.raises(netpoly.InputError, match="output="):
        net.expand(output=(-1, 0))
    with pytest.raises(netpoly.InputError, match="layers"):
        netpoly.table("attention", layers=[-1])
    with pytest.raises(netpoly.InputError, match="budget="):
        netpoly.check([], budget=float("nan"))


SMALL_TABLE = dict(layers=[1], widths=[2], tokens=[2], methods="support")


@pytest.mark.parametrize("kw,named", [
    (dict(budget=-1), "budget="), (dict(max_terms=1.5), "max_terms="), (dict(threads=-1), "threads="),
    (dict(threads="x"), "threads="), (dict(max_memory="lots"), "max_memory=")])
def test_check_and_table_read_their_limits_through_the_option_table(kw, named):
    with pytest.raises(netpoly.InputError, match=named):
        netpoly.check([], **kw)
    with pytest.raises(netpoly.InputError, match=named):
        netpoly.table("attention", **SMALL_TABLE, **kw)


def test_table_takes_budget_and_max_terms_and_none_keeps_the_defaults():
    # the rows record the options they were measured with (the CLI's defaults: no budget, max_terms 5e7)
    none = dict(budget=None, max_terms=None, max_memory=None, threads=None)
    assert netpoly.check([], **none) == []
    row = netpoly.table("attention", **SMALL_TABLE, **none)[0]
    assert (row["options"]["budget"], row["options"]["max_terms"]) == (None, 5e7)
    row = netpoly.table("attention", **SMALL_TABLE, budget=2.5, max_terms=7, threads=1)[0]
    assert (row["options"]["budget"], row["options"]["max_terms"]) == (2.5, 7)


def test_from_numpy_takes_biases_exactly():
    # channel_mix with a bias: y = W x + b (docs/model-format.md, "Biases"); y0 = 2 x0 + x1 + 1/2
    np = pytest.importorskip("numpy")
    net = netpoly.from_numpy([{"type": "channel_mix", "W": np.array([[2.0, 1.0]]), "b": np.array([0.5])}],
                             tokens=1, width=2)
    assert net.expand().to_dict() == {(1, 0): 2, (0, 1): 1, (0, 0): Fraction(1, 2)}
    with pytest.raises(netpoly.InputError, match=r"layers\[0\]\.b\[0\]"):
        netpoly.from_numpy([{"type": "channel_mix", "W": [[1, 1]], "b": [float("nan")]}], tokens=1, width=2)


# ---------------------------------------------------------------- issue 38
def _nc():
    x, y = sympy.symbols("x y", commutative=False)
    z1, z2 = sympy.symbols("z1 z2")
    return x, y, z1, z2


@pytest.mark.parametrize("case,named", [
    (lambda x, y, z1, z2: (x * y - y * x, [x]), "non-commutative"),   # sep = 0 (exact) before
    (lambda x, y, z1, z2: (x * z1 + z2, [z1]), "non-commutative"),
    (lambda x, y, z1, z2: (z1 * z2, [x]), "non-commutative"),          # in side_a only
    (lambda x, y, z1, z2: (sympy.MatrixSymbol("M", 2, 2) * z1, [z1]), "matrix"),
    (lambda x, y, z1, z2: (sympy.Function("f")(z1) * z2, [z1]), "f(z1)"),
    (lambda x, y, z1, z2: (sympy.sin(z1) + z1 * z2, [z1]), "sin(z1)"),
    (lambda x, y, z1, z2: (sympy.Float(0.5) * z1 * z2 + z1, [z1]), "0.5"),
    (lambda x, y, z1, z2: (z1 ** sympy.Float(2.0) * z2, [z1]), "float"),
])
def test_sympy_input_that_is_not_a_commutative_polynomial_with_exact_coefficients_is_refused(case, named):
    expr, side_a = case(*_nc())
    with pytest.raises(netpoly.InputError, match=named.replace("(", r"\(").replace(")", r"\)")):
        netpoly.seprank(expr, side_a=side_a)


def test_a_commutative_polynomial_is_still_taken():
    z1, z2 = sympy.symbols("z1 z2")
    assert netpoly.seprank(z1 * z2 + z1 ** 2 * z2 ** 2, side_a=[z1]).value == 2
    assert netpoly.seprank(sympy.Rational(1, 2) * z1 * z2 + sympy.I * z1 ** 2, side_a=[z1]).value == 2


@pytest.mark.parametrize("call,named", [
    # FLINT aborted the interpreter (SIGABRT) on these before: run in a child so a crash fails the test
    ("netpoly.seprank('x0^18446744073709551616 + x1', side_a=['x0'])", "2^62"),
    ("netpoly.seprank('x0^4611686018427387904 + x1', side_a=['x0'])", "2^62"),
    ("netpoly.seprank('(x0^4611686018427387903)^4 + x1', side_a=['x0'])", "2^62"),
    ("netpoly.seprank('x0^1 ^2 + x1', side_a=['x0'])", "ambiguous"),
    ("netpoly.seprank(netpoly.Poly({(2**62 - 1, 2**62 - 1, 1): 1, (0, 0, 1): 1}, 3), side_a=[0])", "2^62"),
    ("netpoly.seprank(netpoly.Poly({(1, 0): 1, (0, 1): 1}, 2) ** 2 * netpoly.Poly({(2**61, 0): 1}, 2) ** 64, side_a=[0])",
     "2^62"),                                                        # a cast error of the binding before
])
def test_exponents_beyond_the_engine_are_refused_before_flint(call, named):
    out = refused_in_child(call, "InputError")
    assert "InputError:" in out and named in out, out


@pytest.mark.parametrize("call,named", [
    ("netpoly.seprank('(x0 + x1 + x2 + x3)^100000', side_a=['x0'])", "max_terms"),  # expanded without bound before
    ("netpoly.seprank('2^1000000000 * x0 + x1', side_a=['x0'])", "bits"),
    ("netpoly.seprank('(x0 + x1)^20', side_a=['x0'], max_terms=10)", "max_terms"),
])
def test_polynomial_text_beyond_the_size_limits_is_refused_before_flint(call, named):
    out = refused_in_child(call, "LimitError")
    assert "LimitError:" in out and named in out, out


def test_polynomial_text_within_the_limits_is_read_as_before():
    assert netpoly.seprank("(x0 + x1)^3 - x1^3", side_a=["x0"]).value == 3  # x0^3 + 3 x0^2 x1 + 3 x0 x1^2
    assert netpoly.seprank("x0^1000 * x1 + x1", side_a=["x0"]).value == 1
    assert netpoly.seprank("x0*x1/2 + 3/4", side_a=["x0"]).value == 2
    assert netpoly.seprank("-(-x0) * -x1", side_a=["x0"]).value == 1


MODEL = ('{"format": "netpoly-model/1", "input": {"tokens": 2, "width": 1}, '
         '"layers": [{"type": "token_mix", "W": [[1, 0], [0, 1]]}]}')


def _torch_module(nan=False):
    torch = pytest.importorskip("torch")
    import netpoly.torch as nt
    m = nt.TokenMix(2)
    if nan:
        with torch.no_grad():
            next(m.parameters())[0, 0] = float("nan")
    return nt, m


def _call_14(k):
    """The calls of issue 38, item 8, that raised exceptions other than netpoly's."""
    x, y = sympy.symbols("x y")
    nan, inf = float("nan"), float("inf")
    calls = [
        lambda: netpoly.seprank(x * y, side_a=[x], max_terms=10**400),           # OverflowError before
        lambda: netpoly.from_json(MODEL, source=object()),                        # TypeError before
        lambda: netpoly.from_numpy([], tokens=2, width=1, heads=5),               # TypeError before
        lambda: netpoly.check(5),                                                 # TypeError before
        lambda: netpoly.Poly({(): 5}, 0).to_sympy(poly=True),                     # GeneratorsNeeded before
    ]
    torch_calls = [
        lambda nt, m: nt.from_torch(m.state_dict(), width=1, tokens=2),   # TypeError before
        lambda nt, m: nt.from_torch(m, width=1, tokens=nan),              # ValueError before
        lambda nt, m: nt.from_torch(m, width=1, tokens=inf),              # OverflowError before
        lambda nt, m: nt.from_torch(m, width=1, tokens="two"),            # ValueError before
        lambda nt, m: nt.from_torch(m, width=1, tokens=2, round_weights=nan),  # ValueError before
        lambda nt, m: nt.from_torch(m, width=1, tokens=2, round_weights=inf),  # OverflowError before
        lambda nt, m: nt.from_torch(m, width=1, tokens=2, round_weights="x"),  # ValueError before
        lambda nt, m: nt.from_torch(m, width=1, tokens=2, output=None),   # TypeError before
        lambda nt, m: nt.from_torch(_torch_module(nan=True)[1], width=1, tokens=2),  # a NaN weight: ValueError before
        lambda nt, m: nt.from_torch(m, width=1, tokens=2.7),              # truncated to 2 before
    ]
    if k < len(calls):
        return calls[k]()
    return torch_calls[k - len(calls)](*_torch_module())


@pytest.mark.parametrize("k", range(15))
def test_every_bad_call_raises_a_netpoly_error(k):
    with pytest.raises(netpoly.InputError):
        _call_14(k)


def test_python_errors_name_python_keywords_not_cli_flags():
    with pytest.raises(netpoly.InputError) as e:
        netpoly.make("attention", layers=1, width=2, heads=1, tokens=5000)
    assert "tokens=" in str(e.value) and "--" not in str(e.value)
    with pytest.raises(netpoly.InputError) as e:
        netpoly.bounds("attention", layers=1, width=3, heads=2, tokens=2)
    assert "heads=" in str(e.value) and "width=" in str(e.value) and "--" not in str(e.value)
    with pytest.raises(netpoly.InputError) as e:
        netpoly.make("transformer")
    assert str(e.value).startswith("make:") and "bounds" not in str(e.value)


# ---------------------------------------------------------------- issue 38, the review of the Python boundary
def _x01():
    return sympy.symbols("x0 x1")


def _np_bool(v=True):
    return pytest.importorskip("numpy").bool_(v)


@pytest.mark.parametrize("call,error,named", [
    # a boolean is not a number: "True: a non-commutative symbol" before
    (lambda x0, x1: netpoly.seprank(sympy.true, side_a=[x0]), "InputError", "True: a boolean"),
    (lambda x0, x1: netpoly.seprank(sympy.false, side_a=[x0]), "InputError",
     "False: a boolean"),
    (lambda x0, x1: netpoly.seprank(x0 < x1, side_a=[x0]), "InputError", "x0 < x1: a boolean"),
    # methods= quotes what was given: "got [0]" for [1] and [5], '["exact",0]' for ['exact', 2] before
    (lambda x0, x1: netpoly.seprank(x0 * x1, side_a=[x0], methods=[1]), "InputError", "[1]"),
    (lambda x0, x1: netpoly.seprank(x0 * x1, side_a=[x0], methods=[5]), "InputError", "[5]"),
    (lambda x0, x1: netpoly.seprank(x0 * x1, side_a=[x0], methods=["exact", 2]), "InputError", "['exact', 2]"),
    (lambda x0, x1: netpoly.table(methods=[1]), "InputError", "methods=: expected"),  # InternalError before
    # NumPy's bool is no more a whole number than True: accepted as 1 before
    (lambda x0, x1: netpoly.make("attention", width=_np_bool()), "InputError", "width="),
    (lambda x0, x1: netpoly.make("attention", layers=1, width=2, tokens=2).seprank(max_points=_np_bool()),
     "InputError", "max_points="),
    (lambda x0, x1: netpoly.make("attention", layers=1, width=2, tokens=2).expand(outputs=[(_np_bool(False), 0)]),
     "InputError", "outputs="),
    # a count of terms or pairs is whole: max_terms=1.5 taken (and 0.5 a LimitError) before
    (lambda x0, x1: netpoly.make("attention", layers=1, width=2, tokens=2).expand(max_terms=1.5), "InputError",
     "max_terms=: expected a whole number"),
    (lambda x0, x1: netpoly.seprank("x0*x1", side_a=["x0"], max_terms=0.5), "InputError", "max_terms="),
    (lambda x0, x1: netpoly.make("attention", layers=1, width=2, tokens=2).seprank(max_pairs=2.5), "InputError",
     "max_pairs="),
    # paths: the whole name, escaped ("a" before); only str or os.PathLike (5 and b'...' were file names before)
    (lambda x0, x1: netpoly.load("a\0b"), "InputError", r"'a\x00b': a path cannot contain a NUL"),
    (lambda x0, x1: netpoly.check("a\0b"), "InputError", r"'a\x00b'"),
    (lambda x0, x1: netpoly.make("attention", layers=1, width=2, tokens=2).save("a\0b"), "InputError",
     r"'a\x00b'"),                                                     # InternalError (ValueError) before
    (lambda x0, x1: netpoly.load(5), "InputError", "load: expected a path (a str or os.PathLike), got 5"),
    (lambda x0, x1: netpoly.load(b"/nonexistent"), "InputError", "expected a path"),
    # a sympy.Poly over a domain that is not exact rationals names the domain ("not a polynomial" before)
    (lambda x0, x1: netpoly.seprank(sympy.Poly(x0 * x1 + x0, x0, x1, domain="RR"), side_a=[x0]), "InputError",
     "a sympy.Poly over RR"),
    (lambda x0, x1: netpoly.seprank(sympy.Poly(x0 * x1 + x0, x0, x1, modulus=5), side_a=[x0]), "InputError",
     "a sympy.Poly over GF(5)"),
    (lambda x0, x1: netpoly.seprank(sympy.Poly(x0 * x1 + sympy.sqrt(2) * x0, x0, x1, extension=True), side_a=[x0]),
     "InputError", "a sympy.Poly over QQ<sqrt(2)>"),
    # a coefficient beyond the engine's 2^24 bits, as polynomial text refuses it (computed for 3 s before)
    (lambda x0, x1: netpoly.seprank(netpoly.Poly({(1, 1): 2**(2**24 + 8), (1, 0): 1}, 2), side_a=[0]), "LimitError",
     "more than 2^24 bits"),
])
def test_review_of_the_python_boundary(call, error, named):
    with pytest.raises(getattr(netpoly, error)) as e:
        call(*_x01())
    assert named in str(e.value), str(e.value)


@pytest.mark.parametrize("make,side,value", [
    # numbers of more than 4,300 digits: InternalError ("Exceeds the limit (4300 digits)") before
    (lambda x0, x1: sympy.Rational(10**5000 + 1, 3) * x0 * x1 + x0, "x0", 1),       # x0 (c x1 + 1)
    (lambda x0, x1: sympy.Rational(10**5000 + 1, 3) * x0 * x1 + x0 + x1, "x0", 2),
    (lambda x0, x1: (x0 + sympy.Rational(1, 10**5000)) * (x1 + 7), "x0", 1),
    # a sympy.Poly over ZZ, QQ, ZZ_I or polynomials over them: "not a polynomial" before
    (lambda x0, x1: sympy.Poly(x0 * x1 + x0 + x1, x0, x1), "x0", 2),                  # ZZ
    (lambda x0, x1: sympy.Poly((x0 + 1) * (x1 + 1), x0, x1), "x0", 1),
    (lambda x0, x1: sympy.Poly(x0 * x1 / 2 + x0**2 * x1**2, x0, x1), "x0", 2),       # QQ
    (lambda x0, x1: sympy.Poly(x0 * x1 + sympy.I * x0**2 * x1**2, x0, x1), "x0", 2),  # ZZ_I
    (lambda x0, x1: sympy.Poly(x0 * x1 * sympy.Symbol("y") + x0, x0, x1), "x0", 1),   # ZZ[y]: x0 (x1 y + 1)
    (lambda x0, x1: sympy.Poly(x0 * x1, x0, x1, sympy.Symbol("x2")), "x2", 1),         # a generator it lacks
])
def test_exact_input_of_any_size_or_form_is_taken(make, side, value):
    assert netpoly.seprank(make(*_x01()), side_a=[side]).value == value
