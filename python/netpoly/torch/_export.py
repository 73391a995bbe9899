"""from_torch: the traced layers written as a netpoly-model/1 document (exact numbers as the format
writes them) and read back as a netpoly Network."""

from __future__ import annotations

from torch import nn

import netpoly
from netpoly._api import api, entry

from . import _doc
from ._exact import _Exact
from ._modules import LEAVES as _LEAVES
from ._tracing import _trace_layers


@api
def from_torch(module, tokens: int, width: int | None = None, name: str = "from-torch", output=(0, 0),
               round_weights=None, batch: bool | None = None):
    """The netpoly Network a PyTorch module computes, every weight taken exactly.

    ``module`` is traced with torch.fx: ``nn.Linear`` layers (biases included), elementwise squares
    (``x * x``, ``x ** 2``, ``torch.square``), products of activations (``a * b``: a product block),
    matrix products (``@``, ``torch.matmul``, ``bmm``: ``(q @ k^T) @ v`` or ``q @ (k^T @ v)`` is
    softmax-free attention, ``W @ x`` with an N x N parameter token mixing), sums (``+``, ``-``,
    ``sum(list)``, ``.sum(-1)`` over the channels), transposes (``.T``, ``.mT``, ``.transpose(-1, -2)``),
    multiples by constants and residual additions become the model format's layers (attention,
    token_mix, channel_mix, product, branches, residual flags; biases in the format's optional bias
    fields). The reference modules of this file are taken whole. Anything else is refused with a
    netpoly.InputError that names the node and the operation.

    ``tokens``: N; ``width``: d (found from the first map that reads the input when not given).
    Every float is the dyadic rational it is; ``round_weights=eps`` rounds every float weight to the
    nearest multiple of 1/D (D the smallest power of two with 1/(2D) <= eps): a faster exact rank
    (small common denominators) of a network within eps of the module, per weight. The returned
    Network's ``rounding`` (a Rounding, or None) says how far the weights moved.

    Before anything is traced the module runs once in torch (its error, if it fails, is the refusal),
    on an input of shape (N, d) or a batch (1, N, d): the layout it runs on. A module that runs on both
    must compute one function there, else ``batch=True`` (written for batches (B, N, d)) or
    ``batch=False`` (for single inputs) says which. The traced network is compared with the module's
    forward pass (float64, on a copy, where it runs so) at two random dyadic inputs before it is
    returned; a difference is refused with both values.

    The network returned is in canonical form (``Network.canonical``): fused or separate projections
    become attention heads, a projection after the heads folds into O (none: O = I), ``x + f(x)``
    becomes a residual flag and the sums of heads one attention layer, so that a traced module has its
    preset's layer kinds and the structural bounds apply to it as to the preset. The value compared
    with torch is that network's (``net(X)``).
    """
    if isinstance(module, dict):
        raise netpoly.InputError("from_torch: a state_dict: load it into the module it was saved from "
                                 "(module.load_state_dict(sd)) and pass the module")
    if not isinstance(module, nn.Module):
        raise netpoly.InputError(f"from_torch: expected a torch.nn.Module, got {type(module).__name__}")
    if type(module) in _LEAVES:
        module = nn.Sequential(module)  # taken whole, as its layer
    out = entry(output, "from_torch: output=")
    exact = _Exact(round_weights)
    layers, width, _ = _trace_layers(module, int(tokens), width, exact, batch)
    net = _doc.network(layers, tokens, width, name, out).canonical()
    net.rounding = exact.rounding
    net._params = sum(p.numel() for p in module.parameters())  # each shared tensor once
    return net
