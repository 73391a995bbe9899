"""Each call of the traced graph (its call_module, call_function and call_method nodes) matched to the
algebra of traced values (_algebra._Tracer): torch's and operator's functions, Tensor methods, nn.Linear
and netpoly.torch's layers; anything else is refused, naming it."""

from __future__ import annotations

import operator
from fractions import Fraction

import numpy as np
import torch
import torch.fx
from torch import nn

from . import _heads
from ._algebra import _Tracer
from ._args import MISSING, bind, known
from ._exact import _exact_layer
from ._guards import OUT_OF_PLACE, exactly
from ._modules import LEAVES as _LEAVES
from ._values import _Att, _Const, _Gram, _Heads, _Score, _T, _Tok, _Zero, _out_width


def _is(target, *names) -> bool:
    """Whether a call_function target is one of torch's or operator's functions of these names."""
    for name in names:
        for mod in (operator, torch, torch.nn.functional):
            if getattr(mod, name, None) is target:
                return True
    return False


def _op_name(target):
    """The name of a call_function target that is one of operator's, torch's or torch.nn.functional's
    functions, else None."""
    name = getattr(target, "__name__", None)
    if isinstance(name, str) and any(getattr(mod, name, None) is target
                                     for mod in (operator, torch, torch.nn.functional)):
        return name
    return None


def _shape(n):
    return n.meta.get("netpoly_shape") if isinstance(n, torch.fx.Node) else None


def _rank(n) -> int | None:
    shape = n.meta.get("netpoly_shape") if isinstance(n, torch.fx.Node) else None
    return None if shape is None else len(shape)


def _one_input(T: _Tracer, n, args, kwargs):
    """The input of a module called on one tensor (positionally, or as the keyword of its forward)."""
    if len(args) + len(kwargs) != 1:
        T.refuse(f"a module called with {len(args) + len(kwargs)} arguments; netpoly's layers take one")
    return args[0] if args else next(iter(kwargs.values()))


def _single_use(n) -> bool:
    """Whether node n's first argument is read by n alone (a map after attention folds into its O then;
    read by several maps, q, k and v of the next layer, it is the attention layer's output)."""
    a = n.args[0] if n.args else next(iter(n.kwargs.values()), None)
    return isinstance(a, torch.fx.Node) and len(a.users) == 1


def _call_module(T: _Tracer, gm, n, args, kwargs):
    m = gm.get_submodule(n.target)
    # only these classes themselves: a subclass, or a module whose forward was replaced, computes what
    # its own forward says (_guards.is_leaf traces through it; what reaches here is refused)
    if exactly(m, *_LEAVES):
        x = T.tok(_one_input(T, n, args, kwargs))
        if x.vec:
            T.refuse("a netpoly.torch layer applied to a per-token vector")
        L = _exact_layer(m.to_layer(), T.exact, n.target)
        return _Tok(x.layers + (L,), _out_width(L, x.width))
    if exactly(m, nn.Linear):
        W = T.exact.array(m.weight, f"{n.target}.weight")
        b = T.exact.array(m.bias, f"{n.target}.bias") if m.bias is not None else None
        return _linear_any(T, _one_input(T, n, args, kwargs), W, b, _single_use(n))
    if exactly(m, nn.Identity) or exactly(m, nn.Dropout) and not m.training:
        return args[0] if args else next(iter(kwargs.values()))
    if exactly(m, nn.Dropout):
        T.refuse("dropout in training mode is random; call module.eval() first (dropout is then the identity)")
    T.refuse()


def _linear_any(T: _Tracer, x, W, b, fold: bool = True):
    """A Linear layer (or F.linear) applied to x: over the last dimension, whatever x is. Attention not
    yet written as a layer takes the map into its O when `fold` (the map reads it alone)."""
    if isinstance(x, _Att) and not fold:
        x = T.tok(x)
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


def _given(v, default=None):
    return default if v is MISSING else v


def _traced(v) -> bool:
    """Whether v is a value of the traced graph (not a number or a shape)."""
    return isinstance(v, (_Tok, _T, _Att, _Score, _Gram, _Heads, _Const, _Zero, _heads._Stack, tuple))


def _power(T: _Tracer, n, base, k, where: str, in_rank: int):
    """base ** k for a positive integer k (a constant)."""
    if _traced(k):
        T.refuse("a power whose exponent is a value of the network (" + (
            "a number to the power of a value, like 2 ** x, is an exponential" if not _traced(base) else
            "x ** y") + ") is not polynomial; netpoly takes positive integer powers x ** k")
    if isinstance(k, float):
        k = T.exact.number(k, where)
    if isinstance(k, Fraction) and k.denominator == 1:
        k = int(k)
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        T.refuse(f"a power {k}; netpoly takes positive integer powers")
    if isinstance(base, _Const):
        return _Const(base.a ** k)
    if not _traced(base):
        T.refuse("a power of a number that is not a value of the network")
    if isinstance(base, _Heads):
        return T.per_head(lambda v: _call(T, n, operator.pow, [v, k], {}, in_rank), base)
    if isinstance(base, _T):
        return _T(T.power(base.tok, k))
    return T.power(T.tok(base), k)


def _call(T: _Tracer, n, f, args, kwargs, in_rank: int):
    where = f"a constant of node '{n.name}'"
    f = OUT_OF_PLACE.get(f, f)  # an in-place update, once _guards.follow_inplace made it safe
    name = _op_name(f)
    kw = {}
    if name is not None and known(name):
        args, kw = bind(T.refuse, name, args, kwargs)
    elif kwargs and not _is(f, "einsum", "permute", "reshape", "masked_fill", "tril", "triu", "ones", "zeros"):
        T.refuse(f"{name or getattr(f, '__name__', f)} with the keyword(s) {', '.join(k + '=' for k in kwargs)}, "
                 "which netpoly does not trace")
    if _is(f, "pow"):
        return _power(T, n, args[0], args[1], where, in_rank)
    if _is(f, "truediv", "div", "divide", "true_divide"):
        d = args[1]
        if kw.get("rounding_mode") is not None:
            T.refuse("a rounding division")
        if isinstance(d, float) and d != 0:  # the factor 1/d, exactly (rounded as a weight)
            return T.scale_any(args[0], T.exact.rational(1 / Fraction(d), where))
        c = T.scalar(d)
        if c is None:
            T.refuse("division by a value that is not a constant number is not polynomial; divide by a "
                     "constant (/ math.sqrt(d), / self.scale) or drop the normalization")
        if c == 0:
            T.refuse("division by zero")
        if not _traced(args[0]):
            T.refuse("a number divided by a constant tensor")
        return T.scale_any(args[0], 1 / c)
    masks = _masks(T, f, args, kwargs)
    if masks is not None:
        return masks
    # the float constants of forward, exact (and rounded as weights) once
    args = [T.exact.number(a, where) if isinstance(a, float) else a for a in args]
    kw = {k: T.exact.number(v, where) if isinstance(v, float) else v for k, v in kw.items()}
    if _is(f, "add", "sub", "subtract"):
        x, y = args[0], args[1]
        alpha = kw.get("alpha", 1)
        if _traced(alpha) or isinstance(alpha, bool) or not isinstance(alpha, (int, Fraction)):
            T.refuse(f"alpha={alpha!r}; netpoly takes a constant number")
        c = Fraction(alpha) * (-1 if not _is(f, "add") else 1)
        _check_broadcast(T, n, x, y)
        if c == 1:
            return T.add_any(x, y)
        cy = T.scalar(y)
        return T.add_any(x, T.scale_any(y, c) if cy is None else cy * c)
    if _is(f, "neg", "negative"):
        return T.scale_any(args[0], Fraction(-1))
    if _is(f, "mul", "multiply"):
        _check_broadcast(T, n, args[0], args[1])
        return T.mul_any(args[0], args[1])
    if _is(f, "square"):
        if isinstance(args[0], _Heads):
            return T.mul_any(args[0], args[0])
        if isinstance(args[0], _T):
            return _T(T.square(args[0].tok))
        return T.square(T.tok(args[0]))
    if _is(f, "matmul", "bmm", "mm"):
        return T.matmul(args[0], args[1])
    if _is(f, "linear"):
        W, b = args[1], _given(args[2])
        if not isinstance(W, _Const) or b is not None and not isinstance(b, _Const):
            T.refuse("F.linear with weights that are not parameters")
        return _linear_any(T, args[0], W.a, None if b is None else b.a, _single_use(n))
    if _is(f, "reshape"):
        return _heads.reshape(T, T.tok(args[0]) if isinstance(args[0], _Att) else args[0], _shape(n.args[0]),
                              _shape(n))
    if _is(f, "einsum"):
        if kwargs:
            T.refuse("einsum with keywords")
        return _einsum(T, args[0], args[1:] if len(args) > 2 or not isinstance(args[1], (list, tuple))
                       else list(args[1]))
    if _is(f, "transpose", "swapaxes", "swapdims"):
        return _transpose_dims(T, n, args[0], [args[1], args[2]])
    if _is(f, "t"):
        return T.transpose(args[0])
    if _is(f, "permute"):
        dims = kwargs.get("dims", args[1:] if len(args) > 1 and not isinstance(args[1], (list, tuple))
                          else args[1] if len(args) > 1 else ())
        return _permute(T, n, args[0], list(dims))
    if _is(f, "sum"):
        return T.sum_any(args[0], _given(args[1]), _given(args[2], False), _rank(n.args[0]) or in_rank)
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
    if _is(f, "split", "chunk"):
        how = "chunk" if _is(f, "chunk") else "split"
        return _split(T, n, how, args[0], args[1], _given(args[2], 0))
    if _is(f, "unbind") and isinstance(args[0], _heads._Stack):
        return args[0].unbind(T, _given(args[1], 0))
    if f is operator.getitem and isinstance(args[0], _heads._Stack):
        return args[0].part(T, args[1])
    if f is operator.getitem and isinstance(args[0], tuple) and isinstance(args[1], int):
        return args[0][args[1]]  # a part of a split
    if f is operator.getitem and isinstance(args[0], _Const):
        return _Const(np.array(args[0].a[args[1]], dtype=object))
    T.refuse()


_COMPARE = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
            "ge": operator.ge}


def _truth(a) -> np.ndarray:
    out = np.empty(a.shape, dtype=object)
    out.reshape(-1)[:] = [Fraction(int(bool(x))) for x in a.reshape(-1)]
    return out


def _masks(T: _Tracer, f, args, kwargs):
    """The masks of scores (a causal mask: torch.tril of the scores, scores.masked_fill(mask == 0, 0),
    scores * torch.tril(torch.ones(N, N))) and the constant arrays they are made of; None when f is
    none of these."""
    if _is(f, "masked_fill"):
        x = args[0] if args else kwargs.get("input")
        cond = args[1] if len(args) > 1 else kwargs.get("mask")
        val = args[2] if len(args) > 2 else kwargs.get("value")
        if isinstance(val, float) and (val != val or val in (float("inf"), float("-inf"))):
            T.refuse(f"masked_fill with {val}: softmax's mask (a score of -inf is a weight of 0 after softmax); "
                     "netpoly's attention is softmax-free and a score of -inf has no polynomial meaning: mask "
                     "the scores with 0 (masked_fill(mask == 0, 0), or torch.tril(q @ k^T))")
        if not isinstance(cond, _Const):
            T.refuse("masked_fill with a mask that is not a constant (a buffer, or made of constants)")
        if _traced(val) or isinstance(val, bool) or not isinstance(val, (int, float)) or val != 0:
            T.refuse(f"masked_fill with the value {val!r}; netpoly takes masks that set scores to 0")
        keep = np.array([Fraction(0) if x else Fraction(1) for x in cond.a.reshape(-1)], dtype=object)
        return T.mul_any(x, _Const(keep.reshape(cond.a.shape)))
    if _is(f, "tril", "triu"):
        x = args[0] if args else kwargs.get("input")
        k = args[1] if len(args) > 1 else kwargs.get("diagonal", 0)
        if not isinstance(k, int) or isinstance(k, bool) or set(kwargs) - {"input", "diagonal"}:
            T.refuse(f"{_op_name(f)} with arguments netpoly does not trace")
        if isinstance(x, _Const):
            if x.a.ndim < 2:
                T.refuse(f"{_op_name(f)} of a constant of {x.a.ndim} dimensions")
            r, c = x.a.shape[-2:]
            i, j = np.arange(r)[:, None], np.arange(c)[None, :]
            keep = (j - i <= k) if _is(f, "tril") else (j - i >= k)
            return _Const(np.where(keep, x.a, Fraction(0)).astype(object))
        if T.is_scores(x):
            keep = np.array([[Fraction(int((j - i <= k) if _is(f, "tril") else (j - i >= k)))
                              for j in range(T.N)] for i in range(T.N)], dtype=object)
            return T.mask_scores(x, keep)
        T.refuse(f"{_op_name(f)} of a value that is not a score matrix q @ k^T (or a constant); netpoly masks "
                 "scores causally only")
    if _is(f, "ones", "zeros"):
        if set(kwargs) - {"dtype", "device", "requires_grad", "layout"}:
            T.refuse(f"{_op_name(f)} with the keyword(s) {', '.join(kwargs)}")
        size = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in size):
            T.refuse(f"{_op_name(f)} of a size that is not constant")
        a = np.empty(tuple(size), dtype=object)
        a.fill(Fraction(1) if _is(f, "ones") else Fraction(0))
        return _Const(a)
    name = _op_name(f)
    if name in _COMPARE and len(args) == 2 and not kwargs and any(isinstance(a, _Const) for a in args) and \
            not any(_traced(a) and not isinstance(a, _Const) for a in args):
        a, b = [x.a if isinstance(x, _Const) else x for x in args]
        return _Const(_truth(_COMPARE[name](a, b)))
    if _is(f, "logical_not", "invert") and len(args) == 1 and isinstance(args[0], _Const):
        return _Const(_truth(np.array([not x for x in args[0].a.reshape(-1)], dtype=object).reshape(args[0].a.shape)))
    return None


_AXES = {"tok": "tokens", "ch": "channels", "H": "heads", "b": "batch"}


def _axes(v, shape):
    """What each dimension of the traced value v (of torch shape `shape`) is, as netpoly computes it:
    "b" (batch), "tok", "ch", "H"; None for values netpoly broadcasts by itself (numbers, constants)."""
    if shape is None:
        return None
    if isinstance(v, _Heads):
        inner = _axes(v.items[0], (1, 1))
        if inner is None or len(inner) != 2:
            return None
        names = {"A": inner[0], "B": inner[1], "H": "H"}
        tail = [names[o] for o in v.order]
    elif isinstance(v, _Tok):
        tail = ["tok"] if v.vec else ["tok", "ch"]
    elif isinstance(v, _Att):
        tail = ["tok", "ch"]
    elif isinstance(v, _T):
        tail = ["ch", "tok"]
    elif isinstance(v, _Score):
        tail = ["tok", "tok"]
    elif isinstance(v, _Gram):
        tail = ["ch", "ch"]
    else:
        return None
    if len(shape) < len(tail):
        return None
    return ["b"] * (len(shape) - len(tail)) + tail


def _arg_node(n, i: int, name: str):
    if i < len(n.args):
        return n.args[i]
    return n.kwargs.get(name)


def _check_broadcast(T: _Tracer, n, x, y):
    """An elementwise operation pairs entries as torch's broadcasting does (the shapes aligned from the
    right), which netpoly follows only where the dimensions it pairs mean the same: with N == H, heads
    laid out (B, N, H, dh) against a (B, N, w) activation pair the heads with the tokens."""
    sx, sy = _shape(_arg_node(n, 0, "input")), _shape(_arg_node(n, 1, "other"))
    ax, ay = _axes(x, sx), _axes(y, sy)
    if ax is None or ay is None:
        return
    for k in range(1, min(len(sx), len(sy)) + 1):
        (p, a), (q, b) = (sx[-k], ax[-k]), (sy[-k], ay[-k])
        if a == b or p == 1 and q == 1:
            continue
        if p > 1 and q > 1 or p == 1 and a != "b" or q == 1 and b != "b":
            T.refuse(f"an elementwise operation between shapes {tuple(sx)} and {tuple(sy)}: torch's broadcasting "
                     f"pairs the {_AXES[a]} of one with the {_AXES[b]} of the other (dimension {-k}); bring them "
                     "to one layout first (heads: q.view(B, N, H, dh).transpose(1, 2))")


def _split(T: _Tracer, n, how: str, x, arg, dim):
    """x.split(...) / x.chunk(...) / torch.split(x, ...): a tuple of channel slices."""
    shape = _shape(n.args[0] if n.args else next(iter(n.kwargs.values()), None))
    if isinstance(x, _Att):
        x = T.tok(x)
    if shape is None or not isinstance(x, _Tok):
        T.refuse(f"{how} of a value that is not tokens x channels")
    return _heads.split(T, x, _heads.split_sizes(T, how, arg, shape[-1]), dim, shape)


def _transpose_dims(T: _Tracer, n, x, dims):
    r = _rank(n.args[0])
    if isinstance(x, _Heads):
        return _heads.transpose(T, x, dims, r)
    if r is None or not _transposes_last_two(dims, r):
        T.refuse(f"a transpose of dimensions {tuple(dims)}; netpoly's values are matrices (tokens x channels), "
                 "only the last two dimensions can be swapped")
    return T.transpose(x)


def _permute(T: _Tracer, n, x, dims):
    r = _rank(n.args[0])
    if isinstance(x, _heads._Stack):
        return x.permuted(T, dims)
    if isinstance(x, _Heads):
        return _heads.permute(T, x, dims, r)
    if r is None or len(dims) != r or [d % r for d in dims] != list(range(r - 2)) + [r - 1, r - 2]:
        T.refuse(f"a permutation {tuple(dims)} of dimensions; only the last two dimensions can be swapped")
    return T.transpose(x)


# Tensor methods that are torch functions of the same arguments (self first); the in-place ones
# (add_, ...) once _guards.follow_inplace made them safe
_METHODS = {"add": torch.add, "sub": torch.sub, "subtract": torch.sub, "mul": torch.mul, "multiply": torch.mul,
            "div": torch.div, "divide": torch.div, "true_divide": torch.div, "pow": torch.pow,
            "matmul": torch.matmul, "bmm": torch.bmm, "mm": torch.mm, "square": torch.square, "neg": torch.neg,
            "negative": torch.neg, "sum": torch.sum, "transpose": torch.transpose, "swapaxes": torch.swapaxes,
            "swapdims": torch.swapdims, "split": torch.split, "chunk": torch.chunk, "t": torch.t,
            "unbind": torch.unbind, "masked_fill": torch.masked_fill, "tril": torch.tril, "triu": torch.triu,
            "eq": torch.eq, "ne": torch.ne, "logical_not": torch.logical_not}
_INPLACE_METHODS = {"add_", "sub_", "subtract_", "mul_", "multiply_", "div_", "divide_", "true_divide_", "pow_",
                    "square_", "neg_", "negative_"}


def _call_method(T: _Tracer, n, args, kwargs, in_rank: int):
    name = n.target
    if name in _INPLACE_METHODS:
        name = name[:-1]
    if name in ("contiguous", "clone", "detach", "float", "double", "half", "bfloat16", "to", "type_as", "type"):
        # copies, and casts to a float type (a cast to another type is refused before): the network is
        # computed exactly either way
        return args[0]
    if name == "bool" and isinstance(args[0], _Const) and not kwargs:
        return _Const(_truth(args[0].a))
    if name in ("view", "reshape"):
        return _heads.reshape(T, T.tok(args[0]) if isinstance(args[0], _Att) else args[0], _shape(n.args[0]),
                              _shape(n))
    if name == "permute":
        dims = kwargs.get("dims", list(args[1]) if len(args) == 2 and isinstance(args[1], (list, tuple))
                          else list(args[1:]))
        return _permute(T, n, args[0], list(dims))
    fn = _METHODS.get(name)
    if fn is not None:
        return _call(T, n, fn, args, kwargs, in_rank)
    T.refuse()


def _einsum(T: _Tracer, equation: str, ops: list):
    """torch.einsum of one or two operands whose last two letters are a matrix product (or a transpose),
    the letters before them batch (and head) dimensions kept in the output: 'bnd,bmd->bnm' is q @ k^T,
    'bhnm,bhmd->bhnd' scores @ v."""
    eq = equation.replace(" ", "")
    if "->" not in eq or "." in eq:
        T.refuse(f"einsum '{equation}': netpoly traces explicit equations (with '->', without '...')")
    lhs, out = eq.split("->")
    terms = lhs.split(",")
    batch = out[:-2]
    if len(terms) != len(ops) or len(out) < 2 or any(len(t) < 2 or not batch.endswith(t[:-2]) for t in terms):
        T.refuse(f"einsum '{equation}': netpoly traces products whose last two letters are matrices, the "
                 "letters before them kept in the output")
    p, q = out[-2:]
    if len(terms) == 1:
        a = terms[0][-2:]
        if a == (p + q):
            return ops[0]
        if a == (q + p):
            return T.transpose(ops[0])
    elif len(terms) == 2:
        a, b = terms[0][-2:], terms[1][-2:]
        shared = set(a) & set(b)
        if len(shared) == 1 and not shared & {p, q} and len(set(a + b)) == 3:
            c = shared.pop()
            i, k = a.replace(c, ""), b.replace(c, "")
            if {i, k} == {p, q}:
                x = ops[0] if a == i + c else T.transpose(ops[0])
                y = ops[1] if b == c + k else T.transpose(ops[1])
                r = T.matmul(x, y)
                return r if (i + k) == (p + q) else T.transpose(r)
    T.refuse(f"einsum '{equation}': netpoly traces a matrix product of two operands (one letter summed, "
             "e.g. 'bnd,bmd->bnm') or a transpose ('bnd->bdn')")
