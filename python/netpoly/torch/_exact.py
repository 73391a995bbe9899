"""Exact weights: each float weight as the dyadic rational it is, or rounded to a grid of multiples of
1/2^k (``round_weights=``), with the Rounding report of what moved."""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np
import torch

import netpoly


class Rounding:
    """What ``from_torch(..., round_weights=eps)`` did: every float weight (parameters, buffers and the
    float constants of ``forward``) became the nearest multiple of ``1/denominator``, the coarsest grid
    of powers of two whose half-step is at most ``eps``; ``max_change`` is the largest change (exact),
    ``where`` the weight it happened to, ``changed`` how many of ``weights`` moved, ``zeroed`` how many
    nonzero weights became 0. The rounded network is another network: its separation rank may differ
    from the module's (weights that become 0 can lower it)."""

    def __init__(self, eps: Fraction, denominator: int):
        self.eps = eps
        self.denominator = denominator
        self.max_change = Fraction(0)
        self.where = None
        self.changed = 0
        self.zeroed = 0
        self.weights = 0

    def __repr__(self) -> str:
        zeroed = f", {self.zeroed} became 0" if self.zeroed else ""
        return (f"<netpoly.torch.Rounding: {self.changed} of {self.weights} weights to multiples of "
                f"1/{self.denominator}{zeroed}; largest change {float(self.max_change):.3g}"
                f"{f' ({self.where})' if self.where else ''}>")


class _Exact:
    """Floats to exact rationals: each float as the dyadic rational it is, or rounded to the grid."""

    def __init__(self, round_weights):
        self.rounding = None
        self.seen = {}
        if round_weights is not None:
            if isinstance(round_weights, bool) or not isinstance(round_weights, numbers.Real) or \
                    not isinstance(round_weights, numbers.Rational) and not math.isfinite(round_weights):
                raise netpoly.InputError(f"from_torch: round_weights={round_weights!r}: expected a finite number > 0")
            eps = Fraction(round_weights)
            if eps <= 0:
                raise netpoly.InputError(f"from_torch: round_weights={round_weights!r}: expected a tolerance > 0")
            k = 0  # the smallest k >= 0 with 1 / 2^(k+1) <= eps (eps >= 1/2: integers)
            while Fraction(1, 2 ** (k + 1)) > eps:
                k += 1
            self.rounding = Rounding(eps, 2 ** k)

    def number(self, x, where: str) -> Fraction:
        if isinstance(x, (bool, int)):
            return Fraction(int(x))
        if not math.isfinite(x):
            raise netpoly.InputError(f"from_torch: {where}: {x} is not a number netpoly can take exactly")
        return self.rational(Fraction(float(x)), where)  # a float is a dyadic rational: exact

    def rational(self, q: Fraction, where: str) -> Fraction:
        """q, or q rounded to the grid (counted as a weight) when rounding."""
        r = self.rounding
        if r is None:
            return q
        r.weights += 1
        D = r.denominator
        rounded = Fraction(round(q * D), D)
        change = abs(rounded - q)
        if change:
            r.changed += 1
            r.zeroed += rounded == 0
            if change > r.max_change:
                r.max_change, r.where = change, where
        return rounded

    def array(self, t, where: str) -> np.ndarray:
        """A tensor's entries, exactly (each tensor converted and counted once)."""
        key = id(t)
        if key in self.seen:
            return self.seen[key][1]
        a = self._array(t, where)
        self.seen[key] = (t, a)  # the tensor is kept alive with its id
        return a

    def _array(self, t, where: str) -> np.ndarray:
        t = t.detach().to("cpu")
        if t.is_complex():
            raise netpoly.InputError(f"from_torch: {where} is complex; netpoly.torch takes real weights")
        flat = t.reshape(-1).tolist() if t.is_floating_point() else [int(v) for v in t.reshape(-1).tolist()]
        vals = [self.number(v, where) for v in flat]
        a = np.empty(len(vals), dtype=object)
        a[:] = vals
        return a.reshape(tuple(t.shape))


def _exact_layer(d: dict, exact: _Exact, where: str) -> dict:
    """A reference module's to_layer() with exact arrays."""
    out = {}
    for k, v in d.items():
        if isinstance(v, torch.Tensor):
            out[k] = exact.array(v, f"{where}.{k}")
        elif k == "Ws":
            out[k] = [exact.array(w, f"{where}.Ws.{i}") for i, w in enumerate(v)]
        elif k == "heads":
            out[k] = [{hk: exact.array(hv, f"{where}.{hk}[{h}]") for hk, hv in hd.items()} for h, hd in enumerate(v)]
        elif k == "residual" and not v:
            continue
        else:
            out[k] = v
    return out
