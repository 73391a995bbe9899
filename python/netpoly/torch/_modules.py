"""The reference modules: PyTorch layers with the model format's semantics exactly (docs/model-format.md),
each with ``to_layer()``, its layer in the model format (torch tensors in place of the matrices)."""

from __future__ import annotations

import torch
from torch import nn


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


LEAVES = (Attention, TokenMix, ChannelMix, Product)  # taken whole by from_torch, as their to_layer()
