"""Reading netpoly-model/1 files and partitions for the peer scripts.

Independent of netpoly's C++ reader on purpose: the peers must compute the
network from the spec (docs/model-format.md), not from netpoly's
output. Weights come back as fractions.Fraction; each peer converts them to
its own number type.
"""
import json
import re
from fractions import Fraction

_INT = re.compile(r"^-?[0-9]+$")
_RAT = re.compile(r"^(-?[0-9]+)/([0-9]+)$")


class ModelError(Exception):
    pass


def number(v, path):
    if isinstance(v, bool):
        raise ModelError(f"{path}: expected an exact number, got {v!r}")
    if isinstance(v, int):
        return Fraction(v)
    if isinstance(v, str):
        if _INT.match(v):
            return Fraction(int(v))
        m = _RAT.match(v)
        if m and int(m.group(2)) > 0:
            return Fraction(int(m.group(1)), int(m.group(2)))
    raise ModelError(f"{path}: expected an integer or a \"p/q\" string, got {v!r}")


def matrix(v, rows, cols, path):
    """A list of rows; rows/cols None means any (but rectangular)."""
    if not isinstance(v, list) or not v or (rows is not None and len(v) != rows):
        raise ModelError(f"{path}: expected a list of {rows if rows is not None else 'some'} rows")
    width = cols if cols is not None else (len(v[0]) if isinstance(v[0], list) else -1)
    out = []
    for i, r in enumerate(v):
        if not isinstance(r, list) or len(r) != width or width <= 0:
            raise ModelError(f"{path}[{i}]: expected a row of {width} numbers")
        out.append([number(x, f"{path}[{i}][{j}]") for j, x in enumerate(r)])
    return out


def load(path):
    """Returns a dict: name, tokens N, width d, layers (dicts with Fraction
    matrices, shapes checked), output (token, channel), out_width."""
    with open(path) as f:
        doc = json.load(f)
    if doc.get("format") != "netpoly-model/1":
        raise ModelError(f"{path}: format: expected \"netpoly-model/1\"")
    N = doc["input"]["tokens"]
    d0 = d = doc["input"]["width"]
    layers = []
    for l, L in enumerate(doc["layers"]):
        p = f"layers[{l}]"
        t = L.get("type")
        res = bool(L.get("residual", False))
        act = L.get("activation", "none")
        if act not in ("none", "square"):
            raise ModelError(f"{p}.activation: expected \"none\" or \"square\"")
        if t == "attention":
            heads = []
            for h, H in enumerate(L["heads"]):
                Q = matrix(H["Q"], None, d, f"{p}.heads[{h}].Q")
                da = len(Q)
                heads.append({"Q": Q, "K": matrix(H["K"], da, d, f"{p}.heads[{h}].K"),
                              "V": matrix(H["V"], da, d, f"{p}.heads[{h}].V"),
                              "O": matrix(H["O"], d, da, f"{p}.heads[{h}].O")})
            layers.append({"type": t, "heads": heads, "residual": res})
            dout = d
        elif t == "token_mix":
            W = matrix(L["W"], N, N, f"{p}.W")
            W2 = matrix(L["W2"], N, N, f"{p}.W2") if "W2" in L else None
            layers.append({"type": t, "W": W, "W2": W2, "activation": act, "residual": res})
            dout = d
        elif t == "channel_mix":
            W = matrix(L["W"], None, d, f"{p}.W")
            W2 = matrix(L["W2"], None, len(W), f"{p}.W2") if "W2" in L else None
            layers.append({"type": t, "W": W, "W2": W2, "activation": act, "residual": res})
            dout = len(W2) if W2 is not None else len(W)
        elif t == "product":
            Ws = [matrix(W, None, d, f"{p}.Ws[{k}]") for k, W in enumerate(L["Ws"])]
            if not Ws or any(len(W) != len(Ws[0]) for W in Ws):
                raise ModelError(f"{p}.Ws: expected k >= 1 matrices of one shape")
            layers.append({"type": t, "Ws": Ws, "residual": res})
            dout = len(Ws[0])
        elif t == "permute":
            perm = L["perm"]
            if sorted(perm) != list(range(N * d)):
                raise ModelError(f"{p}.perm: expected a permutation of 0..{N * d - 1}")
            layers.append({"type": t, "perm": list(perm), "residual": res})
            dout = d
        else:
            raise ModelError(f"{p}.type: unknown layer type {t!r}")
        if res and dout != d:
            raise ModelError(f"{p}.residual: the layer changes the width {d} -> {dout}")
        layers[-1]["in_width"] = d
        d = dout
    out = doc.get("output", {"token": 0, "channel": 0})
    i, c = out.get("token", 0), out.get("channel", 0)
    if not (0 <= i < N and 0 <= c < d):
        raise ModelError(f"{path}: output ({i}, {c}) out of range")
    return {"name": doc.get("name", ""), "tokens": N, "width": d0, "layers": layers,
            "output": (i, c), "out_width": d}


def var_names(N, d):
    """Row-major x{token}_{channel}, the names netpoly prints."""
    return [f"x{i}_{c}" for i in range(N) for c in range(d)]


def partition(spec, N, d):
    """Side A as a sorted list of variable indices (row-major), with netpoly's
    syntax: half | interleaved | A=0,2 | A=x0_1,x1_0 | 0,2 (tokens). For
    tokens == 1, half/interleaved/indices split the channels, as in netpoly."""
    channels = N == 1
    n = d if channels else N
    if spec in ("half", "interleaved"):
        items = [k for k in range(n) if (k < n // 2 if spec == "half" else k % 2 == 0)]
        vars_ = False
    else:
        s = spec[2:] if spec.startswith("A=") else spec
        items = [t.strip() for t in s.split(",") if t.strip()]
        vars_ = bool(items) and items[0].startswith("x")
    A = set()
    for it in items:
        if vars_:
            m = re.match(r"^x([0-9]+)_([0-9]+)$", it)
            if not m or int(m.group(1)) >= N or int(m.group(2)) >= d:
                raise ModelError(f"partition {spec!r}: bad variable {it!r}")
            A.add(int(m.group(1)) * d + int(m.group(2)))
        else:
            k = int(it)
            if not 0 <= k < n:
                raise ModelError(f"partition {spec!r}: index {k} out of range")
            if channels:
                A.add(k)
            else:
                A.update(k * d + c for c in range(d))
    if not A or len(A) == N * d:
        raise ModelError(f"partition {spec!r}: both sides must be non-empty")
    return sorted(A)
