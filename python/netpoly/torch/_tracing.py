"""torch.fx: the module traced into a graph, its shapes found by one run, and each node matched to the
algebra of traced values (_algebra._Tracer)."""

from __future__ import annotations

import dis
import inspect
import operator
from fractions import Fraction

import numpy as np
import torch
import torch.fx
from torch import nn

import netpoly

from . import _heads
from ._algebra import _Tracer, _hidden_tokens
from ._exact import _Exact, _exact_layer
from ._modules import LEAVES as _LEAVES, Attention, ChannelMix, Product
from ._values import _Att, _Const, _Gram, _Heads, _T, _Tok, _Zero, _last, _out_width


def _is(target, *names) -> bool:
    """Whether a call_function target is one of torch's or operator's functions of these names."""
    for name in names:
        for mod in (operator, torch, torch.nn.functional):
            if getattr(mod, name, None) is target:
                return True
    return False


def _unpack_count(frame):
    """The element count when the instruction `frame` is at unpacks a sequence (``a, b, c = ...``),
    else None. The instruction is found by its offset: torch.fx's Proxy.__iter__ looks it up by an
    index (f_lasti // 2) that Python 3.11's bytecode (with its CACHE entries) no longer fits, and which
    runs past the end of a short forward."""
    for inst in dis.get_instructions(frame.f_code):
        if inst.offset == frame.f_lasti:
            return inst.argval if inst.opname == "UNPACK_SEQUENCE" else None
    return None


def _proxy_iter(self):
    """Proxy.__iter__ while netpoly traces: ``B, N, D = x.shape`` and ``q, k, v = qkv.split(D, -1)``
    give their elements; any other iteration is fx's error (a loop over a tensor)."""
    n = _unpack_count(inspect.currentframe().f_back)
    if n is not None:
        return (self[i] for i in range(n))
    return self.tracer.iter(self)


class _FxTracer(torch.fx.Tracer):
    def __init__(self):
        super().__init__()
        self.record_stack_traces = True  # a refusal names the module's source line

    def is_leaf_module(self, m, qualname):
        return isinstance(m, _LEAVES) or super().is_leaf_module(m, qualname)

    def trace(self, root, concrete_args=None):
        """fx's trace with Proxy.__iter__ replaced by _proxy_iter for its duration, restored after
        whatever happens."""
        saved = torch.fx.Proxy.__iter__
        torch.fx.Proxy.__iter__ = _proxy_iter
        try:
            return super().trace(root, concrete_args)
        finally:
            torch.fx.Proxy.__iter__ = saved


def _shape(n):
    return n.meta.get("netpoly_shape") if isinstance(n, torch.fx.Node) else None


def _rank(n) -> int | None:
    shape = n.meta.get("netpoly_shape") if isinstance(n, torch.fx.Node) else None
    return None if shape is None else len(shape)


class _ShapeRun(torch.fx.Interpreter):
    """Runs the graph once, keeping each tensor value's shape on its node (meta["netpoly_shape"]), and
    the value of each node that computes a number or a shape (``x.shape``, ``x.size(-1)``, ``D // H``:
    meta["netpoly_value"]; the input's shape is fixed, N x d, so they are constants)."""

    def run_node(self, n):
        r = super().run_node(n)
        n.meta["netpoly_shape"] = tuple(r.shape) if isinstance(r, torch.Tensor) else None
        if _concrete(r) and (_reads_shape(n) or all("netpoly_value" in a.meta for a in n.all_input_nodes)):
            n.meta["netpoly_value"] = tuple(r) if isinstance(r, torch.Size) else r
        else:
            n.meta.pop("netpoly_value", None)
        return r


def _reads_shape(n) -> bool:
    """x.shape, x.size(...), x.dim(), len(x): what depends on the input's shape only (never x.item())."""
    if n.op == "call_method":
        return n.target in ("size", "dim")
    return n.op == "call_function" and (n.target is getattr and n.args[1:] in (("shape",), ("ndim",))
                                        or n.target is len)


def _concrete(v) -> bool:
    if isinstance(v, (list, tuple)):
        return all(_concrete(x) for x in v)
    return isinstance(v, (int, float)) and not isinstance(v, bool)


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
        why = f"{type(e).__name__}: {e}"
        if "cannot be iterated" in str(e):
            why = ("a loop over a tensor (or *x of one) depends on the input's values; write it with "
                   "tensor operations (unpacking its shape, B, N, D = x.shape, is traced)")
        raise netpoly.InputError(f"from_torch: torch.fx cannot trace {type(module).__name__}: {why}") from None
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
        if "netpoly_value" in n.meta:  # a number or a shape: a constant (the input's shape is fixed)
            env[n] = n.meta["netpoly_value"]
            continue
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
        if n.op == "output":
            out = args[0]
        else:
            _check_hidden_tokens(T, args, env[n])
    T.node = None
    if isinstance(out, (list, tuple, dict)):
        raise netpoly.InputError("from_torch: the module returns several values; netpoly's networks return one "
                                 "N x d' activation")
    res = T.tok(out)
    if _hidden_tokens(res, tokens) is not None:
        raise netpoly.InputError(f"from_torch: the module ends inside a token MLP's hidden layer "
                                 f"({_last(res)['W'].shape[0]} tokens); its output must have the {tokens} tokens")
    return res.layers, width, res.width


def _inside_token_mlp(T: _Tracer, v):
    """The hidden layer (a token_mix dict) when v is inside a token MLP's hidden tokens, else None."""
    t = v.tok if isinstance(v, _T) else v
    return _last(t) if isinstance(t, _Tok) and _hidden_tokens(t, T.N) is not None else None


def _check_hidden_tokens(T: _Tracer, args, result):
    """Inside a token MLP's hidden layer (h != N tokens) only its activation (x * x), a transpose and
    the map back to N tokens are polynomial layers of the format: anything else is refused."""
    for a in args:
        L = _inside_token_mlp(T, a)
        if L is None:
            continue
        if _inside_token_mlp(T, result) is not None:
            continue  # still inside: the activation, a transpose, an identity
        r = result.tok if isinstance(result, _T) else result
        last = _last(r) if isinstance(r, _Tok) else None
        if last is None or last["type"] != "token_mix" or last["W"] is not L["W"] or "W2" not in last:
            T.refuse(f"inside a token MLP's hidden layer ({L['W'].shape[0]} tokens) netpoly takes its activation "
                     f"(x * x) and the Linear back to {T.N} tokens only (the format's token_mix: W2 act(W X + b) "
                     "+ b2)")


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
        if isinstance(args[0], _Heads):
            return T.per_head(lambda v: _call(T, n, f, [v, k], {}, in_rank), args[0])
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
            T.refuse("division by a value that is not a constant number is not polynomial; divide by a "
                     "constant (/ math.sqrt(d), / self.scale) or drop the normalization")
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
        if isinstance(args[0], _Heads):
            return T.mul_any(args[0], args[0])
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
    if _is(f, "reshape"):
        return _heads.reshape(T, args[0], _shape(n.args[0]), _shape(n))
    if _is(f, "einsum"):
        return _einsum(T, args[0], args[1:] if len(args) > 2 or not isinstance(args[1], (list, tuple))
                       else list(args[1]))
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
    if _is(f, "split", "chunk"):
        return _split(T, n, "chunk" if _is(f, "chunk") else "split", args, kwargs)
    if _is(f, "unbind") and isinstance(args[0], _heads._Stack):
        return args[0].unbind(T, args[1] if len(args) > 1 else kwargs.get("dim", 0))
    if f is operator.getitem and isinstance(args[0], _heads._Stack):
        return args[0].part(T, args[1])
    if f is operator.getitem and isinstance(args[0], tuple) and isinstance(args[1], int):
        return args[0][args[1]]  # a part of a split
    if f is operator.getitem and isinstance(args[0], _Const):
        return _Const(np.array(args[0].a[args[1]], dtype=object))
    T.refuse()


def _split(T: _Tracer, n, how: str, args, kwargs):
    """x.split(...) / x.chunk(...) / torch.split(x, ...): a tuple of channel slices."""
    shape = _shape(n.args[0])
    arg = args[1] if len(args) > 1 else kwargs.get("split_size_or_sections", kwargs.get("chunks"))
    dim = args[2] if len(args) > 2 else kwargs.get("dim", 0)
    if shape is None or not isinstance(args[0], _Tok):
        T.refuse(f"{how} of a value that is not tokens x channels")
    return _heads.split(T, args[0], _heads.split_sizes(T, how, arg, shape[-1]), dim, shape)


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


def _call_method(T: _Tracer, n, args, kwargs, in_rank: int):
    name = n.target
    if name in ("contiguous", "clone", "float", "double", "to", "type_as", "detach"):
        return args[0]  # copies and casts: the network is computed exactly either way
    if name in ("view", "reshape"):
        return _heads.reshape(T, args[0], _shape(n.args[0]), _shape(n))
    if name == "transpose":
        return _transpose_dims(T, n, args[0], list(args[1:3]))
    if name in ("split", "chunk"):
        return _split(T, n, name, args, kwargs)
    if name == "unbind" and isinstance(args[0], _heads._Stack):
        return args[0].unbind(T, args[1] if len(args) > 1 else kwargs.get("dim", 0))
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
