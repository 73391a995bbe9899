"""Linear maps of traced activations: a Linear over the channels (tok W^T + 1 b^T) or over the tokens
(W tok + b 1^T, a token MLP's maps to and from its hidden tokens), constant factors, biases, a constant
added or multiplied elementwise (a bias or a diagonal map per channel or per token) and products with
constant matrices, each folded into the previous layer where the model format allows (an open
channel_mix or token_mix takes its second map W2, b2; attention takes the map into its O)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ._values import _Att, _Const, _Gram, _Score, _T, _Tok, _add_b, _clean, _cm, _eye, _last, _open, _scale_b, _tm, \
    _zeros


def _mix_bias(L: dict, beta, n: int) -> dict:
    """The open mix layer L with the bias beta added to its output: to b2 when
    it has a second map, to b when it is linear, else through a new identity
    second map of size n."""
    M = dict(L)
    if "W2" in M:
        M["b2"] = _add_b(M.get("b2"), beta)
    elif M.get("activation", "none") == "none":
        M["b"] = _add_b(M.get("b"), beta)
    else:
        M["W2"], M["b2"] = _eye(n), beta
    return M


def _hidden_tokens(tok: _Tok, N: int):
    """h when tok ends inside a token MLP's hidden layer (a token_mix to h != N tokens, not yet mapped
    back by its W2), else None."""
    L = _last(tok)
    if L is not None and L["type"] == "token_mix" and "W2" not in L and L["W"].shape[0] != N:
        return L["W"].shape[0]
    return None


class _LinearMaps:
    """The linear maps of _Tracer (a mixin: it reads the tracer's N, refuse, tok, const_to and att_linear)."""

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
        """W tok + b 1^T (a Linear over the tokens), folded into an open token_mix. A map to h != N
        tokens opens a token MLP (the format's token_mix W, h x N; MLP-Mixer's tokens_mlp_dim), which
        the map back to N tokens closes (its W2, N x h), with the activation between."""
        N, L = self.N, _last(tok)
        h = _hidden_tokens(tok, N)
        if h is not None:
            if W.shape != (N, h):
                self.refuse(f"a token MLP's hidden layer has {h} tokens: the map after it must take them back to "
                            f"{N} (a {N} x {h} Linear over the tokens), got {W.shape[0]} x {W.shape[1]}")
            M = dict(L, W2=W * L["pending_scale"] if "pending_scale" in L else W)
            M.pop("pending_scale", None)
            if b is not None:
                M["b2"] = b
            return _Tok(tok.layers[:-1] + (M,), tok.width, tok.vec)
        if W.shape[1] != N:
            self.refuse(f"a map over the tokens takes the {N} tokens (the token count is fixed), "
                        f"got {W.shape[0]} x {W.shape[1]}")
        if W.shape[0] != N:  # a token MLP's first map, to W.shape[0] hidden tokens
            return _Tok(tok.layers + (_tm(W, b),), tok.width, tok.vec)
        if _open(L, "token_mix") and "W2" not in L:
            M = dict(L, W2=W)
            if b is not None:
                M["b2"] = b
            return _Tok(tok.layers[:-1] + (M,), tok.width, tok.vec)
        return _Tok(tok.layers + (_tm(W, b),), tok.width, tok.vec)

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
                elif t == "token_mix" and _hidden_tokens(tok, self.N) is not None:
                    # inside a token MLP's hidden layer: the factor goes into the map back (W2), when it comes
                    M["pending_scale"] = M.get("pending_scale", Fraction(1)) * c
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
            return _Tok(tok.layers[:-1] + (_mix_bias(L, beta, L["W"].shape[0]),), tok.width, tok.vec)
        if _open(L, "attention"):
            heads = list(L["heads"])
            heads[0] = dict(heads[0], bO=_add_b(heads[0].get("bO"), beta))
            return _Tok(tok.layers[:-1] + (dict(L, heads=heads),), tok.width, tok.vec)
        return _Tok(tok.layers + (_cm(_eye(tok.width), beta),), tok.width, tok.vec)

    def token_bias(self, tok: _Tok, beta) -> _Tok:
        L = _last(tok)
        if _open(L, "token_mix"):
            return _Tok(tok.layers[:-1] + (_mix_bias(L, beta, self.N),), tok.width, tok.vec)
        return _Tok(tok.layers + (_tm(_eye(self.N), beta),), tok.width, tok.vec)

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

    def add_const_t(self, tok: _Tok, v) -> _Tok:
        """tok^T + a constant (width x N): the transposed constant added to tok."""
        full = self.const_to(v, (tok.width, self.N))
        return self.add_const(tok, _Const(np.array(full.T, dtype=object)))

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

    def _matmul_const(self, a, C):
        """a @ C for a constant matrix C (a traced value times weights): a map over a's last dimension."""
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

    def _const_matmul(self, C, b):
        """C @ b for a constant matrix C (weights times a traced value): a map over b's second-to-last
        dimension."""
        if C.ndim != 2:
            self.refuse(f"a product with a constant of shape {tuple(C.shape)}; netpoly takes matrices here")
        if isinstance(b, _T):
            return _T(self.linear(b.tok, C))
        if isinstance(b, _Gram):
            return _Gram([(self.linear(k, C), u, c) for k, u, c in b.terms])
        if isinstance(b, _Score):
            self.refuse("a constant times a score matrix is not traced")
        return self.token_linear(self.tok(b), C)
