"""Networks from other libraries' weights, every weight taken exactly: ``from_numpy`` (NumPy arrays,
Fractions or nested lists in the model format's layers) and ``from_torch`` (netpoly.torch)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Mapping, Sequence

from ._api import api, _short, entry
from ._netpoly import InputError
from ._network import Network, from_json
from ._number_text import gauss_text, integer_text, rational_text
from ._poly import GaussianRational


def _exact_text(x, where: str) -> str | int:
    """One weight as the model format writes it, exactly (NaN and infinities refused)."""
    if isinstance(x, str):
        return x
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return x if abs(x) < 2**53 else integer_text(x)
    if isinstance(x, complex) or (hasattr(x, "dtype") and getattr(x.dtype, "kind", "") == "c"):
        z = complex(x)
        for part in (z.real, z.imag):
            if part != part or part in (float("inf"), float("-inf")):
                raise InputError(f"{where}: {z} is not a number netpoly can take exactly")
        return gauss_text(Fraction(z.real), Fraction(z.imag))
    if hasattr(x, "dtype") and getattr(x.dtype, "kind", "") in "iub":
        return _exact_text(int(x), where)
    if isinstance(x, GaussianRational):
        return str(x)
    try:
        f = float(x) if not hasattr(x, "numerator") else None
    except (TypeError, ValueError):
        raise InputError(f"{where}: expected a number, got {type(x).__name__}") from None
    if f is not None and (f != f or f in (float("inf"), float("-inf"))):
        raise InputError(f"{where}: {f} is not a number netpoly can take exactly")
    try:
        q = Fraction(x) if f is None else Fraction(f)
    except (TypeError, ValueError):
        raise InputError(f"{where}: expected a number, got {_short(x)}") from None
    return rational_text(q)


def _matrix(a, where: str) -> list:
    try:
        rows = a.tolist() if hasattr(a, "tolist") and not (hasattr(a, "dtype") and a.dtype.kind == "O") \
            else [list(r) for r in a]
        if not isinstance(rows, list) or any(isinstance(r, (str, bytes)) for r in rows):
            raise TypeError
        rows = [list(r) for r in rows]
    except TypeError:
        raise InputError(f"{where}: expected a matrix (a list of rows of numbers), got {_short(a)}") from None
    return [[_exact_text(x, f"{where}[{i}][{j}]") for j, x in enumerate(r)] for i, r in enumerate(rows)]


_MATRICES = ("W", "W2", "Q", "K", "V", "O", "C")
_VECTORS = ("b", "b2", "bQ", "bK", "bV", "bO")  # biases (docs/model-format.md)


def _vector(a, where: str) -> list:
    try:
        xs = a.tolist() if hasattr(a, "tolist") else a
        if not isinstance(xs, (list, tuple)):
            raise TypeError
    except TypeError:
        raise InputError(f"{where}: expected a vector (a list of numbers), got {_short(a)}") from None
    return [_exact_text(x, f"{where}[{i}]") for i, x in enumerate(xs)]


def _head(h: dict, at: str) -> dict:
    out = {}
    for k, v in h.items():
        if k in _MATRICES:
            out[k] = _matrix(v, f"{at}.{k}")
        elif k in _VECTORS:
            out[k] = _vector(v, f"{at}.{k}")
        elif k == "extra":
            out[k] = [_head(e, f"{at}.extra[{j}]") for j, e in enumerate(v)]
        else:
            out[k] = v
    return out


def _layers(layers: Sequence[dict], where: str = "layers") -> list:
    out = []
    if isinstance(layers, (str, bytes, Mapping)) or not hasattr(layers, "__iter__"):
        raise InputError(f"{where}: expected a list of layers (dicts), got {_short(layers)}")
    for n, layer in enumerate(layers):
        if not isinstance(layer, Mapping):
            raise InputError(f"{where}[{n}]: expected a layer (a dict with a 'type'), got {_short(layer)}")
        d = {}
        at = f"{where}[{n}]"
        for k, v in layer.items():
            if k in _MATRICES:
                d[k] = _matrix(v, f"{at}.{k}")
            elif k in _VECTORS:
                d[k] = _vector(v, f"{at}.{k}")
            elif k == "Ws":
                d[k] = [_matrix(w, f"{at}.Ws[{i}]") for i, w in enumerate(v)]
            elif k == "bs":
                d[k] = [_vector(b, f"{at}.bs[{i}]") for i, b in enumerate(v)]
            elif k == "heads":
                d[k] = [_head(h, f"{at}.heads[{i}]") for i, h in enumerate(v)]
            elif k == "branches":
                d[k] = [_layers(b, f"{at}.branches[{i}]") for i, b in enumerate(v)]
            else:
                d[k] = v
        out.append(d)
    return out


@api
def from_numpy(layers: Sequence[dict], tokens: int, width: int, name: str = "from-numpy", output=(0, 0)) -> Network:
    """A model from layers written as in the model format, with NumPy arrays (integer, float or object
    arrays of Fractions) or nested lists in place of the matrices.

    Every weight is taken exactly: an integer as itself, a Fraction as itself, a float as the dyadic
    rational it is; NaN and infinities are refused (InputError naming the weight).
    """
    t, w = entry((tokens, width), "tokens/width:")
    o = entry(output, "output=")
    doc = {"format": "netpoly-model/1", "name": str(name), "input": {"tokens": t, "width": w},
           "layers": _layers(layers), "output": {"token": o[0], "channel": o[1]}}
    return from_json(json.dumps(doc), str(name))


@api
def from_torch(module, *args, **kwargs) -> Network:
    """``netpoly.torch.from_torch``: the Network a PyTorch module computes, its weights taken exactly.
    Imports torch (only here)."""
    from .torch import from_torch as f
    return f(module, *args, **kwargs)
