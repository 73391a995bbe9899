"""The dimension of a network's function family (``netpoly jacobian``): the rank of the Jacobian of
weights -> output coefficients at weights and points drawn at random mod a prime drawn at random,
a certified lower bound on the dimension, equal to it with the probability it states."""

from __future__ import annotations

from . import _netpoly
from ._netpoly import InputError


class Dimension:
    """``lower``/``upper``: the certified ends; ``status`` "exact" (they meet) or "probabilistic"
    (``eps``: the probability that the dimension exceeds ``lower``, over the prime, weights and
    points); ``weights``, ``points``, ``prime``, ``seed`` (reproduces the run), ``outputs``."""

    def __init__(self, d: dict):
        self.lower, self.upper = d["dimension_lower"], d["dimension_upper"]
        self.status, self.eps = d["status"], d["failure_probability"]
        self.weights, self.points, self.prime, self.seed = d["weights"], d["points"], d["prime"], d["seed"]
        self.outputs = [tuple(o) for o in d["outputs"]]

    @property
    def value(self) -> int:
        """The dimension: exact, or the certified lower end that it equals with probability >= 1 - eps."""
        return self.lower

    def __repr__(self) -> str:
        how = "exact" if self.status == "exact" else f"in [{self.lower}, {self.upper}], = {self.lower} with " \
                                                      f"probability >= 1 - {self.eps:.3g}"
        return f"<netpoly.Dimension {self.lower} ({how}; {self.weights} weights)>"


def jacobian_rank(net, outputs, seed) -> Dimension:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 < seed < 2**64):
        raise InputError(f"jacobian_rank: seed=: expected an int in [1, 2^64), got {seed!r}")
    return Dimension(_netpoly.jacobian_rank(net._m, outputs, False, seed or 0))
