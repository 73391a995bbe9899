"""The algebra of traced values: _Tracer, which writes each torch operation on symbolic values as the
model format's layers, folded into the previous layer where the format allows (see from_torch). This
module holds what is common to every kind of value: the refusal messages, elementwise squares,
products and powers (the activation a product or attention layer reads, _Tracer.joint), sums with
their residual connections and branches, and the operations on any traced value (scale_any, add_any,
mul_any, transpose, matmul, sum_any), which dispatch on its kind. The tracer's concepts live in its
mixins: linear maps in _linear (_LinearMaps), attention in _attention (_AttentionLayers), heads in
_heads (_PerHead)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

import netpoly

from ._attention import _AttentionLayers
from ._exact import _Exact
from ._heads import _PerHead
from ._linear import _LinearMaps
from ._messages import _source_line, _substitute, _target_name
from ._values import (_Att, _Const, _Gram, _Heads, _Score, _T, _Tok, _Zero, _add_b, _bs, _cm, _common, _compose, _eye,
                      _last, _ones, _open, _product, _same, _scale_b, _zeros)


class _Tracer(_LinearMaps, _AttentionLayers, _PerHead):
    """Turns an fx graph into the model format's layers (see from_torch)."""

    def __init__(self, gm, tokens: int, exact: _Exact):
        self.gm, self.N, self.exact = gm, tokens, exact
        self.node = None  # the node being read, for messages
        self.att_toks = {}  # id(_Att) -> (the _Att, its layer): one layer per attention value

    # ------------------------------------------------------------ messages
    def refuse(self, why: str | None = None):
        n = self.node
        what = "the module"
        if n is not None:
            target = _target_name(self.gm, n)
            what = f"node '{n.name}' ({n.op} {target}){_source_line(n)}"
            if why is None:
                why = "netpoly expresses linear maps, elementwise squares, products and sums only" + \
                    _substitute(target)
        raise netpoly.InputError(f"from_torch: {what}: " + (
            why or "netpoly expresses linear maps, elementwise squares, products and sums only"))

    # ------------------------------------------------------------ elementwise products and sums
    def square(self, tok: _Tok) -> _Tok:
        L = _last(tok)
        for kind in ("channel_mix", "token_mix"):
            if _open(L, kind) and "W2" not in L and L.get("activation", "none") == "none":
                return _Tok(tok.layers[:-1] + (dict(L, activation="square"),), tok.width, tok.vec)
        return _Tok(tok.layers + (_cm(_eye(tok.width), activation="square"),), tok.width, tok.vec)

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
        while a.ndim > len(shape) and a.shape[0] == 1:  # a batch of one, (1, N, d): the same per sample
            a = a[0]
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
        if isinstance(v, _Heads):
            return self.per_head(lambda x: self.scale_any(x, c), v)
        if isinstance(v, _Tok):
            return self.scale(v, c)
        if isinstance(v, _T):
            return _T(self.scale(v.tok, c))
        if isinstance(v, _Score):
            return _Score([(q, k, w * c) for q, k, w in v.terms], v.causal)
        if isinstance(v, _Gram):
            return _Gram([(k, u, w * c) for k, u, w in v.terms])
        if isinstance(v, _Att):
            heads = [dict(h, O=(_eye(h["V"].shape[0]) if h["O"] is None else h["O"]) * c) for h in v.heads]
            return _Att(v.prefix, v.d, heads, v.out, _scale_b(v.bias, c), v.causal)
        if isinstance(v, _Const):
            return _Const(v.a * c)
        self.refuse()

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
        if isinstance(u, _Heads) or isinstance(v, _Heads):
            return self.per_head(self.add_any, u, v)
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
                return _Att(u.prefix, u.d, u.heads, u.out, _add_b(u.bias, _ones(u.out) * cv), u.causal)
            if isinstance(u, _Att) and isinstance(v, _Const) and v.a.ndim == 1:
                return _Att(u.prefix, u.d, u.heads, u.out, _add_b(u.bias, np.array(self.const_to(v, (u.out,)))),
                            u.causal)
            return self.add_const(self.tok(u), v)
        if isinstance(u, _Score) and isinstance(v, _Score):
            if u.causal != v.causal:
                self.refuse("a sum of a causally masked score matrix and an unmasked one; netpoly's attention "
                            "layer masks all its scores or none (mask the sum, or attend with each and add)")
            return _Score(u.terms + v.terms, u.causal)
        if isinstance(u, _Gram) and isinstance(v, _Gram):
            return _Gram(u.terms + v.terms)
        if isinstance(u, _T) and isinstance(v, _T):
            return _T(self.add(*self.broadcast(u.tok, v.tok)))
        if isinstance(u, _Att) and isinstance(v, _Att) and _same(u.prefix, v.prefix) and u.out == v.out and \
                u.d == v.d and u.causal == v.causal:
            return _Att(u.prefix, u.d, u.heads + v.heads, u.out, _add_b(u.bias, v.bias), u.causal)
        return self.add(*self.broadcast(self.tok(u), self.tok(v)))

    def mul_any(self, u, v):
        for a, b in ((u, v), (v, u)):  # scores times a constant mask (a causal mask, torch.tril(ones))
            if self.is_scores(a) and isinstance(b, _Const) and self.scalar(b) is None:
                return self.mask_scores(a, b.a)
        if isinstance(u, _Heads) or isinstance(v, _Heads):
            return self.per_head(self.mul_any, u, v)
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

    def transpose(self, v):
        """v with its last two dimensions swapped."""
        if isinstance(v, _Heads):
            return self.per_head(self.transpose, v, layout=("H", "A", "B"))
        if isinstance(v, _Tok):
            if v.vec:
                self.refuse("transposing a per-token vector")
            return _T(v)
        if isinstance(v, _T):
            return v.tok
        if isinstance(v, _Score):
            if v.causal:
                self.refuse("the transpose of a causally masked score matrix (it reads the later tokens: "
                            "entries above the diagonal); netpoly masks scores causally only, S[i][j] = 0 for j > i")
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
        """a @ b: head by head, a constant product, a map by weights (_LinearMaps) or the product of two
        traced values, scores and attention (_AttentionLayers)."""
        if isinstance(a, _Heads) or isinstance(b, _Heads):
            return self.per_head(self.matmul, a, b, layout=("H", "A", "B"))
        if isinstance(a, _Const) and isinstance(b, _Const):
            return _Const(np.matmul(a.a, b.a))
        if isinstance(b, _Const):
            return self._matmul_const(a, b.a)
        if isinstance(a, _Const):
            return self._const_matmul(a.a, b)
        return self._matmul_traced(a, b)

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
