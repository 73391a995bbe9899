"""The traced network evaluated at a point, exactly, and compared with the module's own forward pass:
from_torch's last step, so that a model it returns is the module's function (or it says why not).

Both evaluations are the engine's (net(X), netpoly/evaluate.hpp): the network in canonical form, the
one from_torch returns, exactly; and the traced layers with every weight and input replaced by its
absolute value, which bounds every intermediate value and so the rounding error a float forward pass
can make. torch's value must equal the exact one within that error; a model that computes a different
function is off by far more at a random point."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np


def dyadic_point(rng: random.Random, shape) -> np.ndarray:
    """Random entries k/8 with |k| <= 16: exact in every float type, small enough that float64 forward
    passes on weights with few bits are exact too."""
    a = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        a[idx] = Fraction(rng.randint(-16, 16), 8)
    return a


def values(net, magnitudes, P):
    """The exact output of `net` at P (a tokens x width array of Fractions) and a float64 bound on the
    terms it sums (`magnitudes` at |P|), both tokens x d' lists."""
    E = net([[x for x in row] for row in P])
    M = magnitudes([[abs(x) for x in row] for row in P])
    return E, [[float(x) for x in row] for row in M]


def agrees(exact, bound, got, eps: float) -> bool:
    """Whether torch's float value `got` is the exact value up to the rounding a float forward pass
    with unit roundoff `eps` can make (a generous multiple of eps times the bound on the terms)."""
    if got == float(exact):
        return True
    if not math.isfinite(got):
        return False
    return abs(Fraction(got) - exact) <= Fraction(eps * 2.0**14 * (bound + 2.0**-60))
