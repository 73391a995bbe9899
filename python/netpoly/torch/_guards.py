"""What from_torch checks around the trace so that the model it returns is the module's function:
hooks (which torch.fx does not run), the classes taken whole, in-place updates of tensors that have
another name (which torch.fx records as fresh values), and the module's own forward pass, run on the
layout it was written for before anything is traced."""

from __future__ import annotations

import inspect
import operator
import os
import traceback

import torch
import torch.fx
from torch import nn

import netpoly

from ._modules import LEAVES


# ---------------------------------------------------------------- running the user's code
class UserError(Exception):
    """The module's code raised `error` (any exception, SystemExit included) while netpoly ran it."""

    def __init__(self, error: BaseException):
        super().__init__(str(error))
        self.error = error

    def describe(self) -> str:
        e = self.error
        what = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        return what + user_line(e)


def guarded(f, *args, **kwargs):
    """f(*args, **kwargs), with whatever the module's code raises (SystemExit and other BaseExceptions
    too, but not KeyboardInterrupt) as a UserError."""
    try:
        return f(*args, **kwargs)
    except (KeyboardInterrupt, netpoly.Error):
        raise
    except BaseException as e:  # noqa: BLE001 - the module's own error, reported by the caller
        raise UserError(e) from None


def user_line(e: BaseException) -> str:
    """' at FILE:LINE (code)': the innermost frame of e's traceback in neither torch nor netpoly, else ''."""
    own = (os.path.dirname(torch.__file__), os.path.dirname(os.path.dirname(__file__)))
    frames = [f for f in traceback.extract_tb(e.__traceback__) if not f.filename.startswith(own)]
    if not frames:
        return ""
    f = frames[-1]
    return f" at {f.filename}:{f.lineno}" + (f" ({f.line.strip()})" if f.line else "")


# ---------------------------------------------------------------- hooks and classes
def _where_defined(fn) -> str:
    try:
        fn = inspect.unwrap(fn)
        return f" ({fn.__qualname__} at {inspect.getsourcefile(fn)}:{inspect.getsourcelines(fn)[1]})"
    except (TypeError, OSError, AttributeError):
        return ""


def refuse_hooks(module: nn.Module):
    """torch.fx calls forward() without the module's hooks: a module with a forward hook or pre-hook
    (its own, or a global one) is refused, since the traced model would not run them."""
    from torch.nn.modules import module as mm
    for kind, attr in (("forward hook", "_global_forward_hooks"), ("forward pre-hook", "_global_forward_pre_hooks")):
        hooks = getattr(mm, attr, None)
        if hooks:
            raise netpoly.InputError(
                f"from_torch: a global {kind} is registered{_where_defined(next(iter(hooks.values())))} "
                "(torch.nn.modules.module.register_module_forward_hook...); torch.fx traces forward() "
                "without hooks: remove it (handle.remove()) while tracing")
    for name, m in module.named_modules():
        for kind, attr in (("forward hook", "_forward_hooks"), ("forward pre-hook", "_forward_pre_hooks")):
            hooks = getattr(m, attr, None)
            if hooks:
                where = f"module '{name}'" if name else "the module"
                raise netpoly.InputError(
                    f"from_torch: {where} ({type(m).__name__}) has a {kind}"
                    f"{_where_defined(next(iter(hooks.values())))}; torch.fx traces forward() without hooks: "
                    "write what the hook does into forward(), or remove it (handle.remove())")


def exactly(m: nn.Module, *classes) -> bool:
    """Whether m is an instance of one of these classes itself (not a subclass, which may compute
    something else) with the class's own forward (not one set on the instance)."""
    return type(m) in classes and "forward" not in vars(m)


def is_leaf(m: nn.Module) -> bool:
    """The modules from_torch takes whole: netpoly's reference modules, and torch.nn's own classes
    (which _call_module knows or refuses by name). A subclass, or a module whose forward was replaced,
    is traced through its forward."""
    if "forward" in vars(m) or isinstance(m, nn.Sequential):
        return False
    cls = type(m)
    return cls in LEAVES or cls.__module__.startswith(("torch.nn", "torch.ao.nn"))


# ---------------------------------------------------------------- in-place updates
_INPLACE_OPS = {
    "__iadd__": operator.iadd, "__isub__": operator.isub, "__imul__": operator.imul,
    "__itruediv__": operator.itruediv, "__ifloordiv__": operator.ifloordiv, "__imod__": operator.imod,
    "__ipow__": operator.ipow, "__imatmul__": operator.imatmul, "__iand__": operator.iand,
    "__ior__": operator.ior, "__ixor__": operator.ixor, "__ilshift__": operator.ilshift,
    "__irshift__": operator.irshift,
}
# in-place operator -> the out-of-place one it is traced as, once no other name reads the old value
OUT_OF_PLACE = {operator.iadd: operator.add, operator.isub: operator.sub, operator.imul: operator.mul,
                operator.itruediv: operator.truediv, operator.ipow: operator.pow, operator.imatmul: operator.matmul,
                operator.ifloordiv: operator.floordiv, operator.imod: operator.mod}


def _inplace_impl(op):
    def impl(self, other):
        return self.tracer.create_proxy("call_function", op, (self, other), {})
    impl.__name__ = op.__name__
    return impl


class inplace_proxies:
    """While tracing, ``x += y`` on a Proxy is recorded as operator.iadd (torch.fx 1.13 records it as
    ``x = x + y``, losing that the tensor x names changed in place)."""

    def __enter__(self):
        self.saved = {k: torch.fx.Proxy.__dict__.get(k) for k in _INPLACE_OPS}
        for k, op in _INPLACE_OPS.items():
            setattr(torch.fx.Proxy, k, _inplace_impl(op))

    def __exit__(self, *exc):
        for k, v in self.saved.items():
            if v is None:
                delattr(torch.fx.Proxy, k)
            else:
                setattr(torch.fx.Proxy, k, v)


def is_inplace(n) -> bool:
    return (n.op == "call_function" and n.target in _INPLACE_OPS.values()) or \
        (n.op == "call_method" and isinstance(n.target, str) and n.target.endswith("_")
         and not n.target.endswith("__"))


# results that are their input itself, the same values under another name (when shape and dtype agree)
_SAME_NAMES = {"contiguous", "detach", "to", "float", "double", "type_as", "view", "reshape", "view_as",
               "reshape_as"}


def _same_value(gm, n) -> bool:
    """Whether n has its first argument's values (with the same shape and type; whether it shares its
    storage too is the shape run's to say)."""
    if not n.args or not isinstance(n.args[0], torch.fx.Node):
        return False
    a = n.args[0]
    if n.meta.get("netpoly_shape") != a.meta.get("netpoly_shape") or \
            n.meta.get("netpoly_dtype") != a.meta.get("netpoly_dtype"):
        return False
    if n.op == "call_method":
        return n.target in _SAME_NAMES
    if n.op == "call_function":
        return getattr(n.target, "__name__", None) in _SAME_NAMES and n.target.__module__ in ("torch", None)
    if n.op == "call_module":
        m = gm.get_submodule(n.target)
        return exactly(m, nn.Identity) or exactly(m, nn.Dropout) and not m.training
    return False


def follow_inplace(gm, graph, refuse):
    """In-place updates (``x += y``, ``y.mul_(2)``) made right. The tensor they change may have other
    names (``residual = x``, ``x.detach()``, a view: the shape run's storages say which), and torch
    reads those after the update with the new values. A name for the same values (same shape:
    ``residual = x``, ``.detach()``, ``.contiguous()``) read after the update is made to read the
    update's result; a view of another shape read after it, or a module's parameter or buffer changed
    in place, is refused (`refuse(node, why)`)."""
    nodes = list(graph.nodes)
    pos = {n: i for i, n in enumerate(nodes)}

    def root(n):  # the node whose values n names
        while _same_value(gm, n):
            n = n.args[0]
        return n

    for R in nodes:
        if not (is_inplace(R) and R.args and isinstance(R.args[0], torch.fx.Node)):
            continue
        M = R.args[0]
        storage = M.meta.get("netpoly_storage") or frozenset()
        if not storage:
            continue  # a number (x.size(-1) *= 2): no tensor changes
        group = [s for s in nodes if pos[s] < pos[R] and storage & (s.meta.get("netpoly_storage") or frozenset())]
        if any(s.op == "get_attr" for s in group):
            refuse(R, "an in-place update of a module's parameter or buffer (the module changes itself when it "
                      "runs); compute a new tensor instead")
        for s in group:
            later = [u for u in s.users if pos[u] > pos[R]]
            if not later:
                continue
            if root(s) is not root(M):
                refuse(R, f"an in-place update of a tensor whose memory another value of another shape shares "
                          f"(a view), read afterwards ('{s.name}'); netpoly follows names for the same values "
                          "(residual = x, .detach(), .contiguous()), not views: compute a new tensor instead "
                          "(x = x + ...)")
            for u in later:
                u.replace_input_with(s, R)


# what shares its input's memory: a view, an alias, a part
_VIEWS = {"view", "reshape", "view_as", "reshape_as", "transpose", "permute", "t", "detach", "contiguous", "to",
          "float", "double", "half", "bfloat16", "type_as", "type", "expand", "expand_as", "flatten", "unflatten",
          "squeeze", "unsqueeze", "narrow", "select", "split", "chunk", "unbind", "swapaxes", "swapdims", "movedim",
          "getitem", "getattr", "as_strided", "diagonal", "unfold", "view_as_real", "real", "imag", "requires_grad_"}


def refuse_parameter_updates(graph, refuse):
    """An in-place update of a parameter or buffer (or a view of one) is refused before the module runs:
    it would change the module each time it runs (and netpoly's runs would change the caller's module)."""
    for R in graph.nodes:
        if not (is_inplace(R) and R.args and isinstance(R.args[0], torch.fx.Node)):
            continue
        a = R.args[0]
        while a.op in ("call_method", "call_function") and a.args and isinstance(a.args[0], torch.fx.Node) and (
                is_inplace(a) or (a.target if a.op == "call_method" else getattr(a.target, "__name__", None)) in _VIEWS):
            a = a.args[0]
        if a.op == "get_attr":
            refuse(R, "an in-place update of a module's parameter or buffer (the module changes itself when it "
                      "runs); compute a new tensor instead")
