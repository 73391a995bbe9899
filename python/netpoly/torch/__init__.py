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
such a module, or an ordinary one built from nn.Linear, squares, products,
matrix products, sums, transposes and residual additions (traced with
torch.fx), into a netpoly Network exactly: each float weight becomes the
dyadic rational it is (float32 and float64 values are binary fractions;
Fraction(float) is exact), or with ``round_weights=eps`` a nearby multiple of
a power of two 1/D (a fast exact rank).

The rest of netpoly works without torch; this module imports it.
"""

from . import _requires  # noqa: F401 - first: a missing torch or NumPy names the extra to install
from ._exact import Rounding
from ._export import from_torch
from ._modules import Attention, ChannelMix, Network, Product, TokenMix, mixer

__all__ = ["Attention", "TokenMix", "ChannelMix", "Product", "Network", "mixer", "from_torch", "Rounding"]
