#!/usr/bin/env python3
"""Cross-check of `netpoly expand --format sympy` by a second path.

usage: sympy_check.py NETPOLY MODEL [FORWARD_MODEL]

Runs `NETPOLY expand MODEL --all --format sympy`, executes the output with
SymPy, and compares every y{i}_{c} at random rational points with a forward
pass written here from model-format.md alone (exact Fractions, no netpoly code).
FORWARD_MODEL (default MODEL) is the model the Python forward pass runs; the
test suite passes a perturbed copy once to show that a mismatch is caught.
"""
import json
import random
import subprocess
import sys
from fractions import Fraction

import sympy


class G:
    """A Gaussian rational re + im*i (model-format.md: weights "a+bi")."""

    def __init__(self, re, im=0):
        self.re, self.im = Fraction(re), Fraction(im)

    @staticmethod
    def of(x):
        return x if isinstance(x, G) else G(x)

    def __add__(self, o):
        o = G.of(o)
        return G(self.re + o.re, self.im + o.im)

    __radd__ = __add__

    def __mul__(self, o):
        o = G.of(o)
        return G(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)

    __rmul__ = __mul__


def gaussian(s):
    """ "a+bi", "-i", "1/2-3i": split at the last sign after the first character."""
    body = s[:-1]
    k = max(body.rfind("+"), body.rfind("-"))
    a, b = (body[:k], body[k:]) if k > 0 else ("", body)
    im = {"": 1, "+": 1, "-": -1}.get(b)
    return G(Fraction(a) if a else 0, im if im is not None else Fraction(b))


def num(v):
    if isinstance(v, bool) or isinstance(v, float):
        raise SystemExit(f"not an exact number: {v!r}")
    if isinstance(v, str) and v.endswith("i"):
        return gaussian(v)
    return Fraction(v)  # int, "p", or "p/q"


def mat(m):
    return [[num(v) for v in row] for row in m]


def matvec(W, x):
    return [sum(w * v for w, v in zip(row, x)) for row in W]


def act(z, a):
    return z * z if a == "square" else z


def forward(model, X):
    """X: list of N rows (tokens) of d values. Returns the output rows."""
    return forward_layers(model["layers"], X)


def forward_layers(layers, X):
    for L in layers:
        t = L["type"]
        N = len(X)
        if t == "attention":
            d = len(X[0])
            Y = [[Fraction(0)] * d for _ in range(N)]
            for h in L["heads"]:
                Q, K, V, O = (mat(h[k]) for k in "QKVO")
                for i in range(N):
                    q = matvec(Q, X[i])
                    for j in range(N):
                        s = sum(a * b for a, b in zip(q, matvec(K, X[j])))
                        ov = matvec(O, matvec(V, X[j]))
                        Y[i] = [y + s * v for y, v in zip(Y[i], ov)]
        elif t == "token_mix":
            W = mat(L["W"])
            a = L.get("activation", "none")
            d = len(X[0])
            Z = [[act(sum(W[i][k] * X[k][c] for k in range(N)), a) for c in range(d)] for i in range(N)]
            if "W2" in L:
                W2 = mat(L["W2"])
                Z = [[sum(W2[i][k] * Z[k][c] for k in range(N)) for c in range(d)] for i in range(N)]
            Y = Z
        elif t == "channel_mix":
            W = mat(L["W"])
            a = L.get("activation", "none")
            Y = [[act(z, a) for z in matvec(W, x)] for x in X]
            if "W2" in L:
                W2 = mat(L["W2"])
                Y = [matvec(W2, y) for y in Y]
        elif t == "product":
            Ws = [mat(W) for W in L["Ws"]]
            Y = []
            for x in X:
                y = [Fraction(1)] * len(Ws[0])
                for W in Ws:
                    y = [a * b for a, b in zip(y, matvec(W, x))]
                Y.append(y)
        elif t == "branches":
            Y = None
            for b in L["branches"]:
                Z = forward_layers(b, X)
                Y = Z if Y is None else [[y + z for y, z in zip(ry, rz)] for ry, rz in zip(Y, Z)]
        elif t == "permute":
            d = len(X[0])
            flat = [v for row in X for v in row]
            out = [flat[p] for p in L["perm"]]
            Y = [out[i * d:(i + 1) * d] for i in range(N)]
        else:
            raise SystemExit(f"unknown layer type {t}")
        if L.get("residual", False):
            Y = [[y + x for y, x in zip(ry, rx)] for ry, rx in zip(Y, X)]
        X = Y
    return X


def main():
    netpoly, path = sys.argv[1], sys.argv[2]
    with open(sys.argv[3] if len(sys.argv) > 3 else path) as f:
        model = json.load(f)
    N, d = model["input"]["tokens"], model["input"]["width"]
    code = subprocess.run([netpoly, "expand", path, "--all", "--format", "sympy"], check=True,
                          capture_output=True, text=True).stdout
    ns = {}
    exec(code, ns)
    xs = [[ns[f"x{i}_{c}"] for c in range(d)] for i in range(N)]
    names = sorted(k for k in ns if k.startswith("y"))
    rng = random.Random(7)
    checked = 0
    for _ in range(3):
        X = [[Fraction(rng.randint(-4, 4), rng.randint(1, 3)) for _ in range(d)] for _ in range(N)]
        Y = forward(model, X)
        subs = {xs[i][c]: sympy.Rational(X[i][c].numerator, X[i][c].denominator)
                for i in range(N) for c in range(d)}
        want = sorted(f"y{i}_{c}" for i in range(N) for c in range(len(Y[0])))
        if names != want:
            raise SystemExit(f"outputs {names}, expected {want}")
        for i in range(N):
            for c in range(len(Y[0])):
                got = sympy.sympify(ns[f"y{i}_{c}"]).xreplace(subs)
                v = G.of(Y[i][c])
                exp = sympy.Rational(v.re.numerator, v.re.denominator) + sympy.I * sympy.Rational(
                    v.im.numerator, v.im.denominator)
                if sympy.expand(got - exp) != 0:
                    raise SystemExit(f"y{i}_{c} at {X}: sympy output gives {got}, forward pass {exp}")
                checked += 1
    print(f"sympy check passed: {checked} values of {len(names)} outputs")


if __name__ == "__main__":
    main()
