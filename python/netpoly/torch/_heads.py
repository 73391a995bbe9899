"""Heads split and merged with view()/reshape() and moved with transpose()/permute(): a value of shape
(..., N, D) viewed as (..., N, H, dh), its heads axis brought before the tokens, each head computed,
and the heads laid back side by side, (..., N, H * dh). Each head is a slice of the channels (a
linear map), and merging is a sum of maps into the heads' slots: the heads of one attention layer."""

from __future__ import annotations

from fractions import Fraction

from ._algebra import _Tracer
from ._values import _Att, _Heads, _Tok, _zeros

_SPLIT = ("A", "H", "B")  # (..., N, H, dh), as view() leaves it
_FIRST = ("H", "A", "B")  # (..., H, N, dh)


def _slot(h: int, dh: int, D: int):
    """The D x dh map that lays a head's dh channels into its slot of D."""
    E = _zeros(D, dh)
    for r in range(dh):
        E[h * dh + r, r] = Fraction(1)
    return E


def reshape(T: _Tracer, x, in_shape, out_shape):
    """x.view(out_shape) / x.reshape(out_shape), for the shapes that split or merge heads."""
    if in_shape is None or out_shape is None:
        T.refuse("a reshape of a value whose shape is unknown")
    in_shape, out_shape = tuple(in_shape), tuple(out_shape)
    if in_shape == out_shape:
        return x
    if isinstance(x, _Tok) and not x.vec and len(out_shape) == len(in_shape) + 1 and \
            out_shape[:-2] == in_shape[:-1] and out_shape[-2] * out_shape[-1] == in_shape[-1]:
        H, dh = out_shape[-2], out_shape[-1]
        heads = [T.linear(x, _slot(h, dh, in_shape[-1]).T.copy()) for h in range(H)]
        return _Heads(heads, _SPLIT)
    if isinstance(x, _Heads) and len(out_shape) == len(in_shape) - 1 and in_shape[:-2] == out_shape[:-1] and \
            in_shape[-2] * in_shape[-1] == out_shape[-1]:
        if x.order != _SPLIT:
            T.refuse("merging heads that are not laid out as (..., N, H, dh); transpose the heads axis back "
                     "after the tokens first (y.transpose(1, 2).reshape(B, N, D))")
        H, dh = in_shape[-2], in_shape[-1]
        out = None
        for h, v in enumerate(x.items):
            E = _slot(h, dh, H * dh)
            part = T.att_linear(v, E) if isinstance(v, _Att) else T.linear(T.tok(v), E)
            out = part if out is None else T.add_any(out, part)
        return out
    T.refuse(f"a reshape from {in_shape} to {out_shape}; netpoly traces reshapes that split the channels "
             "into heads, (..., N, D) to (..., N, H, D // H), and merge them back")


def permute(T: _Tracer, x: _Heads, dims: list, rank: int):
    """The heads' last three axes permuted (dims: the whole permutation, of `rank` dimensions)."""
    dims = [d % rank for d in dims]
    lead = rank - 3
    if len(dims) != rank or dims[:lead] != list(range(lead)):
        T.refuse(f"a permutation {tuple(dims)} that moves the batch dimension")
    order = tuple(x.order[d - lead] for d in dims[lead:])
    items = x.items
    if order[0] == "H" and order != _FIRST:  # each head transposed
        items, order = [T.transpose(v) for v in items], _FIRST
    if order not in (_FIRST, _SPLIT):
        T.refuse(f"heads laid out as {order}; netpoly traces (..., N, H, dh) and (..., H, N, dh)")
    return _Heads(items, order)


def transpose(T: _Tracer, x: _Heads, dims: list, rank: int):
    a, b = (d % rank for d in dims)
    perm = list(range(rank))
    perm[a], perm[b] = perm[b], perm[a]
    return permute(T, x, perm, rank)
