"""The traced layers evaluated at a point, exactly, and compared with the module's own forward pass:
from_torch's last step, so that a model it returns is the module's function (or it says why not).

The layers are the model format's (docs/model-format.md) with exact arrays (NumPy object arrays of
Fractions). They are evaluated twice at the same point: exactly (integers over one common
denominator per array, which is much faster than Fractions), and with every weight and input
replaced by its absolute value in float64, which bounds every intermediate value and so the
rounding error a float forward pass can make. torch's value must equal the exact one within that
error; a model that computes a different function is off by far more at a random point."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np


# ---------------------------------------------------------------- exact arrays: integers over one denominator
class _Q:
    """An array of rationals: the integers `a` (a NumPy object array) over the common denominator `den`."""
    __slots__ = ("a", "den")

    def __init__(self, a, den: int):
        self.a, self.den = a, den


def _exact_of(arr) -> _Q:
    flat = [Fraction(x) for x in np.asarray(arr, dtype=object).reshape(-1)]
    den = 1
    for x in flat:
        den = den * x.denominator // math.gcd(den, x.denominator)
    a = np.empty(len(flat), dtype=object)
    a[:] = [x.numerator * (den // x.denominator) for x in flat]
    return _Q(a.reshape(np.shape(arr)), den)


class _ExactRing:
    """Exact arithmetic on _Q arrays."""

    def __init__(self):
        self.cache = {}

    def weight(self, arr) -> _Q:
        key = id(arr)
        if key not in self.cache:
            self.cache[key] = (arr, _exact_of(arr))  # the array kept alive with its id
        return self.cache[key][1]

    @staticmethod
    def dot(x: _Q, y: _Q) -> _Q:
        return _Q(np.dot(x.a, y.a), x.den * y.den)

    @staticmethod
    def add(x: _Q, y: _Q) -> _Q:
        if x.den == y.den:
            return _Q(x.a + y.a, x.den)
        g = math.gcd(x.den, y.den)
        return _Q(x.a * (y.den // g) + y.a * (x.den // g), x.den // g * y.den)

    @staticmethod
    def mul(x: _Q, y: _Q) -> _Q:
        return _Q(x.a * y.a, x.den * y.den)

    @staticmethod
    def T(x: _Q) -> _Q:
        return _Q(x.a.T, x.den)

    @staticmethod
    def values(x: _Q):
        return np.vectorize(lambda v: Fraction(v, x.den), otypes=[object])(x.a)


class _AbsRing:
    """The same evaluation with |weights| and |inputs| in float64: a bound on every intermediate value."""

    def __init__(self):
        self.cache = {}

    def weight(self, arr):
        key = id(arr)
        if key not in self.cache:
            self.cache[key] = (arr, np.abs(np.asarray(arr, dtype=object).astype(float)))
        return self.cache[key][1]

    @staticmethod
    def dot(x, y):
        return np.dot(x, y)

    @staticmethod
    def add(x, y):
        return x + y

    @staticmethod
    def mul(x, y):
        return x * y

    @staticmethod
    def T(x):
        return x.T

    @staticmethod
    def values(x):
        return x


# ---------------------------------------------------------------- the layers
def _affine(R, X, W, b):
    """X W^T + 1 b^T."""
    Y = R.dot(X, R.T(R.weight(W)))
    return Y if b is None else R.add(Y, R.weight(b))


def _act(R, Y, activation: str):
    return R.mul(Y, Y) if activation == "square" else Y


def _layer(R, L: dict, X):
    t = L["type"]
    if t == "channel_mix":
        Y = _act(R, _affine(R, X, L["W"], L.get("b")), L.get("activation", "none"))
        if L.get("W2") is not None:
            Y = _affine(R, Y, L["W2"], L.get("b2"))
    elif t == "token_mix":  # W2 act(W X + b 1^T) + b2 1^T
        Y = R.T(_affine(R, R.T(X), L["W"], L.get("b")))
        Y = _act(R, Y, L.get("activation", "none"))
        if L.get("W2") is not None:
            Y = R.T(_affine(R, R.T(Y), L["W2"], L.get("b2")))
    elif t == "product":
        bs = L.get("bs") or [None] * len(L["Ws"])
        Y = None
        for W, b in zip(L["Ws"], bs):
            F = _affine(R, X, W, b)
            Y = F if Y is None else R.mul(Y, F)
    elif t == "attention":
        Y = None
        for h in L["heads"]:
            if h.get("extra") or h.get("C") is not None:
                raise NotImplementedError("degree-k attention blocks")
            q = _affine(R, X, h["Q"], h.get("bQ"))
            k = _affine(R, X, h["K"], h.get("bK"))
            v = _affine(R, X, h["V"], h.get("bV"))
            o = _affine(R, R.dot(R.dot(q, R.T(k)), v), h["O"], h.get("bO"))
            Y = o if Y is None else R.add(Y, o)
    elif t == "branches":
        Y = None
        for branch in L["branches"]:
            B = _layers(R, branch, X)
            Y = B if Y is None else R.add(Y, B)
    else:
        raise NotImplementedError(f"layer type {t}")
    return R.add(Y, X) if L.get("residual") else Y


def _layers(R, layers, X):
    for L in layers:
        X = _layer(R, L, X)
    return X


def evaluate(layers, X):
    """The exact output (an N x d' object array of Fractions) of the layers at the input X (N x d,
    entries exact numbers)."""
    R = _ExactRing()
    return R.values(_layers(R, layers, _exact_of(X)))


def magnitude(layers, X):
    """A float64 bound (N x d') on the absolute value of every term the layers sum at X."""
    R = _AbsRing()
    return _layers(R, layers, np.abs(np.asarray(X, dtype=object).astype(float)))


def dyadic_point(rng: random.Random, shape) -> np.ndarray:
    """Random entries k/8 with |k| <= 16: exact in every float type, small enough that float64 forward
    passes on weights with few bits are exact too."""
    a = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        a[idx] = Fraction(rng.randint(-16, 16), 8)
    return a


def agrees(exact, bound, got, eps: float) -> bool:
    """Whether torch's float value `got` is the exact value up to the rounding a float forward pass
    with unit roundoff `eps` can make (a generous multiple of eps times the bound on the terms)."""
    if got == float(exact):
        return True
    if not math.isfinite(got):
        return False
    return abs(Fraction(got) - exact) <= Fraction(eps * 2.0**14 * (bound + 2.0**-60))
