"""The arguments of the torch functions and Tensor methods from_torch traces, bound to their names as
torch binds them: ``torch.mul(x, other=2.0)``, ``x.pow(exponent=2)`` and ``F.linear(x, weight=W)``
are the positional forms, and a keyword netpoly does not know (``out=``, ``alpha=`` where torch has
none) is refused rather than dropped."""

from __future__ import annotations

MISSING = object()

# name: the positional parameters, then "*" and the keyword-only ones (torch's signatures; the
# Tensor methods take self as "input"). Aliases: the method's keyword where it differs.
_SIGNATURES = {
    "add": "input other * alpha",
    "sub": "input other * alpha",
    "subtract": "input other * alpha",
    "mul": "input other",
    "multiply": "input other",
    "div": "input other * rounding_mode",
    "divide": "input other * rounding_mode",
    "true_divide": "input other",
    "truediv": "input other",
    "pow": "input exponent",
    "neg": "input",
    "negative": "input",
    "square": "input",
    "matmul": "input other",
    "bmm": "input mat2",
    "mm": "input mat2",
    "linear": "input weight bias",
    "sum": "input dim keepdim * dtype",
    "transpose": "input dim0 dim1",
    "swapaxes": "input axis0 axis1",
    "swapdims": "input dim0 dim1",
    "t": "input",
    "split": "tensor split_size_or_sections dim",
    "chunk": "input chunks dim",
    "unbind": "input dim",
    "zeros_like": "input * dtype layout device requires_grad memory_format",
}
_ALIASES = {"split": {"split_size": "split_size_or_sections", "input": "tensor"}}


def bind(refuse, name: str, args, kwargs):
    """(positional values, keyword-only values) of a call of torch's `name`, each parameter in its
    place (MISSING where not given); `refuse(why)` for an argument torch's function has no place for."""
    spec = _SIGNATURES[name].split()
    star = spec.index("*") if "*" in spec else len(spec)
    positional, keyword = spec[:star], spec[star + 1:]
    if len(args) > len(positional):
        refuse(f"{name} with {len(args)} positional arguments (torch's takes {len(positional)})")
    pos = list(args) + [MISSING] * (len(positional) - len(args))
    kw = {}
    for k, v in kwargs.items():
        k = _ALIASES.get(name, {}).get(k, k)
        if k in positional:
            i = positional.index(k)
            if pos[i] is not MISSING:
                refuse(f"{name} given {k} twice")
            pos[i] = v
        elif k in keyword:
            kw[k] = v
        else:
            refuse(f"{name} with the keyword {k}=, which netpoly does not trace")
    return pos, kw


def known(name: str) -> bool:
    return name in _SIGNATURES
