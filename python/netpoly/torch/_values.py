"""The values from_torch traces: exact matrices (NumPy object arrays of Fractions), the symbolic values
of the traced graph (activations, transposes, constants, scores, attention not yet written as a
layer), and the model format's layers as dicts of exact arrays."""

from __future__ import annotations

from fractions import Fraction

import numpy as np


# ---------------------------------------------------------------- exact matrices (numpy object arrays of Fractions)
def _zeros(*shape) -> np.ndarray:
    a = np.empty(shape, dtype=object)
    a.fill(Fraction(0))
    return a


def _eye(n: int) -> np.ndarray:
    a = _zeros(n, n)
    for i in range(n):
        a[i, i] = Fraction(1)
    return a


def _ones(*shape) -> np.ndarray:
    a = np.empty(shape, dtype=object)
    a.fill(Fraction(1))
    return a


def _vec(b, n: int) -> np.ndarray:
    return _zeros(n) if b is None else b


def _add_b(a, b):
    """The sum of two optional biases."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _scale_b(b, c):
    return None if b is None else b * c


def _compose(W2, b2, W, b):
    """x -> W2 (W x + b) + b2, as one affine map (W2 W, W2 b + b2)."""
    return W2.dot(W), _add_b(None if b is None else W2.dot(b), b2)


# ---------------------------------------------------------------- symbolic values
# A traced value is one of these; layers are dicts of the model format with exact arrays, shared between
# values by identity (never changed after they are made: a change makes a new dict).
class _Tok:
    """An N x width activation: `layers` applied to the input X (a per-token vector when `vec`)."""
    __slots__ = ("layers", "width", "vec")

    def __init__(self, layers: tuple, width: int, vec: bool = False):
        self.layers, self.width, self.vec = layers, width, vec


class _T:
    """The transpose (width x N) of an activation."""
    __slots__ = ("tok",)

    def __init__(self, tok: _Tok):
        self.tok = tok


class _Const:
    """A constant array (parameters, buffers): exact."""
    __slots__ = ("a",)

    def __init__(self, a: np.ndarray):
        self.a = a


class _Zero:
    """torch.zeros_like(...): the additive identity."""


class _Score:
    """N x N score matrix: sum of c (q_tok)(k_tok)^T over `terms` (q_tok, k_tok, c); masked causally
    (entries j > i zero: token i reads tokens 0..i) when `causal`."""
    __slots__ = ("terms", "causal")

    def __init__(self, terms: list, causal: bool = False):
        self.terms, self.causal = terms, causal


class _Gram:
    """The da x dv matrix sum of c (k_tok)^T (v_tok) over `terms` (k_tok, v_tok, c)."""
    __slots__ = ("terms",)

    def __init__(self, terms: list):
        self.terms = terms


class _Att:
    """Softmax-free attention not yet written as a layer: sum over heads of O (sum_j <q_i, k_j> v_j) + bias,
    all from the activation `prefix` (width d); a head is a dict Q, bQ, K, bK, V, bV, O (O None: identity);
    every head's scores masked causally (the sum over j <= i only) when `causal`."""
    __slots__ = ("prefix", "d", "heads", "out", "bias", "causal")

    def __init__(self, prefix: tuple, d: int, heads: list, out: int, bias=None, causal: bool = False):
        self.prefix, self.d, self.heads, self.out, self.bias, self.causal = prefix, d, heads, out, bias, causal


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _common(a: tuple, b: tuple) -> int:
    k = 0
    while k < len(a) and k < len(b) and a[k] is b[k]:
        k += 1
    return k


def _open(L, kind: str) -> bool:
    """Whether L is a layer of `kind` that a following map may be folded into (no residual)."""
    return L is not None and L["type"] == kind and not L.get("residual")


def _last(tok: _Tok):
    return tok.layers[-1] if tok.layers else None


def _cm(W, b=None, activation="none", W2=None, b2=None) -> dict:
    L = {"type": "channel_mix", "W": W, "activation": activation}
    if b is not None:
        L["b"] = b
    if W2 is not None:
        L["W2"] = W2
        if b2 is not None:
            L["b2"] = b2
    return L


def _tm(W, b=None, activation="none") -> dict:
    L = {"type": "token_mix", "W": W, "activation": activation}
    if b is not None:
        L["b"] = b
    return L


def _out_width(L: dict, d: int) -> int:
    t = L["type"]
    if t == "channel_mix":
        return (L["W2"] if "W2" in L else L["W"]).shape[0]
    if t == "product":
        return L["Ws"][0].shape[0]
    if t == "branches":
        for M in L["branches"][0]:
            d = _out_width(M, d)
    return d


def _pad(M, rows: int, cols: int):
    if M.shape == (rows, cols):
        return M
    P = _zeros(rows, cols)
    P[:M.shape[0], :M.shape[1]] = M
    return P


def _pad_vec(b, n: int):
    if b.shape[0] == n:
        return b
    P = _zeros(n)
    P[:b.shape[0]] = b
    return P


def _bs(L) -> list:
    return list(L["bs"]) if "bs" in L else [None] * len(L["Ws"])


def _product(Ws: list, bs: list) -> dict:
    L = {"type": "product", "Ws": list(Ws)}
    if any(b is not None for b in bs):
        L["bs"] = [_vec(b, W.shape[0]) for W, b in zip(Ws, bs)]
    return L


def _clean(L: dict) -> dict:
    """Drops bias keys set to None."""
    return {k: v for k, v in L.items() if v is not None}


class _Heads:
    """A value split into heads by view()/reshape(): `items[h]` is head h's value (an activation, its
    transpose, a score matrix, attention not yet written as a layer), a matrix with rows on axis "A" and
    columns on axis "B"; `order` is where the heads axis "H" and those two stand among the value's last
    three dimensions: ("A", "H", "B") as view() leaves (..., N, H, dh), ("H", "A", "B") after
    .transpose(1, 2)."""
    __slots__ = ("items", "order")

    def __init__(self, items: list, order: tuple):
        self.items, self.order = items, order
