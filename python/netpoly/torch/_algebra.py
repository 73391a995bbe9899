"""The algebra of traced values: each torch operation on symbolic values (linear maps, squares,
products, sums, transposes, matrix products) written as the model format's layers, folded into the
previous layer where the format allows (see from_torch)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

import netpoly

from ._exact import _Exact
from ._messages import _source_line, _substitute, _target_name
from ._values import (_Att, _Const, _Gram, _Heads, _Score, _T, _Tok, _Zero, _add_b, _bs, _clean, _cm, _common, _compose,
                      _eye, _last, _ones, _open, _pad, _pad_vec, _product, _same, _scale_b, _tm, _zeros)



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


class _Tracer:
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

    def per_head(self, f, *vals, layout: tuple | None = None):
        """f applied head by head to values split into heads (and to the others as they are): all of one
        layout (`layout` when given) and head count."""
        heads = [v for v in vals if isinstance(v, _Heads)]
        order, n = heads[0].order, len(heads[0].items)
        if any(h.order != order or len(h.items) != n for h in heads) or layout is not None and order != layout:
            self.refuse("values split into heads in different layouts (or head counts); bring the heads "
                        "axis before the tokens first (q.view(B, N, H, dh).transpose(1, 2))")
        if any(isinstance(v, _Const) and self.scalar(v) is None for v in vals):
            self.refuse("a constant array combined with values split into heads (a mask?) is not traced")
        items = [f(*[v.items[i] if isinstance(v, _Heads) else v for v in vals]) for i in range(n)]
        return _Heads(items, order)

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
        if isinstance(a, _Heads) or isinstance(b, _Heads):
            return self.per_head(self.matmul, a, b, layout=("H", "A", "B"))
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
