"""torch.fx: the module traced into a graph, its shapes found by one run, and the graph walked node by
node, each call matched to the algebra of traced values (_calls, _algebra._Tracer)."""

from __future__ import annotations

import copy
import dis
import inspect
import random
from fractions import Fraction

import torch
import torch.fx
from torch import nn

import netpoly

from . import _doc, _verify
from ._algebra import _Tracer
from ._linear import _hidden_tokens
from ._calls import _call, _call_method, _call_module, _is
from ._exact import _Exact
from ._guards import (UserError, follow_inplace, guarded, inplace_proxies, is_leaf, refuse_hooks,
                      refuse_parameter_updates)
from ._modules import Attention, ChannelMix, Product
from ._values import _Const, _T, _Tok, _last


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


def _factory(fn):
    """torch.ones / torch.zeros that record a node when a size is a Proxy (``torch.ones(N, N)`` with N read
    from x.shape: a mask made in forward), else fn itself."""
    def f(*args, **kwargs):
        sizes = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
        proxies = [a for a in sizes + list(kwargs.values()) if isinstance(a, torch.fx.Proxy)]
        if proxies:
            return proxies[0].tracer.create_proxy("call_function", fn, args, kwargs)
        return fn(*args, **kwargs)
    return f


class _FxTracer(torch.fx.Tracer):
    def __init__(self):
        super().__init__()
        self.record_stack_traces = True  # a refusal names the module's source line
        self.proxy_buffer_attributes = True  # self.mask[:N, :N] with N read from x.shape: a get_attr node

    def is_leaf_module(self, m, qualname):
        return is_leaf(m)

    def trace(self, root, concrete_args=None):
        """fx's trace with Proxy.__iter__ replaced by _proxy_iter and in-place operators recorded as such
        (_guards.inplace_proxies) for its duration, restored after whatever happens."""
        saved = torch.fx.Proxy.__iter__
        factories = {name: getattr(torch, name) for name in ("ones", "zeros")}
        torch.fx.Proxy.__iter__ = _proxy_iter
        try:
            for name, fn in factories.items():
                setattr(torch, name, _factory(fn))
            with inplace_proxies():
                return super().trace(root, concrete_args)
        finally:
            torch.fx.Proxy.__iter__ = saved
            for name, fn in factories.items():
                setattr(torch, name, fn)


class _ShapeRun(torch.fx.Interpreter):
    """Runs the graph once, keeping each tensor value's shape on its node (meta["netpoly_shape"]), and
    the value of each node that computes a number or a shape (``x.shape``, ``x.size(-1)``, ``D // H``:
    meta["netpoly_value"]; the input's shape is fixed, N x d, so they are constants)."""

    def run_node(self, n):
        r = super().run_node(n)
        n.meta["netpoly_shape"] = tuple(r.shape) if isinstance(r, torch.Tensor) else None
        n.meta["netpoly_dtype"] = r.dtype if isinstance(r, torch.Tensor) else None
        n.meta["netpoly_storage"] = _storages(r)  # which tensors share memory (views, aliases)
        if _concrete(r) and (_reads_shape(n) or all("netpoly_value" in a.meta for a in n.all_input_nodes)):
            n.meta["netpoly_value"] = tuple(r) if isinstance(r, torch.Size) else r
        else:
            n.meta.pop("netpoly_value", None)
        return r


def _storages(r) -> frozenset:
    if isinstance(r, torch.Tensor):
        p = r.storage().data_ptr() if r.numel() else 0
        return frozenset([p]) if p else frozenset()
    if isinstance(r, (list, tuple)):
        return frozenset().union(*(_storages(x) for x in r)) if r else frozenset()
    return frozenset()


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
            w = n.args[1] if len(n.args) > 1 else n.kwargs.get("weight")
            if getattr(w, "op", None) == "get_attr":
                return _fetch(gm, w.target).shape[1]
    return None


def _fetch(gm, target: str):
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _dtype(module):
    """The float type of the module's parameters and buffers (torch's default when it has none)."""
    for t in list(module.parameters()) + list(module.buffers()):
        if t.is_floating_point():
            return t.dtype
    return torch.get_default_dtype()


def _layouts(tokens: int, width: int, batch) -> list:
    return [s for s in ((tokens, width), (1, tokens, width)) if batch is None or (len(s) == 3) == batch]


def _runs(gm, tokens: int, width: int, batch) -> bool:
    try:
        _shapes(gm, tokens, width, batch)
        return True
    except netpoly.InputError:
        return False


def _shapes(gm, tokens: int, width: int, batch):
    """Runs the module once on an (N, d) input (else a batch of one, (1, N, d)) to learn every value's shape."""
    dtype = _dtype(gm)
    first = None
    for shape in _layouts(tokens, width, batch):
        try:
            with torch.no_grad(), torch.random.fork_rng(devices=[]):  # shapes only; torch's generator kept
                guarded(_ShapeRun(gm).run, torch.zeros(*shape, dtype=dtype))
            return len(shape)
        except UserError as e:  # the module's own error, reported below
            first = first or e
    raise netpoly.InputError(f"from_torch: the module fails on an input of shape "
                             f"{' and '.join(str(s) for s in _layouts(tokens, width, batch))}: {first.describe()}")


def _same_twice(module, X):
    """Refuses a module whose forward pass gives different values on the same input X (N, d)."""
    try:
        a, b = _eager(module, X), _eager(module, X)
    except UserError:
        return
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and not _close(a, b):
        raise netpoly.InputError(
            f"from_torch: the module's forward pass gives different values on the same input (first entries "
            f"{a.reshape(-1)[:1].tolist()} and {b.reshape(-1)[:1].tolist()}): it changes a state of its own, or "
            "draws random numbers (dropout in training mode? call module.eval()); netpoly's network is one "
            "function of its input")


def _eager(module, X):
    """The module's own forward pass on X (a copy: a forward that changes its input in place leaves
    X as it was), or a UserError; torch's random generator is left as it was."""
    with torch.no_grad(), torch.random.fork_rng(devices=[]):
        return guarded(module, X.clone())


def _layout(module, tokens: int, width: int, batch):
    """The input's rank (2: (N, d), 3: a batch (1, N, d)) the module is written for, found by running it:
    the layout it runs on; when it runs on both, they must compute one function (else batch= says which)."""
    rng = random.Random(0x6e70)
    X = torch.tensor(_verify.dyadic_point(rng, (tokens, width)).astype(float), dtype=_dtype(module))
    got, errors = {}, {}
    for shape in _layouts(tokens, width, batch):
        try:
            Y = _eager(module, X.reshape(shape))
        except UserError as e:
            errors[len(shape)] = e
            continue
        if len(shape) == 3 and isinstance(Y, torch.Tensor) and Y.dim() >= 1 and Y.shape[0] == 1:
            Y = Y[0]
        got[len(shape)] = Y
    if not got:
        e = errors.get(2, errors.get(3))
        shapes = " and on ".join(str(s) for s in _layouts(tokens, width, batch))
        raise netpoly.InputError(f"from_torch: the module's forward pass fails on an input of shape {shapes} "
                                 f"(run by torch, before tracing): {e.describe()}")
    if len(got) == 1:
        return next(iter(got))
    a, b = got[2], got[3]
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.is_floating_point() and \
            b.is_floating_point():
        if not _close(a, b):
            _same_twice(module, X)
            raise netpoly.InputError(
                f"from_torch: the module runs on inputs of shape ({tokens}, {width}) and ({tokens}, {width}) in a "
                f"batch (1, {tokens}, {width}), and computes different functions there (output shapes "
                f"{tuple(a.shape)} and {tuple(b.shape)}; at a random point, first entries "
                f"{a.reshape(-1)[:1].tolist()} and {b.reshape(-1)[:1].tolist()}): pass batch=True if it is "
                "written for batches (B, N, d), batch=False if for single inputs (N, d)")
    return 2


def _close(a, b) -> bool:
    """Whether two outputs of the module's forward pass are one function's values (up to float rounding)."""
    if a.numel() != b.numel():
        return False
    a, b = a.double().reshape(-1), b.double().reshape(-1)
    scale = 1 + (float(torch.nan_to_num(a.abs(), nan=0.0, posinf=0.0).max()) if a.numel() else 0.0)
    return bool(torch.allclose(a, b, rtol=1e-5, atol=1e-6 * scale, equal_nan=True))


def _trace_layers(module, tokens: int, width: int | None, exact: _Exact, batch=None):
    """The module's layers (the model format's, exact), its input and output widths. With rounded
    weights (`exact.rounding`) the network is another one: the module is traced with its weights as
    they are first, and that trace is the one compared with torch."""
    if exact.rounding is not None:
        _, width, _ = _trace(module, tokens, width, _Exact(None), batch, True)
    return _trace(module, tokens, width, exact, batch, exact.rounding is None)


def _trace(module, tokens: int, width: int | None, exact: _Exact, batch, check: bool):
    refuse_hooks(module)
    tracer = _FxTracer()
    try:
        graph = guarded(tracer.trace, module)
    except UserError as e:  # fx's message says what it could not trace
        why = e.describe()
        if "cannot be iterated" in str(e):
            why = ("a loop over a tensor (or *x of one) depends on the input's values; write it with "
                   "tensor operations (unpacking its shape, B, N, D = x.shape, is traced)")
        raise netpoly.InputError(f"from_torch: torch.fx cannot trace {type(module).__name__}: {why}") from None
    gm = torch.fx.GraphModule(module, graph)
    T = _Tracer(gm, tokens, exact)

    def refuse_at(node, why):
        T.node = node
        T.refuse(why)
    refuse_parameter_updates(graph, refuse_at)
    inputs = [n for n in graph.nodes if n.op == "placeholder"]
    if len(inputs) != 1:
        raise netpoly.InputError(f"from_torch: {type(module).__name__}.forward takes {len(inputs)} inputs; "
                                 "netpoly's networks take one (the N x d input)")
    if width is None:
        width = _input_width(gm, graph, inputs[0])
    if width is None:
        # the widths the module's maps take, those on which it runs
        sizes = sorted({int(x) for p in list(gm.parameters()) + list(gm.buffers()) for x in p.shape})
        probe = max(sizes, default=1) + 1  # a width no map takes: a module that runs on it takes any width
        fits = [w for w in sizes + [probe] if _runs(gm, tokens, w, batch)]
        if len(fits) != 1 or fits == [probe]:
            raise netpoly.InputError("from_torch: give width= (" + (
                "the module runs on inputs of any width" if probe in fits else
                f"the module runs on inputs of widths {', '.join(map(str, fits))}" if fits else
                "no width taken from the module's parameters runs it") + ")")
        width = fits[0]
    in_rank = _layout(module, tokens, width, batch)
    _shapes(gm, tokens, width, in_rank == 3)
    follow_inplace(gm, graph, refuse_at)
    env, from_input = {}, set()

    def val(a):
        if isinstance(a, torch.fx.Node):
            return env[a]
        if isinstance(a, (list, tuple)):
            return type(a)(val(x) for x in a)
        if isinstance(a, slice):  # self.mask[:N, :N] with N read from x.shape
            return slice(val(a.start), val(a.stop), val(a.step))
        return a

    out = None
    for n in graph.nodes:
        T.node = n
        if "netpoly_value" in n.meta:  # a number or a shape: a constant (the input's shape is fixed)
            env[n] = n.meta["netpoly_value"]
            continue
        if n.op == "placeholder" or any(a in from_input for a in n.all_input_nodes):
            from_input.add(n)
            dtype = n.meta.get("netpoly_dtype")
            if dtype is not None and not dtype.is_floating_point:
                T.refuse(f"a cast to {dtype} (the values become {'truth values' if dtype == torch.bool else 'integers'}"
                         f"); netpoly computes exactly over the rationals, as a float type does: keep the values "
                         "floats")
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
    if check:
        _check_against_torch(module, graph, res.layers, tokens, width, res.width, in_rank)
    return res.layers, width, res.width


def _eps(graph, doubled: bool) -> float:
    """The unit roundoff of the least precise float type the module computes in: float64's when it ran
    on a float64 copy without casts of its own, else that of the types the shape run saw."""
    casts = any(n.op == "call_method" and n.target in ("to", "float", "half", "bfloat16", "type", "type_as")
                for n in graph.nodes)
    if doubled and not casts:
        return torch.finfo(torch.float64).eps
    types = [n.meta.get("netpoly_dtype") for n in graph.nodes]
    return max([torch.finfo(t).eps for t in types if t is not None and t.is_floating_point] or
               [torch.finfo(torch.float64).eps])


def _check_against_torch(module, graph, layers, tokens: int, width: int, out_width: int, in_rank: int):
    """The traced layers against the module's own forward pass at two random dyadic points (in one batch
    of two when the module takes batches), run in float64 on a copy where it can: equal within the
    rounding torch's float arithmetic can make (exactly, for weights of few bits), else refused with
    both values."""
    rng = random.Random(0x7e57)
    points = [_verify.dyadic_point(rng, (tokens, width)) for _ in range(2)]
    net = _doc.network(layers, tokens, width).canonical()  # what from_torch returns
    magnitudes = _doc.magnitude_network(layers, tokens, width)
    runner, dtype, doubled = module, _dtype(module), False
    if dtype != torch.float64:
        try:
            runner, dtype, doubled = copy.deepcopy(module).double(), torch.float64, True
        except Exception:  # noqa: BLE001 - a module that cannot be copied runs in its own type
            pass
    X = [torch.tensor(P.astype(float), dtype=dtype) for P in points]
    try:
        Y = _eager_points(runner, X, in_rank)
    except UserError:
        runner, dtype, doubled = module, _dtype(module), False  # float64 does not run it: its own type
        try:
            Y = _eager_points(runner, [x.to(dtype) for x in X], in_rank)
        except UserError as e:
            raise netpoly.InputError(f"from_torch: the module's forward pass fails at a random input: "
                                     f"{e.describe()}") from None
    eps = _eps(graph, doubled)
    for P, y in zip(points, Y):
        if not isinstance(y, torch.Tensor) or tuple(y.shape) not in ((tokens, out_width), (tokens * out_width,)):
            raise netpoly.InputError(f"from_torch: the module's output has shape "
                                     f"{tuple(y.shape) if isinstance(y, torch.Tensor) else type(y).__name__} "
                                     f"per input; the traced model's is ({tokens}, {out_width})")
        E, M = _verify.values(net, magnitudes, P)
        y = y.reshape(tokens, out_width).tolist()
        for i in range(tokens):
            for c in range(out_width):
                if not _verify.agrees(E[i][c], M[i][c], y[i][c], eps):
                    _same_twice(runner, torch.tensor(P.astype(float), dtype=dtype).reshape(
                        (1, tokens, width) if in_rank == 3 else (tokens, width)))
                    raise netpoly.InputError(
                        f"from_torch: the traced model is not the module's function: at a random input "
                        f"(entries k/8), output [{i}, {c}] is {_show(E[i][c])} traced and {y[i][c]!r} in torch's "
                        f"forward pass ({dtype}); netpoly takes some operation of the module for another "
                        "(please report it, with the module)")


def _show(q: Fraction) -> str:
    try:
        return repr(float(q))
    except OverflowError:
        return str(q)


def _eager_points(module, X: list, in_rank: int) -> list:
    """The module's outputs at the points X (each (N, d)): each point alone (in a batch of one when the
    module takes batches). A module that takes batches is also run on all of them in one batch, which
    must give the same: its output for one input may not depend on the others (torch's broadcasting
    pairs the batch with the heads when B == H, in (B, H, N, dh) * (B, N, dh))."""
    if in_rank != 3:
        return [_eager(module, x) for x in X]
    out = []
    for x in X:
        y = _eager(module, x[None])
        out.append(y[0] if isinstance(y, torch.Tensor) and y.dim() >= 1 and y.shape[0] == 1 else y)
    try:
        Y = _eager(module, torch.stack(X))
    except UserError:
        return out  # a module that takes batches of one only
    if isinstance(Y, torch.Tensor) and Y.dim() >= 1 and Y.shape[0] == len(X) and \
            all(isinstance(y, torch.Tensor) for y in out) and not all(_close(y, Y[k]) for k, y in enumerate(out)):
        k = next(k for k, y in enumerate(out) if not _close(y, Y[k]))
        _same_twice(module, X[k][None])
        raise netpoly.InputError(
            f"from_torch: the module's output for one input depends on the other inputs of its batch (alone, "
            f"first entries {out[k].reshape(-1)[:2].tolist()}; in a batch of {len(X)}, "
            f"{Y[k].reshape(-1)[:2].tolist()}): torch's broadcasting pairs the batch with another dimension "
            "(heads (B, H, N, dh) times (B, N, dh) when B == H?); netpoly's network is one function of one input")
    return out


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
