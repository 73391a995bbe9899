"""PyTorch reference modules with the model format's semantics, and from_torch.

Each module computes exactly what its layer in the model format computes
(docs/model-format.md), on an input of shape (N, d) or a batch (B, N, d):

    Attention        softmax-free multi-head self-attention (LV eq. (1)):
                     Y = sum_h (X Q_h^T)(X K_h^T)^T X V_h^T O_h^T  (+ X with residual)
    TokenMix         Y = W2 act(W X)          (NB Def 3.2, mixing the tokens of each channel)
    ChannelMix       Y = act(X W^T) W2^T      (the same MLP on every token)
    Product          Y = (X W_1^T) ⊙ ... ⊙ (X W_k^T)   (AO's degree-k block, per token)
    Network          the layers in order (torch.nn.Sequential)

with act(z) = z^2 (σ₂) or the identity. ``from_torch(module, tokens=N)`` turns
such a module, or an ordinary one built from nn.Linear, squares, products,
matrix products, sums, transposes and residual additions (traced with
torch.fx), into a netpoly Network exactly: each float weight becomes the
dyadic rational it is (float32 and float64 values are binary fractions;
Fraction(float) is exact), or with ``round_weights=eps`` a nearby multiple of
a power of two 1/D (a fast exact rank).

The rest of netpoly works without torch; this module imports it.
"""

from __future__ import annotations

import json
import math
import numbers
import operator
from fractions import Fraction

import numpy as np
import torch
import torch.fx
from torch import nn

import netpoly
from netpoly._api import api

__all__ = ["Attention", "TokenMix", "ChannelMix", "Product", "Network", "mixer", "from_torch", "Rounding"]


def _act(z, activation):
    return z * z if activation == "square" else z


class Attention(nn.Module):
    def __init__(self, width: int, heads: int = 1, head_dim: int | None = None, residual: bool = False):
        super().__init__()
        da = head_dim if head_dim is not None else width // heads
        self.width, self.heads, self.head_dim, self.residual = width, heads, da, residual
        s = (1.0 / width) ** 0.5
        self.Q = nn.Parameter(torch.randn(heads, da, width) * s)
        self.K = nn.Parameter(torch.randn(heads, da, width) * s)
        self.V = nn.Parameter(torch.randn(heads, da, width) * s)
        self.O = nn.Parameter(torch.randn(heads, width, da) * s)

    def forward(self, X):
        Y = torch.zeros_like(X)
        for h in range(self.heads):
            q = X @ self.Q[h].T
            k = X @ self.K[h].T
            Y = Y + (q @ k.transpose(-1, -2)) @ X @ self.V[h].T @ self.O[h].T
        return Y + X if self.residual else Y

    def to_layer(self):
        heads = [{"Q": self.Q[h], "K": self.K[h], "V": self.V[h], "O": self.O[h]} for h in range(self.heads)]
        return {"type": "attention", "heads": heads, "residual": self.residual}


class TokenMix(nn.Module):
    def __init__(self, tokens: int, activation: str = "square", residual: bool = False, second: bool = False):
        super().__init__()
        self.activation, self.residual = activation, residual
        self.W = nn.Parameter(torch.randn(tokens, tokens) / tokens**0.5)
        self.W2 = nn.Parameter(torch.randn(tokens, tokens) / tokens**0.5) if second else None

    def forward(self, X):
        Y = _act(self.W @ X, self.activation)
        if self.W2 is not None:
            Y = self.W2 @ Y
        return Y + X if self.residual else Y

    def to_layer(self):
        d = {"type": "token_mix", "W": self.W, "activation": self.activation, "residual": self.residual}
        if self.W2 is not None:
            d["W2"] = self.W2
        return d


class ChannelMix(nn.Module):
    def __init__(self, width: int, hidden: int | None = None, activation: str = "square", residual: bool = False,
                 second: bool = False):
        super().__init__()
        h = hidden if hidden is not None else width
        self.activation, self.residual = activation, residual
        self.W = nn.Parameter(torch.randn(h, width) / width**0.5)
        self.W2 = nn.Parameter(torch.randn(width, h) / h**0.5) if second else None

    def forward(self, X):
        Y = _act(X @ self.W.T, self.activation)
        if self.W2 is not None:
            Y = Y @ self.W2.T
        return Y + X if self.residual else Y

    def to_layer(self):
        d = {"type": "channel_mix", "W": self.W, "activation": self.activation, "residual": self.residual}
        if self.W2 is not None:
            d["W2"] = self.W2
        return d


class Product(nn.Module):
    def __init__(self, width: int, degree: int = 2, residual: bool = False):
        super().__init__()
        self.residual = residual
        self.Ws = nn.ParameterList([nn.Parameter(torch.randn(width, width) / width**0.5) for _ in range(degree)])

    def forward(self, X):
        Y = X @ self.Ws[0].T
        for W in self.Ws[1:]:
            Y = Y * (X @ W.T)
        return Y + X if self.residual else Y

    def to_layer(self):
        return {"type": "product", "Ws": list(self.Ws), "residual": self.residual}


class Network(nn.Sequential):
    """Layers of the kinds above, applied in order."""


def mixer(layers: int, tokens: int, width: int, residual: bool = False, activation: str = "square") -> Network:
    """NB Def 3.2: token mixing and channel mixing alternate (token mixing first), as `netpoly make mixer`."""
    mods = [TokenMix(tokens, activation, residual) if l % 2 == 0 else ChannelMix(width, None, activation, residual)
            for l in range(layers)]
    return Network(*mods)


# ---------------------------------------------------------------- exact weights
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
                    not math.isfinite(round_weights):
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
    """N x N score matrix: sum of c (q_tok)(k_tok)^T over `terms` (q_tok, k_tok, c)."""
    __slots__ = ("terms",)

    def __init__(self, terms: list):
        self.terms = terms


class _Gram:
    """The da x dv matrix sum of c (k_tok)^T (v_tok) over `terms` (k_tok, v_tok, c)."""
    __slots__ = ("terms",)

    def __init__(self, terms: list):
        self.terms = terms


class _Att:
    """Softmax-free attention not yet written as a layer: sum over heads of O (sum_j <q_i, k_j> v_j) + bias,
    all from the activation `prefix` (width d); a head is a dict Q, bQ, K, bK, V, bV, O (O None: identity)."""
    __slots__ = ("prefix", "d", "heads", "out", "bias")

    def __init__(self, prefix: tuple, d: int, heads: list, out: int, bias=None):
        self.prefix, self.d, self.heads, self.out, self.bias = prefix, d, heads, out, bias


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


class _Tracer:
    """Turns an fx graph into the model format's layers (see from_torch)."""

    def __init__(self, gm, tokens: int, exact: _Exact):
        self.gm, self.N, self.exact = gm, tokens, exact
        self.node = None  # the node being read, for messages

    # ------------------------------------------------------------ messages
    def refuse(self, why: str | None = None):
        n = self.node
        what = f"node '{n.name}' ({n.op} {_target_name(self.gm, n)})" if n is not None else "the module"
        raise netpoly.InputError(f"from_torch: {what}: " + (
            why or "netpoly expresses linear maps, elementwise squares, products and sums only"))

    # ------------------------------------------------------------ activations
    def linear(self, tok: _Tok, W, b=None) -> _Tok:
        """tok W^T + 1 b^T (a Linear over the channels), folded into an open channel_mix."""
        if W.shape[1] != tok.width:
            self.refuse(f"a linear map of {W.shape[1]} inputs applied to {tok.width} channels")
        L = _last(tok)
        if _open(L, "channel_mix") and "W2" not in L:
            M = dict(L, W2=W)
            if b is not None:
                M["b2"] = b
            return _Tok(tok.layers[:-1] + (M,), W.shape[0], tok.vec)
        return _Tok(tok.layers + (_cm(W, b),), W.shape[0], tok.vec)

    def token_linear(self, tok: _Tok, W, b=None) -> _Tok:
        """W tok + b 1^T (a Linear over the tokens), folded into an open token_mix."""
        if W.shape != (self.N, self.N):
            self.refuse(f"a map over the tokens must be {self.N} x {self.N} (the token count is fixed), "
                        f"got {W.shape[0]} x {W.shape[1]}")
        L = _last(tok)
        if _open(L, "token_mix") and "W2" not in L:
            M = dict(L, W2=W)
            if b is not None:
                M["b2"] = b
            return _Tok(tok.layers[:-1] + (M,), tok.width, tok.vec)
        return _Tok(tok.layers + (_tm(W, b),), tok.width, tok.vec)

    def square(self, tok: _Tok) -> _Tok:
        L = _last(tok)
        for kind in ("channel_mix", "token_mix"):
            if _open(L, kind) and "W2" not in L and L.get("activation", "none") == "none":
                return _Tok(tok.layers[:-1] + (dict(L, activation="square"),), tok.width, tok.vec)
        return _Tok(tok.layers + (_cm(_eye(tok.width), activation="square"),), tok.width, tok.vec)

    def scale(self, tok: _Tok, c: Fraction) -> _Tok:
        if c == 1:
            return tok
        L = _last(tok)
        if L is not None and not L.get("residual"):
            t = L["type"]
            if t in ("channel_mix", "token_mix"):
                M = dict(L)
                if "W2" in M:
                    M["W2"], M["b2"] = M["W2"] * c, _scale_b(M.get("b2"), c)
                elif M.get("activation", "none") == "none":
                    M["W"], M["b"] = M["W"] * c, _scale_b(M.get("b"), c)
                else:
                    M["W2"] = _eye(M["W"].shape[0]) * c
                return _Tok(tok.layers[:-1] + (_clean(M),), tok.width, tok.vec)
            if t == "product":
                M = dict(L, Ws=[L["Ws"][0] * c] + list(L["Ws"][1:]))
                if "bs" in L:
                    M["bs"] = [L["bs"][0] * c] + list(L["bs"][1:])
                return _Tok(tok.layers[:-1] + (M,), tok.width, tok.vec)
            if t == "attention":
                heads = [_clean(dict(h, O=h["O"] * c, bO=_scale_b(h.get("bO"), c))) for h in L["heads"]]
                return _Tok(tok.layers[:-1] + (dict(L, heads=heads),), tok.width, tok.vec)
        return _Tok(tok.layers + (_cm(_eye(tok.width) * c),), tok.width, tok.vec)

    def channel_bias(self, tok: _Tok, beta) -> _Tok:
        L = _last(tok)
        if _open(L, "channel_mix"):
            M = dict(L)
            if "W2" in M:
                M["b2"] = _add_b(M.get("b2"), beta)
            elif M.get("activation", "none") == "none":
                M["b"] = _add_b(M.get("b"), beta)
            else:
                M["W2"], M["b2"] = _eye(M["W"].shape[0]), beta
            return _Tok(tok.layers[:-1] + (M,), tok.width, tok.vec)
        if _open(L, "attention"):
            heads = list(L["heads"])
            heads[0] = dict(heads[0], bO=_add_b(heads[0].get("bO"), beta))
            return _Tok(tok.layers[:-1] + (dict(L, heads=heads),), tok.width, tok.vec)
        return _Tok(tok.layers + (_cm(_eye(tok.width), beta),), tok.width, tok.vec)

    def token_bias(self, tok: _Tok, beta) -> _Tok:
        L = _last(tok)
        if _open(L, "token_mix"):
            M = dict(L)
            if "W2" in M:
                M["b2"] = _add_b(M.get("b2"), beta)
            elif M.get("activation", "none") == "none":
                M["b"] = _add_b(M.get("b"), beta)
            else:
                M["W2"], M["b2"] = _eye(self.N), beta
            return _Tok(tok.layers[:-1] + (M,), tok.width, tok.vec)
        return _Tok(tok.layers + (_tm(_eye(self.N), beta),), tok.width, tok.vec)

    def affine_options(self, tok: _Tok) -> list:
        """Ways to write tok as (prefix layers) followed by an affine map (W, b), the shorter prefix first."""
        opts = []
        L = _last(tok)
        if _open(L, "channel_mix") and L.get("activation", "none") == "none":
            W, b = L["W"], L.get("b")
            if "W2" in L:
                W, b = _compose(L["W2"], L.get("b2"), W, b)
            opts.append((tok.layers[:-1], W, b))
        opts.append((tok.layers, _eye(tok.width), None))
        return opts

    def joint(self, toks: list):
        """A prefix P and affine maps (W_i, b_i) with toks[i] = P W_i^T + 1 b_i^T: the activation an
        attention or product layer reads. When the toks read no common activation through affine maps,
        P ends with a sum of branches that lays them side by side ([t_1 | t_2 | ...])."""
        opts = [self.affine_options(t) for t in toks]
        for prefix, _, _ in opts[0]:
            chosen = []
            for o in opts:
                m = [(W, b) for p, W, b in o if _same(p, prefix)]
                if not m:
                    break
                chosen.append(m[0])
            if len(chosen) == len(toks):
                return prefix, chosen
        uniq = []
        for t in toks:
            if not any(u is t or (_same(u.layers, t.layers) and u.width == t.width) for u in uniq):
                uniq.append(t)
        k = len(uniq[0].layers)
        for t in uniq[1:]:
            k = min(k, _common(uniq[0].layers, t.layers))
        C = uniq[0].layers[:k]
        total = sum(t.width for t in uniq)
        branches, offset = [], {}
        off = 0
        for t in uniq:
            E = _zeros(total, t.width)
            for r in range(t.width):
                E[off + r, r] = Fraction(1)
            branches.append(list(t.layers[k:]) + [_cm(E)])
            offset[id(t)] = off
            off += t.width
        P = C + ({"type": "branches", "branches": branches},)
        chosen = []
        for t in toks:
            u = next(u for u in uniq if u is t or (_same(u.layers, t.layers) and u.width == t.width))
            S = _zeros(t.width, total)
            for r in range(t.width):
                S[r, offset[id(u)] + r] = Fraction(1)
            chosen.append((S, None))
        return P, chosen

    def product(self, u: _Tok, v: _Tok) -> _Tok:
        for a, b in ((u, v), (v, u)):  # extend an open product block by one factor
            L = _last(a)
            if _open(L, "product"):
                for p, W, bb in self.affine_options(b):
                    if _same(p, a.layers[:-1]):
                        return _Tok(a.layers[:-1] + (_product(L["Ws"] + [W], _bs(L) + [bb]),), a.width, a.vec)
        P, ((W1, b1), (W2, b2)) = self.joint([u, v])
        return _Tok(P + (_product([W1, W2], [b1, b2]),), u.width, u.vec)

    def power(self, tok: _Tok, k: int) -> _Tok:
        if k == 1:
            return tok
        if k == 2:
            return self.square(tok)
        P, ((W, b),) = self.joint([tok])
        return _Tok(P + (_product([W] * k, [b] * k),), tok.width, tok.vec)

    def add(self, u: _Tok, v: _Tok) -> _Tok:
        if u is v:
            return self.scale(u, Fraction(2))
        k = _common(u.layers, v.layers)
        C, ru, rv = u.layers[:k], u.layers[k:], v.layers[k:]
        if not ru and not rv:
            return self.scale(u, Fraction(2))
        if not ru or not rv:  # one is the other's input: a residual connection
            r = ru or rv
            if len(r) == 1 and not r[0].get("residual"):
                return _Tok(C + (dict(r[0], residual=True),), u.width, u.vec)
            return _Tok(C + ({"type": "branches", "branches": [list(r), []]},), u.width, u.vec)
        for a, b in ((ru, rv), (rv, ru)):  # a sum of branches grows by one branch
            if len(a) == 1 and a[0]["type"] == "branches" and not a[0].get("residual"):
                return _Tok(C + ({"type": "branches", "branches": a[0]["branches"] + [list(b)]},), u.width, u.vec)
        return _Tok(C + ({"type": "branches", "branches": [list(ru), list(rv)]},), u.width, u.vec)

    # ------------------------------------------------------------ attention
    def attention(self, pairs: list, values: list) -> _Att:
        """Heads sum_j c <q_i, k_j> v_j for (q_tok, k_tok, c) in pairs, each with the value v_tok of values."""
        toks = []
        for (q, k, _), v in zip(pairs, values):
            toks += [q, k, v]
        P, maps = self.joint(toks)
        heads = []
        for h, ((_, _, c), _) in enumerate(zip(pairs, values)):
            (Q, bQ), (K, bK), (V, bV) = maps[3 * h: 3 * h + 3]
            heads.append({"Q": Q, "bQ": bQ, "K": K, "bK": bK, "V": V * c, "bV": _scale_b(bV, c), "O": None})
        d = maps[0][0].shape[1]
        return _Att(P, d, heads, values[0].width)

    def att_linear(self, a: _Att, W, b=None) -> _Att:
        if W.shape[1] != a.out:
            self.refuse(f"a linear map of {W.shape[1]} inputs applied to {a.out} channels")
        heads = [dict(h, O=W if h["O"] is None else W.dot(h["O"])) for h in a.heads]
        bias = _add_b(None if a.bias is None else W.dot(a.bias), b)
        return _Att(a.prefix, a.d, heads, W.shape[0], bias)

    def att_layer(self, a: _Att) -> _Tok:
        """The attention layer (and, when its output width m differs from its input width d, the maps
        that make the format's d-to-d layer compute it: zero rows of O and a projection when m < d, the
        input laid into m channels first when m > d)."""
        d, m = a.d, a.out
        prefix, widen = a.prefix, max(0, m - d)
        if widen:
            E = _zeros(m, d)
            for r in range(d):
                E[r, r] = Fraction(1)
            prefix = prefix + (_cm(E),)
        D = d + widen
        heads = []
        for h in a.heads:
            Q, K, V = h["Q"], h["K"], h["V"]
            O = _eye(V.shape[0]) if h["O"] is None else h["O"]
            da = max(Q.shape[0], V.shape[0])
            head = {"Q": _pad(Q, da, D), "K": _pad(K, da, D), "V": _pad(V, da, D), "O": _pad(O, D, da)}
            for key, rows in (("bQ", da), ("bK", da), ("bV", da)):
                if h[key] is not None:
                    head[key] = _pad_vec(h[key], rows)
            heads.append(head)
        if a.bias is not None:
            heads[0]["bO"] = _pad_vec(a.bias, D)
        layers = prefix + ({"type": "attention", "heads": heads},)
        if m < d:  # the first m channels
            E = _zeros(m, d)
            for r in range(m):
                E[r, r] = Fraction(1)
            layers = layers + (_cm(E),)
        return _Tok(layers, m)

    # ------------------------------------------------------------ values in general
    def tok(self, v) -> _Tok:
        """v as an N x w activation (attention written as a layer); refuses what is not one."""
        if isinstance(v, _Tok):
            return v
        if isinstance(v, _Att):
            return self.att_layer(v)
        if isinstance(v, _T):
            self.refuse("the value is transposed (channels x tokens) here; netpoly's activations are "
                        "tokens x channels: transpose it back first")
        if isinstance(v, _Score):
            self.refuse("a score matrix (tokens x tokens) is used here as an activation; netpoly's attention "
                        "multiplies it by values (scores @ v)")
        if isinstance(v, _Gram):
            self.refuse("a channels x channels product (k^T v) is used here as an activation; netpoly's "
                        "attention multiplies it by queries (q @ (k^T v))")
        self.refuse("a constant is used here as an activation; the network's values must come from its input")

    def const_to(self, v, shape):
        """A constant (or a Python number) broadcast to `shape`, exactly; None if v is no constant."""
        if isinstance(v, _Const):
            a = v.a
        elif isinstance(v, (int, Fraction)) and not isinstance(v, bool):
            a = np.array(Fraction(v), dtype=object)
        else:
            return None
        try:
            return np.broadcast_to(a, shape)
        except ValueError:
            self.refuse(f"a constant of shape {tuple(a.shape)} does not broadcast to {tuple(shape)}")

    @staticmethod
    def scalar(v):
        """v as an exact number when it is a number (floats are made exact first) or a one-element
        constant, else None."""
        if isinstance(v, bool):
            return None
        if isinstance(v, int):
            return Fraction(v)
        if isinstance(v, Fraction):
            return v
        if isinstance(v, _Const) and v.a.size == 1:
            return v.a.reshape(-1)[0]
        return None

    def scale_any(self, v, c: Fraction):
        if isinstance(v, _Zero) or c == 1:
            return v
        if isinstance(v, _Tok):
            return self.scale(v, c)
        if isinstance(v, _T):
            return _T(self.scale(v.tok, c))
        if isinstance(v, _Score):
            return _Score([(q, k, w * c) for q, k, w in v.terms])
        if isinstance(v, _Gram):
            return _Gram([(k, u, w * c) for k, u, w in v.terms])
        if isinstance(v, _Att):
            heads = [dict(h, O=(_eye(h["V"].shape[0]) if h["O"] is None else h["O"]) * c) for h in v.heads]
            return _Att(v.prefix, v.d, heads, v.out, _scale_b(v.bias, c))
        if isinstance(v, _Const):
            return _Const(v.a * c)
        self.refuse()

    def add_const(self, tok: _Tok, a) -> _Tok:
        """tok + a constant broadcast over it: a bias per channel or per token."""
        shape = (self.N,) if tok.vec else (self.N, tok.width)
        full = self.const_to(a, shape)
        if all(x == 0 for x in full.reshape(-1)):
            return tok
        if tok.vec:
            if all(x == full[0] for x in full):
                return self.channel_bias(tok, np.array([full[0]], dtype=object))
            return self.token_bias(tok, np.array(full, dtype=object))
        if all(full[i, c] == full[0, c] for i in range(self.N) for c in range(tok.width)):
            return self.channel_bias(tok, np.array(full[0], dtype=object))
        if all(full[i, c] == full[i, 0] for i in range(self.N) for c in range(tok.width)):
            return self.token_bias(tok, np.array(full[:, 0], dtype=object))
        self.refuse("adding a constant N x w matrix that is neither a bias per channel nor one per token")

    def broadcast(self, u: _Tok, v: _Tok):
        """u and v at one width (a width-1 activation repeated over the channels), for elementwise ops."""
        if u.vec != v.vec:
            self.refuse("an elementwise operation between a per-token vector and an activation (their "
                        "broadcasting pairs channels with tokens); keep the dimension (keepdim=True)")
        if u.width == v.width:
            return u, v
        if u.width == 1:
            return self.linear(u, _ones(v.width, 1)), v
        if v.width == 1:
            return u, self.linear(v, _ones(u.width, 1))
        self.refuse(f"an elementwise operation between {u.width} and {v.width} channels")

    def add_any(self, u, v):
        if isinstance(u, _Zero):
            return v
        if isinstance(v, _Zero):
            return u
        cu, cv = self.scalar(u), self.scalar(v)
        if cu == 0 and not isinstance(u, _Const):
            return v
        if cv == 0 and not isinstance(v, _Const):
            return u
        if isinstance(u, _Const) and isinstance(v, _Const):
            return _Const(u.a + v.a)
        if isinstance(u, (_Const, int, Fraction)):
            u, v, cu, cv = v, u, cv, cu
        if isinstance(v, (_Const, int, Fraction)):
            if isinstance(u, _T):
                return _T(self.add_const_t(u.tok, v))
            if isinstance(u, _Att) and cv is not None:
                return _Att(u.prefix, u.d, u.heads, u.out, _add_b(u.bias, _ones(u.out) * cv))
            if isinstance(u, _Att) and isinstance(v, _Const) and v.a.ndim == 1:
                return _Att(u.prefix, u.d, u.heads, u.out, _add_b(u.bias, np.array(self.const_to(v, (u.out,)))))
            return self.add_const(self.tok(u), v)
        if isinstance(u, _Score) and isinstance(v, _Score):
            return _Score(u.terms + v.terms)
        if isinstance(u, _Gram) and isinstance(v, _Gram):
            return _Gram(u.terms + v.terms)
        if isinstance(u, _T) and isinstance(v, _T):
            return _T(self.add(*self.broadcast(u.tok, v.tok)))
        if isinstance(u, _Att) and isinstance(v, _Att) and _same(u.prefix, v.prefix) and u.out == v.out and \
                u.d == v.d:
            return _Att(u.prefix, u.d, u.heads + v.heads, u.out, _add_b(u.bias, v.bias))
        return self.add(*self.broadcast(self.tok(u), self.tok(v)))

    def add_const_t(self, tok: _Tok, v) -> _Tok:
        """tok^T + a constant (width x N): the transposed constant added to tok."""
        full = self.const_to(v, (tok.width, self.N))
        return self.add_const(tok, _Const(np.array(full.T, dtype=object)))

    def mul_any(self, u, v):
        cu, cv = self.scalar(u), self.scalar(v)
        if isinstance(u, _Const) and isinstance(v, _Const):
            return _Const(u.a * v.a)
        if cu is not None and not isinstance(v, (int, Fraction)):
            return self.scale_any(v, cu)
        if cv is not None:
            return self.scale_any(u, cv)
        if isinstance(u, _Const):
            u, v = v, u
        if isinstance(v, _Const):  # elementwise by a constant: a diagonal map per channel or per token
            if isinstance(u, _T):
                full = self.const_to(v, (u.tok.width, self.N))
                return _T(self.mul_const(u.tok, np.array(full.T, dtype=object)))
            t = self.tok(u)
            return self.mul_const(t, self.const_to(v, (self.N,) if t.vec else (self.N, t.width)))
        if isinstance(u, _T) and isinstance(v, _T):
            return _T(self.mul_any(u.tok, v.tok))
        if isinstance(u, (_Score, _Gram)) or isinstance(v, (_Score, _Gram)):
            self.refuse("an elementwise product of score matrices; netpoly's attention is linear in its scores")
        a, b = self.tok(u), self.tok(v)
        if a is b or (_same(a.layers, b.layers) and a.width == b.width):
            return self.square(a)
        return self.product(*self.broadcast(a, b))

    def mul_const(self, tok: _Tok, full) -> _Tok:
        if tok.vec:
            if all(x == full[0] for x in full):
                return self.scale(tok, full[0])
            self.refuse("multiplying a per-token vector by a constant that differs between tokens")
        if all(full[i, c] == full[0, c] for i in range(self.N) for c in range(tok.width)):
            g = _zeros(tok.width, tok.width)
            for c in range(tok.width):
                g[c, c] = full[0, c]
            return self.linear(tok, g)
        if all(full[i, c] == full[i, 0] for i in range(self.N) for c in range(tok.width)):
            g = _zeros(self.N, self.N)
            for i in range(self.N):
                g[i, i] = full[i, 0]
            return self.token_linear(tok, g)
        self.refuse("multiplying by a constant N x w matrix that is neither one factor per channel nor per token")

    def transpose(self, v):
        if isinstance(v, _Tok):
            if v.vec:
                self.refuse("transposing a per-token vector")
            return _T(v)
        if isinstance(v, _T):
            return v.tok
        if isinstance(v, _Score):
            return _Score([(k, q, c) for q, k, c in v.terms])
        if isinstance(v, _Gram):
            return _Gram([(u, k, c) for k, u, c in v.terms])
        if isinstance(v, _Att):
            return _T(self.att_layer(v))
        if isinstance(v, _Const):
            if v.a.ndim < 2:
                return v
            return _Const(np.swapaxes(v.a, -1, -2))
        self.refuse()

    def matmul(self, a, b):
        if isinstance(a, _Const) and isinstance(b, _Const):
            return _Const(np.matmul(a.a, b.a))
        if isinstance(b, _Const):
            C = b.a
            if C.ndim != 2:
                self.refuse(f"a product with a constant of shape {tuple(C.shape)}; netpoly takes matrices here")
            if isinstance(a, _Att):
                return self.att_linear(a, np.array(C.T, dtype=object))
            if isinstance(a, _T):
                return _T(self.token_linear(a.tok, np.array(C.T, dtype=object)))
            if isinstance(a, _Gram):
                return _Gram([(k, self.linear(u, np.array(C.T, dtype=object)), c) for k, u, c in a.terms])
            if isinstance(a, _Score):
                self.refuse("a score matrix times constant values (an even-degree block with C) is not traced; "
                            "write the block's model file")
            t = self.tok(a)
            if t.vec:
                self.refuse("a product of a per-token vector with a matrix")
            return self.linear(t, np.array(C.T, dtype=object))
        if isinstance(a, _Const):
            C = a.a
            if C.ndim != 2:
                self.refuse(f"a product with a constant of shape {tuple(C.shape)}; netpoly takes matrices here")
            if isinstance(b, _T):
                return _T(self.linear(b.tok, C))
            if isinstance(b, _Gram):
                return _Gram([(self.linear(k, C), u, c) for k, u, c in b.terms])
            if isinstance(b, _Score):
                self.refuse("a constant times a score matrix is not traced")
            return self.token_linear(self.tok(b), C)
        if isinstance(a, _Att):
            a = self.att_layer(a)
        if isinstance(b, _Att):
            b = self.att_layer(b)
        if isinstance(a, _Tok) and isinstance(b, _T):
            if a.vec or a.width != b.tok.width:
                self.refuse(f"scores q @ k^T need q and k of one width, got {a.width} and {b.tok.width}")
            return _Score([(a, b.tok, Fraction(1))])
        if isinstance(a, _T) and isinstance(b, _Tok):
            return _Gram([(a.tok, b, Fraction(1))])
        if isinstance(a, _Score) and isinstance(b, _Tok):
            if b.vec:
                self.refuse("scores times a per-token vector; keep the dimension (keepdim=True)")
            return self.attention(a.terms, [b] * len(a.terms))
        if isinstance(a, _Tok) and isinstance(b, _Gram):
            if a.vec or any(k.width != a.width for k, _, _ in b.terms):
                self.refuse("q @ (k^T v) needs q and k of one width")
            if len({u.width for _, u, _ in b.terms}) != 1:
                self.refuse("a sum of k^T v products with values of different widths")
            return self.attention([(a, k, c) for k, _, c in b.terms], [u for _, u, _ in b.terms])
        if isinstance(a, (_Score, _Gram)) and isinstance(b, (_Score, _Gram)):
            self.refuse("a product of two score matrices (a degree-k block) is not traced; write the block's "
                        "model file (docs/model-format.md, degree-k attention blocks)")
        if isinstance(a, _Tok) and isinstance(b, _Tok):
            self.refuse("a product of two activations that contracts channels with tokens; netpoly's layers "
                        "multiply scores (q @ k^T) by values")
        self.refuse()

    def sum_any(self, v, dim, keepdim: bool, rank: int):
        if dim is None or isinstance(dim, (list, tuple)) and len(dim) != 1:
            self.refuse("a sum over every entry (or several dimensions); netpoly sums over the channels")
        if isinstance(dim, (list, tuple)):
            dim = dim[0]
        dim %= rank
        if isinstance(v, _Att):
            v = self.att_layer(v)
        if isinstance(v, _Tok) and not v.vec and dim == rank - 1:
            s = self.linear(v, _ones(1, v.width))
            return s if keepdim else self.as_vec(s)
        if isinstance(v, _T) and dim == rank - 2:
            s = self.linear(v.tok, _ones(1, v.tok.width))
            return _T(s) if keepdim else self.as_vec(s)
        self.refuse("a sum over the tokens (or the batch); netpoly's networks keep the N tokens, sums run "
                    "over the channels")

    @staticmethod
    def as_vec(tok: _Tok) -> _Tok:
        return _Tok(tok.layers, 1, True)


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


# ---------------------------------------------------------------- the graph
def _target_name(gm, n) -> str:
    t = n.target
    if n.op == "call_function":
        name = getattr(t, "__name__", str(t))
        if getattr(operator, name, None) is t:
            return f"operator.{name}"
        for mod, label in ((torch, "torch"), (torch.nn.functional, "torch.nn.functional")):
            if getattr(mod, name, None) is t:
                return f"{label}.{name}"
        return f"{getattr(t, '__module__', None) or '?'}.{name}"
    if n.op == "call_method":
        return f"Tensor.{t}"
    if n.op == "call_module":
        m = gm.get_submodule(t)
        mod = type(m).__module__
        kind = f"nn.{type(m).__name__}" if mod.startswith("torch.nn") else f"{mod}.{type(m).__name__}"
        return kind if t == n.name else f"{kind} at '{t}'"
    return str(t)


def _is(target, *names) -> bool:
    """Whether a call_function target is one of torch's or operator's functions of these names."""
    for name in names:
        for mod in (operator, torch, torch.nn.functional):
            if getattr(mod, name, None) is target:
                return True
    return False


_LEAVES = ()  # set below: the reference modules, taken whole by their to_layer()


class _FxTracer(torch.fx.Tracer):
    def is_leaf_module(self, m, qualname):
        return isinstance(m, _LEAVES) or super().is_leaf_module(m, qualname)


def _rank(n) -> int | None:
    shape = n.meta.get("netpoly_shape") if isinstance(n, torch.fx.Node) else None
    return None if shape is None else len(shape)


class _ShapeRun(torch.fx.Interpreter):
    """Runs the graph once, keeping each tensor value's shape on its node (meta["netpoly_shape"])."""

    def run_node(self, n):
        r = super().run_node(n)
        n.meta["netpoly_shape"] = tuple(r.shape) if isinstance(r, torch.Tensor) else None
        return r


def _input_width(gm, graph, placeholder):
    """The input width d: the first map that reads the input's channels."""
    for n in graph.nodes:
        if n.op == "call_module":
            m = gm.get_submodule(n.target)
            if isinstance(m, nn.Linear) and n.args and n.args[0] is placeholder:
                return m.in_features
            if isinstance(m, Attention):
                return m.width
            if isinstance(m, ChannelMix):
                return m.W.shape[1]
            if isinstance(m, Product):
                return m.Ws[0].shape[1]
        if n.op == "call_function" and _is(n.target, "linear") and n.args and n.args[0] is placeholder:
            w = n.args[1]
            if getattr(w, "op", None) == "get_attr":
                return _fetch(gm, w.target).shape[1]
    return None


def _fetch(gm, target: str):
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _runs(gm, tokens: int, width: int) -> bool:
    try:
        _shapes(gm, tokens, width)
        return True
    except netpoly.InputError:
        return False


def _shapes(gm, tokens: int, width: int):
    """Runs the module once on an (N, d) input (else a batch of one, (1, N, d)) to learn every value's shape."""
    params = [p for p in gm.parameters() if p.is_floating_point()]
    dtype = params[0].dtype if params else torch.get_default_dtype()
    first = None
    for shape in ((tokens, width), (1, tokens, width)):
        try:
            with torch.no_grad():
                _ShapeRun(gm).run(torch.zeros(*shape, dtype=dtype))  # shapes only (and no draw from torch's generator)
            return len(shape)
        except Exception as e:  # noqa: BLE001 - the module's own error, reported below
            first = first or e
    raise netpoly.InputError(f"from_torch: the module fails on an input of shape ({tokens}, {width}) "
                             f"(and (1, {tokens}, {width})): {type(first).__name__}: {first}")


def _trace_layers(module, tokens: int, width: int | None, exact: _Exact):
    tracer = _FxTracer()
    try:
        graph = tracer.trace(module)
    except Exception as e:  # noqa: BLE001 - fx's message says what it could not trace
        raise netpoly.InputError(f"from_torch: torch.fx cannot trace {type(module).__name__}: "
                                 f"{type(e).__name__}: {e}") from None
    gm = torch.fx.GraphModule(module, graph)
    inputs = [n for n in graph.nodes if n.op == "placeholder"]
    if len(inputs) != 1:
        raise netpoly.InputError(f"from_torch: {type(module).__name__}.forward takes {len(inputs)} inputs; "
                                 "netpoly's networks take one (the N x d input)")
    if width is None:
        width = _input_width(gm, graph, inputs[0])
    if width is None:
        # the widths the module's maps take, those on which it runs
        sizes = sorted({int(x) for p in gm.parameters() for x in p.shape})
        probe = max(sizes, default=1) + 1  # a width no map takes: a module that runs on it takes any width
        fits = [w for w in sizes + [probe] if _runs(gm, tokens, w)]
        if len(fits) != 1 or fits == [probe]:
            raise netpoly.InputError("from_torch: give width= (" + (
                "the module runs on inputs of any width" if probe in fits else
                f"the module runs on inputs of widths {', '.join(map(str, fits))}" if fits else
                "no width taken from the module's parameters runs it") + ")")
        width = fits[0]
    in_rank = _shapes(gm, tokens, width)
    T = _Tracer(gm, tokens, exact)
    env = {}

    def val(a):
        if isinstance(a, torch.fx.Node):
            return env[a]
        if isinstance(a, (list, tuple)):
            return type(a)(val(x) for x in a)
        return a

    out = None
    for n in graph.nodes:
        T.node = n
        args = [val(a) for a in n.args]
        kwargs = {k: val(v) for k, v in n.kwargs.items()}
        if n.op == "placeholder":
            env[n] = _Tok((), width)
        elif n.op == "get_attr":
            t = _fetch(gm, n.target)
            if not isinstance(t, torch.Tensor):
                T.refuse("a module attribute that is not a tensor")
            env[n] = _Const(exact.array(t, n.target))
        elif n.op == "call_module":
            env[n] = _call_module(T, gm, n, args, kwargs)
        elif n.op == "call_function":
            env[n] = _call(T, n, n.target, args, kwargs, in_rank)
        elif n.op == "call_method":
            env[n] = _call_method(T, n, args, kwargs, in_rank)
        elif n.op == "output":
            out = args[0]
    T.node = None
    if isinstance(out, (list, tuple, dict)):
        raise netpoly.InputError("from_torch: the module returns several values; netpoly's networks return one "
                                 "N x d' activation")
    res = T.tok(out)
    return res.layers, width, res.width


def _call_module(T: _Tracer, gm, n, args, kwargs):
    m = gm.get_submodule(n.target)
    if isinstance(m, _LEAVES):
        x = T.tok(args[0])
        if x.vec:
            T.refuse("a netpoly.torch layer applied to a per-token vector")
        L = _exact_layer(m.to_layer(), T.exact, n.target)
        return _Tok(x.layers + (L,), _out_width(L, x.width))
    if isinstance(m, nn.Linear):
        W = T.exact.array(m.weight, f"{n.target}.weight")
        b = T.exact.array(m.bias, f"{n.target}.bias") if m.bias is not None else None
        return _linear_any(T, args[0], W, b)
    if isinstance(m, nn.Identity) or isinstance(m, nn.Dropout) and not m.training:
        return args[0]
    if isinstance(m, nn.Dropout):
        T.refuse("dropout in training mode is random; call module.eval() first (dropout is then the identity)")
    T.refuse()


def _linear_any(T: _Tracer, x, W, b):
    """A Linear layer (or F.linear) applied to x: over the last dimension, whatever x is."""
    if isinstance(x, _T):
        return _T(T.token_linear(x.tok, W, b))
    if isinstance(x, _Att):
        return T.att_linear(x, W, b)
    if isinstance(x, _Gram):
        if b is not None:
            T.refuse("a Linear with a bias applied to k^T v")
        return _Gram([(k, T.linear(u, W), c) for k, u, c in x.terms])
    t = T.tok(x)
    if t.vec:  # a per-token vector's last (only) dimension is the tokens
        return T.token_linear(t, W, b)
    return T.linear(t, W, b)


def _transposes_last_two(dims: list, rank: int) -> bool:
    return sorted(d % rank for d in dims) == [rank - 2, rank - 1]


def _call(T: _Tracer, n, f, args, kwargs, in_rank: int):
    where = f"a constant of node '{n.name}'"
    if _is(f, "pow"):
        k = args[1]
        if isinstance(k, (float, Fraction)) and k == int(k):
            k = int(k)
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            T.refuse(f"a power {k!r}; netpoly takes positive integer powers")
        if isinstance(args[0], _T):
            return _T(T.power(args[0].tok, k))
        return T.power(T.tok(args[0]), k)
    if _is(f, "truediv", "div") or f is operator.itruediv:
        d = args[1]
        if kwargs.get("rounding_mode") is not None:
            T.refuse("a rounding division")
        if isinstance(d, float) and d != 0:  # the factor 1/d, exactly (rounded as a weight)
            return T.scale_any(args[0], T.exact.rational(1 / Fraction(d), where))
        c = T.scalar(d)
        if c is None:
            T.refuse("division by a value that is not a constant number")
        if c == 0:
            T.refuse("division by zero")
        return T.scale_any(args[0], 1 / c)
    # the float constants of forward, exact (and rounded as weights) once
    args = [T.exact.number(a, where) if isinstance(a, float) else a for a in args]
    if _is(f, "add") or f is operator.iadd:
        if kwargs.get("alpha", 1) != 1:
            return T.add_any(args[0], T.scale_any(args[1], T.exact.number(kwargs["alpha"], where)))
        return T.add_any(args[0], args[1])
    if _is(f, "sub") or f is operator.isub:
        return T.add_any(args[0], T.scale_any(args[1], Fraction(-1)) if T.scalar(args[1]) is None
                         else -T.scalar(args[1]))
    if _is(f, "neg"):
        return T.scale_any(args[0], Fraction(-1))
    if _is(f, "mul") or f is operator.imul:
        return T.mul_any(args[0], args[1])
    if _is(f, "square"):
        if isinstance(args[0], _T):
            return _T(T.square(args[0].tok))
        return T.square(T.tok(args[0]))
    if _is(f, "matmul", "bmm", "mm"):
        return T.matmul(args[0], args[1])
    if _is(f, "linear"):
        W, b = args[1], args[2] if len(args) > 2 else kwargs.get("bias")
        if not isinstance(W, _Const) or b is not None and not isinstance(b, _Const):
            T.refuse("F.linear with weights that are not parameters")
        return _linear_any(T, args[0], W.a, None if b is None else b.a)
    if _is(f, "transpose", "swapaxes", "swapdims"):
        return _transpose_dims(T, n, args[0], [args[1], args[2]])
    if _is(f, "t"):
        return T.transpose(args[0])
    if _is(f, "permute"):
        return _permute(T, n, args[0], list(args[1:]) if not isinstance(args[1], (list, tuple)) else list(args[1]))
    if _is(f, "sum"):
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
        keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        return T.sum_any(args[0], dim, keep, _rank(n.args[0]) or in_rank)
    if _is(f, "zeros_like"):
        return _Zero()
    if f is getattr and len(args) == 2:
        attr = args[1]
        if attr == "mT":
            return T.transpose(args[0])
        if attr == "T":
            r = _rank(n.args[0])
            if r is not None and r > 2:
                T.refuse(".T of a 3-d tensor reverses every dimension; use .mT or .transpose(-1, -2)")
            return T.transpose(args[0])
        T.refuse(f"the attribute .{attr}")
    if f is operator.getitem and isinstance(args[0], _Const):
        return _Const(np.array(args[0].a[args[1]], dtype=object))
    T.refuse()


def _transpose_dims(T: _Tracer, n, x, dims):
    r = _rank(n.args[0])
    if r is None or not _transposes_last_two(dims, r):
        T.refuse(f"a transpose of dimensions {tuple(dims)}; netpoly's values are matrices (tokens x channels), "
                 "only the last two dimensions can be swapped")
    return T.transpose(x)


def _permute(T: _Tracer, n, x, dims):
    r = _rank(n.args[0])
    if r is None or len(dims) != r or [d % r for d in dims] != list(range(r - 2)) + [r - 1, r - 2]:
        T.refuse(f"a permutation {tuple(dims)} of dimensions; only the last two dimensions can be swapped")
    return T.transpose(x)


def _call_method(T: _Tracer, n, args, kwargs, in_rank: int):
    name = n.target
    if name in ("contiguous", "clone", "float", "double", "to", "type_as", "detach"):
        return args[0]  # copies and casts: the network is computed exactly either way
    if name == "transpose":
        return _transpose_dims(T, n, args[0], list(args[1:3]))
    if name == "t":
        return T.transpose(args[0])
    if name == "permute":
        return _permute(T, n, args[0], list(args[1]) if len(args) == 2 and isinstance(args[1], (list, tuple))
                        else list(args[1:]))
    if name == "sum":
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
        keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        return T.sum_any(args[0], dim, keep, _rank(n.args[0]) or in_rank)
    fn = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
          "pow": operator.pow, "matmul": operator.matmul, "bmm": operator.matmul, "mm": operator.matmul,
          "square": torch.square, "neg": operator.neg}.get(name)
    if fn is not None:
        return _call(T, n, fn, args, kwargs, in_rank)
    T.refuse()


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


# ---------------------------------------------------------------- JSON
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


@api
def from_torch(module, tokens: int, width: int | None = None, name: str = "from-torch", output=(0, 0),
               round_weights=None):
    """The netpoly Network a PyTorch module computes, every weight taken exactly.

    ``module`` is traced with torch.fx: ``nn.Linear`` layers (biases included), elementwise squares
    (``x * x``, ``x ** 2``, ``torch.square``), products of activations (``a * b``: a product block),
    matrix products (``@``, ``torch.matmul``, ``bmm``: ``(q @ k^T) @ v`` or ``q @ (k^T @ v)`` is
    softmax-free attention, ``W @ x`` with an N x N parameter token mixing), sums (``+``, ``-``,
    ``sum(list)``, ``.sum(-1)`` over the channels), transposes (``.T``, ``.mT``, ``.transpose(-1, -2)``),
    multiples by constants and residual additions become the model format's layers (attention,
    token_mix, channel_mix, product, branches, residual flags; biases in the format's optional bias
    fields). The reference modules of this file are taken whole. Anything else is refused with a
    netpoly.InputError that names the node and the operation.

    ``tokens``: N; ``width``: d (found from the first map that reads the input when not given).
    Every float is the dyadic rational it is; ``round_weights=eps`` rounds every float weight to the
    nearest multiple of 1/D (D the smallest power of two with 1/(2D) <= eps): a faster exact rank
    (small common denominators) of a network within eps of the module, per weight. The returned
    Network's ``rounding`` (a Rounding, or None) says how far the weights moved.
    """
    if isinstance(module, dict):
        raise netpoly.InputError("from_torch: a state_dict: load it into the module it was saved from "
                                 "(module.load_state_dict(sd)) and pass the module")
    if not isinstance(module, nn.Module):
        raise netpoly.InputError(f"from_torch: expected a torch.nn.Module, got {type(module).__name__}")
    if isinstance(module, _LEAVES):
        module = nn.Sequential(module)  # taken whole, as its layer
    out = netpoly._entry(output, "from_torch: output=")
    exact = _Exact(round_weights)
    layers, width, _ = _trace_layers(module, int(tokens), width, exact)
    doc = {"format": "netpoly-model/1", "name": name, "input": {"tokens": int(tokens), "width": int(width)},
           "layers": [_json(L) for L in layers], "output": {"token": out[0], "channel": out[1]}}
    net = netpoly.from_json(json.dumps(doc), name)
    net.rounding = exact.rounding
    return net


_LEAVES = (Attention, TokenMix, ChannelMix, Product)
