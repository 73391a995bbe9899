"""What a refusal of from_torch says: the node and its operation, the module's source line that made it
(torch.fx's stack trace), and the polynomial substitute of what is not polynomial."""

from __future__ import annotations

import operator
import os

import torch


def _target_name(gm, n) -> str:
    t = n.target
    if n.op == "call_function":
        name = getattr(t, "__name__", str(t))
        if getattr(operator, name, None) is t:
            return f"operator.{name}"
        for mod, label in ((torch, "torch"), (torch.nn.functional, "torch.nn.functional")):
            if getattr(mod, name, None) is t:
                return f"{label}.{name}"
        return f"{getattr(t, '__module__', None) or '?'}.{name}"
    if n.op == "call_method":
        return f"Tensor.{t}"
    if n.op == "call_module":
        m = gm.get_submodule(t)
        mod = type(m).__module__
        kind = f"nn.{type(m).__name__}" if mod.startswith("torch.nn") else f"{mod}.{type(m).__name__}"
        return kind if t == n.name else f"{kind} at '{t}'"
    return str(t)


# What is not polynomial, and its polynomial substitute (the reference modules of netpoly.torch).
_SUBSTITUTES = (
    (("softmax", "Softmax", "log_softmax"), "drop the softmax (softmax-free attention, as netpoly.torch.Attention)"),
    (("relu", "ReLU", "gelu", "GELU", "silu", "SiLU", "tanh", "Tanh", "sigmoid", "Sigmoid", "elu", "ELU",
      "leaky_relu", "LeakyReLU", "softplus", "Softplus", "Mish", "mish", "abs", "exp"),
     "use x * x as the activation (σ₂, as netpoly.torch.ChannelMix)"),
    (("layer_norm", "LayerNorm", "batch_norm", "BatchNorm1d", "RMSNorm", "rms_norm", "norm", "GroupNorm",
      "rsqrt", "sqrt"), "drop the normalization (a constant factor such as / math.sqrt(d) is traced)"),
)


def _substitute(target: str) -> str:
    name = target.split(" at ")[0].rsplit(".", 1)[-1]
    for names, hint in _SUBSTITUTES:
        if name in names:
            return f"; {hint}"
    return ""


def _source_line(n) -> str:
    """Where the module's code made node n (torch.fx's stack trace, innermost frame first), else ''."""
    trace = n.meta.get("stack_trace") or getattr(n, "stack_trace", None)
    if not trace:
        return ""
    lines = [line.strip() for line in trace.strip().splitlines()]
    # the frames inside the traced forward: those before fx's own call of it
    lines = lines[:next((k for k, line in enumerate(lines) if "_symbolic_trace.py" in line), len(lines))]
    # torch's frames (nn.Sequential's loop) and netpoly's are not the user's line: their module's is
    own = (os.path.dirname(torch.__file__), os.path.dirname(os.path.dirname(__file__)))
    for k, line in enumerate(lines):
        if line.startswith("File ") and not line[len("File "):].strip('"').startswith(own):
            parts = lines[k].split(", ")
            file, line = parts[0][len("File "):].strip('"'), parts[1].removeprefix("line ") if len(parts) > 1 else "?"
            code = lines[k + 1] if k + 1 < len(lines) and not lines[k + 1].startswith("File ") else ""
            return f" at {file}:{line}" + (f" ({code})" if code else "")
    return ""
