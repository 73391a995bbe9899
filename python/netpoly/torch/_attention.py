"""Softmax-free attention of traced values: the products of two activations, scores q @ k^T (a _Score)
and k^T @ v (a _Gram), and the products that make attention of them, scores @ v and q @ (k^T v) (an
_Att: heads sum_j c <q_i, k_j> v_j over one activation they all read); the maps after attention, folded
into its O; and the format's attention layer written once per attention value."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ._values import _Att, _Gram, _Heads, _Score, _T, _Tok, _add_b, _cm, _eye, _pad, _pad_vec, _scale_b, _zeros

_NOT_CAUSAL = ("netpoly's attention layer masks scores causally only (\"causal\": S[i][j] = 0 for j > i, "
               "the mask torch.tril(torch.ones(N, N)))")


class _AttentionLayers:
    """The attention of _Tracer (a mixin: it reads the tracer's refuse, joint and att_toks)."""

    def attention(self, pairs: list, values: list, causal: bool = False) -> _Att:
        """Heads sum_j c <q_i, k_j> v_j for (q_tok, k_tok, c) in pairs, each with the value v_tok of values
        (the sum over j <= i when `causal`)."""
        toks = []
        for (q, k, _), v in zip(pairs, values):
            toks += [q, k, v]
        P, maps = self.joint(toks)
        heads = []
        for h, ((_, _, c), _) in enumerate(zip(pairs, values)):
            (Q, bQ), (K, bK), (V, bV) = maps[3 * h: 3 * h + 3]
            heads.append({"Q": Q, "bQ": bQ, "K": K, "bK": bK, "V": V * c, "bV": _scale_b(bV, c), "O": None})
        d = maps[0][0].shape[1]
        return _Att(P, d, heads, values[0].width, causal=causal)

    def att_linear(self, a: _Att, W, b=None) -> _Att:
        if W.shape[1] != a.out:
            self.refuse(f"a linear map of {W.shape[1]} inputs applied to {a.out} channels")
        heads = [dict(h, O=W if h["O"] is None else W.dot(h["O"])) for h in a.heads]
        bias = _add_b(None if a.bias is None else W.dot(a.bias), b)
        return _Att(a.prefix, a.d, heads, W.shape[0], bias, a.causal)

    def att_layer(self, a: _Att) -> _Tok:
        """The attention layer of a (made once: q, k and v of a next layer read one activation)."""
        key = id(a)
        if key not in self.att_toks:
            self.att_toks[key] = (a, self._att_layer(a))  # a kept alive with its id
        return self.att_toks[key][1]

    def _att_layer(self, a: _Att) -> _Tok:
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
        layer = {"type": "attention", "heads": heads}
        if a.causal:
            layer["causal"] = True
        layers = prefix + (layer,)
        if m < d:  # the first m channels
            E = _zeros(m, d)
            for r in range(m):
                E[r, r] = Fraction(1)
            layers = layers + (_cm(E),)
        return _Tok(layers, m)

    def is_scores(self, v) -> bool:
        """Whether v is a score matrix q @ k^T (or one per head)."""
        return isinstance(v, _Score) or isinstance(v, _Heads) and all(isinstance(x, _Score) for x in v.items)

    def mask_scores(self, v, M):
        """The score matrix v (or one per head) times the constant mask M entrywise: v itself when M is
        one number c everywhere (c v), the causal mask when M is c times the lower triangle of ones
        (diagonal included); refuses any other mask."""
        M = np.asarray(M, dtype=object)
        while M.ndim > 2:  # a mask per batch entry or head: one for them all
            if any(not np.array_equal(M[0], M[i]) for i in range(1, M.shape[0])):
                self.refuse("a mask that differs between heads (or batch entries); " + _NOT_CAUSAL)
            M = M[0]
        N = self.N
        try:
            M = np.broadcast_to(M, (N, N))
        except ValueError:
            self.refuse(f"a mask of shape {tuple(M.shape)} for {N} x {N} scores")
        c = M[N - 1, 0] if N > 1 else M[0, 0]
        if all(M[i, j] == c for i in range(N) for j in range(N)):
            causal = False
        elif c != 0 and all(M[i, j] == (c if j <= i else 0) for i in range(N) for j in range(N)):
            causal = True
        else:
            self.refuse("a mask of the scores that is not the causal one (ones on and below the diagonal, "
                        "torch.tril(torch.ones(N, N)); a strict triangle, a band or another pattern has no "
                        "layer in the format); " + _NOT_CAUSAL)
        if isinstance(v, _Heads):
            return _Heads([self._masked(x, c, causal) for x in v.items], v.order) if v.order[1:] == ("A", "B") \
                else self.refuse("a mask of scores split into heads laid out (..., N, H, N); bring the heads "
                                 "axis before the tokens first")
        return self._masked(v, c, causal)

    def _masked(self, v: _Score, c, causal: bool) -> _Score:
        if c == 0:
            self.refuse("a mask that zeroes every score")
        return _Score([(q, k, w * c) for q, k, w in v.terms], v.causal or causal)

    def _matmul_traced(self, a, b):
        """a @ b for two traced values (neither a constant): scores q @ k^T, k^T @ v, and attention,
        scores @ v and q @ (k^T v); refuses the other products."""
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
            return self.attention(a.terms, [b] * len(a.terms), a.causal)
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
