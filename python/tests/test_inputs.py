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
    r = child(f"""
        try:
            {call}
        except netpoly.InputError as e:
            print("InputError:", e)
        """)
    assert r.returncode == 0, r.stderr
    assert "InputError:" in r.stdout and named in r.stdout, r.stdout


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


def test_from_numpy_takes_biases_exactly():
    # channel_mix with a bias: y = W x + b (docs/model-format.md, "Biases"); y0 = 2 x0 + x1 + 1/2
    np = pytest.importorskip("numpy")
    net = netpoly.from_numpy([{"type": "channel_mix", "W": np.array([[2.0, 1.0]]), "b": np.array([0.5])}],
                             tokens=1, width=2)
    assert net.expand().to_dict() == {(1, 0): 2, (0, 1): 1, (0, 0): Fraction(1, 2)}
    with pytest.raises(netpoly.InputError, match=r"layers\[0\]\.b\[0\]"):
        netpoly.from_numpy([{"type": "channel_mix", "W": [[1, 1]], "b": [float("nan")]}], tokens=1, width=2)
