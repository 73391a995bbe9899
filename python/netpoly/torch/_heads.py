"""Heads split and merged with view()/reshape() and moved with transpose()/permute(): a value of shape
(..., N, D) viewed as (..., N, H, dh), its heads axis brought before the tokens, each head computed,
and the heads laid back side by side, (..., N, H * dh). Each head is a slice of the channels (a
linear map), and merging is a sum of maps into the heads' slots: the heads of one attention layer.
_PerHead, a mixin of _Tracer, computes each head: an operation on values split into heads, head by head."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from ._values import _Att, _Const, _Heads, _Tok, _zeros

if TYPE_CHECKING:  # _algebra's _Tracer inherits _PerHead from here
    from ._algebra import _Tracer

_SPLIT = ("A", "H", "B")  # (..., N, H, dh), as view() leaves it
_FIRST = ("H", "A", "B")  # (..., H, N, dh)


class _PerHead:
    """The heads of _Tracer (a mixin: it reads the tracer's refuse and scalar)."""

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
    if isinstance(x, _Tok) and not x.vec and len(out_shape) == len(in_shape) + 2 and \
            out_shape[:-3] == in_shape[:-1] and out_shape[-3] * out_shape[-2] * out_shape[-1] == in_shape[-1]:
        P, H, dh = out_shape[-3:]
        parts = [_Heads([T.linear(x, _slot(p * H + h, dh, in_shape[-1]).T.copy()) for h in range(H)], _SPLIT)
                 for p in range(P)]
        return _Stack(parts, ("b",) * (len(in_shape) - 2) + ("A", "P", "H", "B"))
    T.refuse(f"a reshape from {in_shape} to {out_shape}; netpoly traces reshapes that split the channels "
             "into heads, (..., N, D) to (..., N, H, D // H), or into parts of heads, (..., N, 3, H, D // (3 H)), "
             "and merge heads back")


class _Stack:
    """A fused projection's output cut into parts of heads (timm's ``qkv.reshape(B, N, 3, H, dh)``):
    `parts[p]` the heads of part p laid out as (..., N, H, dh); `axes` names the dimensions as they
    are now ("b" batch, "A" tokens, "P" the parts, "H" heads, "B" a head's channels)."""
    __slots__ = ("parts", "axes")

    def __init__(self, parts: list, axes: tuple):
        self.parts, self.axes = parts, axes

    def permuted(self, T: _Tracer, dims: list):
        rank = len(self.axes)
        dims = [d % rank for d in dims]
        if sorted(dims) != list(range(rank)):
            T.refuse(f"a permutation {tuple(dims)} of {rank} dimensions")
        return _Stack(self.parts, tuple(self.axes[d] for d in dims))

    def part(self, T: _Tracer, p: int, dim: int = 0):
        """Part p (``qkv[p]``, ``qkv.unbind(0)[p]``): its heads, in the layout the permutation left."""
        rank = len(self.axes)
        if dim % rank != 0 or self.axes[0] != "P":
            T.refuse(f"taking a part along dimension {dim} of a value laid out as {self.axes}; netpoly traces "
                     "qkv.permute(2, 0, 3, 1, 4) followed by qkv.unbind(0) or qkv[0], qkv[1], qkv[2]")
        if not isinstance(p, int) or not -len(self.parts) <= p < len(self.parts):
            T.refuse(f"part {p!r} of {len(self.parts)}")
        rest = self.axes[1:]
        lead = sum(1 for a in rest if a == "b")
        if rest[:lead] != ("b",) * lead:
            T.refuse(f"heads laid out as {rest}; the batch dimensions must come first")
        source = ("b",) * lead + _SPLIT  # how parts[p] is laid out
        dims = list(range(lead)) + [source.index(a) for a in rest[lead:]]
        return permute(T, self.parts[p], dims, len(rest))

    def unbind(self, T: _Tracer, dim: int = 0):
        return tuple(self.part(T, p, dim) for p in range(len(self.parts)))


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


def split(T: _Tracer, x, sizes, dim, in_shape):
    """x.split(size or sizes, dim) / x.chunk(n, dim) on the channels (the last dimension): each part a
    slice of the channels, a linear map (minGPT's ``q, k, v = self.c_attn(x).split(n_embd, dim=2)``).
    `sizes`: the parts' widths, in order."""
    if in_shape is None:
        T.refuse("a split of a value whose shape is unknown")
    rank = len(in_shape)
    if dim is None or not isinstance(x, _Tok) or x.vec or dim % rank != rank - 1:
        T.refuse(f"a split along dimension {dim} of a value of shape {tuple(in_shape)}; netpoly traces splits "
                 "of the channels (the last dimension) into parts, e.g. q, k, v = qkv.split(D, dim=-1)")
    out, start = [], 0
    for w in sizes:
        E = _zeros(w, x.width)
        for r in range(w):
            E[r, start + r] = Fraction(1)
        out.append(T.linear(x, E))
        start += w
    return tuple(out)


def split_sizes(T: _Tracer, how, arg, width: int) -> list:
    """The parts' widths of x.split(arg) (a width, or a list of them) or x.chunk(arg) (a count), as
    torch gives them for `width` channels."""
    if how == "chunk":
        if not isinstance(arg, int) or isinstance(arg, bool) or arg < 1:
            T.refuse(f"chunk({arg!r}); netpoly takes a positive number of parts")
        step = -(-width // arg)
        return [min(step, width - s) for s in range(0, width, step)]
    if isinstance(arg, int) and not isinstance(arg, bool) and arg >= 1:
        return [min(arg, width - s) for s in range(0, width, arg)]
    if isinstance(arg, (list, tuple)) and all(isinstance(w, int) and w >= 0 for w in arg) and sum(arg) == width:
        return list(arg)
    T.refuse(f"split({arg!r}) of {width} channels; netpoly takes a part width or widths that add up to it")
