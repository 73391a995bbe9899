"""PyTorch reference modules with the model format's semantics, and from_torch.

Each module computes exactly what its layer in the model format computes
(docs/model-format.md), on an input of shape (N, d) or a batch (B, N, d):

    Attention        softmax-free multi-head self-attention (LV eq. (1)):
                     Y = sum_h (X Q_h^T)(X K_h^T)^T X V_h^T O_h^T  (+ X with residual)
    TokenMix         Y = W2 act(W X)          (NB Def 3.2, mixing the tokens of each channel)
    ChannelMix       Y = act(X W^T) W2^T      (the same MLP on every token)
    Product          Y = (X W_1^T) ⊙ ... ⊙ (X W_k^T)   (AO's degree-k block, per token)
    Network          the layers in order (torch.nn.Sequential)

with act(z) = z^2 (σ₂) or the identity. ``from_torch(module, tokens=N)`` turns
such a module (or a state_dict laid out like one, with ``layout=``) into a
netpoly Network exactly: each float weight becomes the dyadic rational it is
(float32 and float64 values are binary fractions; Fraction(float) is exact).

The rest of netpoly works without torch; this module imports it.
"""

from __future__ import annotations

from fractions import Fraction

import torch
from torch import nn

import netpoly

__all__ = ["Attention", "TokenMix", "ChannelMix", "Product", "Network", "mixer", "from_torch"]


def _act(z, activation):
    return z * z if activation == "square" else z


class Attention(nn.Module):
    def __init__(self, width: int, heads: int = 1, head_dim: int | None = None, residual: bool = False):
        super().__init__()
        da = head_dim if head_dim is not None else width // heads
        self.width, self.heads, self.head_dim, self.residual = width, heads, da, residual
        s = (1.0 / width) ** 0.5
        self.Q = nn.Parameter(torch.randn(heads, da, width) * s)
        self.K = nn.Parameter(torch.randn(heads, da, width) * s)
        self.V = nn.Parameter(torch.randn(heads, da, width) * s)
        self.O = nn.Parameter(torch.randn(heads, width, da) * s)

    def forward(self, X):
        Y = torch.zeros_like(X)
        for h in range(self.heads):
            q = X @ self.Q[h].T
            k = X @ self.K[h].T
            Y = Y + (q @ k.transpose(-1, -2)) @ X @ self.V[h].T @ self.O[h].T
        return Y + X if self.residual else Y

    def to_layer(self):
        heads = [{"Q": self.Q[h], "K": self.K[h], "V": self.V[h], "O": self.O[h]} for h in range(self.heads)]
        return {"type": "attention", "heads": heads, "residual": self.residual}


class TokenMix(nn.Module):
    def __init__(self, tokens: int, activation: str = "square", residual: bool = False, second: bool = False):
        super().__init__()
        self.activation, self.residual = activation, residual
        self.W = nn.Parameter(torch.randn(tokens, tokens) / tokens**0.5)
        self.W2 = nn.Parameter(torch.randn(tokens, tokens) / tokens**0.5) if second else None

    def forward(self, X):
        Y = _act(self.W @ X, self.activation)
        if self.W2 is not None:
            Y = self.W2 @ Y
        return Y + X if self.residual else Y

    def to_layer(self):
        d = {"type": "token_mix", "W": self.W, "activation": self.activation, "residual": self.residual}
        if self.W2 is not None:
            d["W2"] = self.W2
        return d


class ChannelMix(nn.Module):
    def __init__(self, width: int, hidden: int | None = None, activation: str = "square", residual: bool = False,
                 second: bool = False):
        super().__init__()
        h = hidden if hidden is not None else width
        self.activation, self.residual = activation, residual
        self.W = nn.Parameter(torch.randn(h, width) / width**0.5)
        self.W2 = nn.Parameter(torch.randn(width, h) / h**0.5) if second else None

    def forward(self, X):
        Y = _act(X @ self.W.T, self.activation)
        if self.W2 is not None:
            Y = Y @ self.W2.T
        return Y + X if self.residual else Y

    def to_layer(self):
        d = {"type": "channel_mix", "W": self.W, "activation": self.activation, "residual": self.residual}
        if self.W2 is not None:
            d["W2"] = self.W2
        return d


class Product(nn.Module):
    def __init__(self, width: int, degree: int = 2, residual: bool = False):
        super().__init__()
        self.residual = residual
        self.Ws = nn.ParameterList([nn.Parameter(torch.randn(width, width) / width**0.5) for _ in range(degree)])

    def forward(self, X):
        Y = X @ self.Ws[0].T
        for W in self.Ws[1:]:
            Y = Y * (X @ W.T)
        return Y + X if self.residual else Y

    def to_layer(self):
        return {"type": "product", "Ws": list(self.Ws), "residual": self.residual}


class Network(nn.Sequential):
    """Layers of the kinds above, applied in order."""


def mixer(layers: int, tokens: int, width: int, residual: bool = False, activation: str = "square") -> Network:
    """NB Def 3.2: token mixing and channel mixing alternate (token mixing first), as `netpoly make mixer`."""
    mods = [TokenMix(tokens, activation, residual) if l % 2 == 0 else ChannelMix(width, None, activation, residual)
            for l in range(layers)]
    return Network(*mods)


def _exact(t) -> list:
    """A tensor's entries as exact rationals (nested lists of Fractions)."""
    a = t.detach().to("cpu", torch.float64)  # float32 -> float64 is exact
    if a.dim() == 1:
        return [Fraction(float(x)) for x in a.tolist()]
    return [_exact(r) for r in a]


def _exact_layer(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, torch.Tensor):
            out[k] = _exact(v)
        elif k == "Ws":
            out[k] = [_exact(w) for w in v]
        elif k == "heads":
            out[k] = [{hk: _exact(hv) for hk, hv in h.items()} for h in v]
        else:
            out[k] = v
    return out


def from_torch(module, tokens: int, width: int | None = None, name: str = "from-torch", output=(0, 0)):
    """The netpoly Network a module of these kinds computes, with every weight taken exactly.

    ``module``: one of the classes above, a Network (nn.Sequential) of them, or a state_dict saved from one
    (then give ``layout=`` as the module itself: ``from_torch(state_dict, tokens=N, layout=mixer(...))``).
    """
    if isinstance(module, dict):
        raise TypeError("a state_dict: load it into the module it was saved from (module.load_state_dict(sd)) "
                        "and pass the module")
    mods = list(module) if isinstance(module, nn.Sequential) else [module]
    layers = []
    for m in mods:
        if not hasattr(m, "to_layer"):
            raise netpoly.InputError(f"from_torch: {type(m).__name__} is not a netpoly.torch layer "
                                     "(Attention, TokenMix, ChannelMix, Product)")
        layers.append(_exact_layer(m.to_layer()))
    if width is None:
        # the input width: the first layer that reads channels (token mixing keeps the width)
        for m in mods:
            width = m.width if isinstance(m, Attention) else m.W.shape[1] if isinstance(m, ChannelMix) else \
                m.Ws[0].shape[1] if isinstance(m, Product) else None
            if width is not None:
                break
        if width is None:
            raise netpoly.InputError("from_torch: give width= (the network only mixes tokens)")
    return netpoly.from_numpy(layers, tokens=tokens, width=width, name=name, output=output)
