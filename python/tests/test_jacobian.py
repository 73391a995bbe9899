"""Network.jacobian_rank (netpoly jacobian): the dimension of a function family, against a Jacobian
computed here with SymPy from the layer's formula (eq. (3) of LV: y_i = sum_j <Q x_i, K x_j> O V x_j),
and the CLI's JSON against the Python result."""

import json
import os
import random
import subprocess
import tempfile

import pytest
import sympy

import netpoly

CLI = os.environ.get("NETPOLY_CLI", "netpoly")


def _sympy_dimension(d, N, outputs, rng):
    """The rank of d(coefficients of the outputs)/d(weights) at random integer weights, over Q."""
    W = {n: sympy.Matrix(d, d, lambda r, c, n=n: sympy.Symbol(f"{n}{r}{c}")) for n in "QKVO"}
    xs = [sympy.Matrix([sympy.Symbol(f"x{i}_{c}") for c in range(d)]) for i in range(N)]
    ys = []
    for i in range(N):
        y = sympy.zeros(d, 1)
        for j in range(N):
            y += ((W["Q"] * xs[i]).T * (W["K"] * xs[j]))[0, 0] * (W["O"] * W["V"] * xs[j])
        ys.append(y)
    xvars = [v for x in xs for v in x]
    wvars = [v for n in "QKVO" for v in W[n]]
    coeffs = []
    for (t, c) in outputs:
        coeffs += sympy.Poly(sympy.expand(ys[t][c]), *xvars).coeffs()
    J = sympy.Matrix([[sympy.diff(f, w) for w in wvars] for f in coeffs])
    point = {w: rng.randint(1, 10**6) for w in wvars}
    return J.subs(point).rank()


@pytest.mark.parametrize("outputs", [[(0, 0)], [(0, 0), (1, 1)]])
def test_attention_dimension_matches_sympy(outputs):
    net = netpoly.make("attention", layers=1, width=2, heads=1, tokens=2, seed=1)
    got = net.jacobian_rank(outputs=outputs, seed=5)
    want = _sympy_dimension(2, 2, outputs, random.Random(7))
    # both are lower bounds on the dimension; equal but with probability below got.eps + 10^-5
    assert got.lower == want
    assert got.lower <= got.upper <= got.weights == 16
    assert got.status in ("exact", "probabilistic")
    assert repr(got).startswith(f"<netpoly.Dimension {want} ")


def test_cli_gives_the_same_result():
    net = netpoly.make("attention", layers=1, width=2, heads=1, tokens=2, seed=1)
    py = net.jacobian_rank(output=(0, 0), seed=9)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.json")
        net.save(path)
        out = subprocess.run([CLI, "jacobian", path, "--output", "0,0", "--seed", "9", "--json"],
                             capture_output=True, text=True, check=True).stdout
    j = json.loads(out)
    assert (j["dimension_lower"], j["dimension_upper"], j["prime"]) == (py.lower, py.upper, py.prime)


def test_bad_seed_is_an_input_error():
    net = netpoly.make("attention", layers=1, width=1, heads=1, tokens=1, seed=1)
    with pytest.raises(netpoly.InputError, match="seed="):
        net.jacobian_rank(seed=-1)
