"""The traced layers as a netpoly-model/1 document (exact numbers as the format writes them) and as
the netpoly Network it reads as."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np

import netpoly


def _num(q: Fraction):
    if q.denominator == 1:
        return int(q) if abs(q) < 2**53 else str(q.numerator)
    return f"{q.numerator}/{q.denominator}"


def _json(L: dict) -> dict:
    out = {}
    for k, v in L.items():
        if v is None:
            continue
        if k == "branches":
            out[k] = [[_json(M) for M in b] for b in v]
        elif k == "heads":
            out[k] = [_json(h) for h in v]
        elif k in ("Ws", "bs"):
            out[k] = [_json_array(a) for a in v]
        elif isinstance(v, np.ndarray):
            out[k] = _json_array(v)
        else:
            out[k] = v
    return out


def _json_array(a):
    if a.ndim == 1:
        return [_num(Fraction(x)) for x in a]
    return [[_num(Fraction(x)) for x in row] for row in a]


def document(layers, tokens: int, width: int, name: str = "from-torch", output=(0, 0)) -> dict:
    return {"format": "netpoly-model/1", "name": name, "input": {"tokens": int(tokens), "width": int(width)},
            "layers": [_json(L) for L in layers], "output": {"token": output[0], "channel": output[1]}}


def network(layers, tokens: int, width: int, name: str = "from-torch", output=(0, 0)):
    """The layers as written, not yet in canonical form."""
    return netpoly.from_json(json.dumps(document(layers, tokens, width, name, output)), name)


def _abs(v):
    if isinstance(v, dict):
        return {k: (x if k in ("type", "activation", "perm", "residual", "degree") else _abs(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [_abs(x) for x in v]
    if isinstance(v, int) and not isinstance(v, bool):
        return abs(v)
    if isinstance(v, str):
        return v.lstrip("-")
    return v


def magnitude_network(layers, tokens: int, width: int):
    """The same layers with every weight replaced by its absolute value: at |X|, each of its outputs
    bounds the absolute values of every term the layers sum, in the order they are written (the
    tracer's, which follows torch's operations), so the rounding a float forward pass can make."""
    doc = document(layers, tokens, width)
    doc["layers"] = _abs(doc["layers"])
    return netpoly.from_json(json.dumps(doc), "magnitudes")
