"""net(X): a network's values at points, exactly over Q (Q(i) when a weight or an entry is Gaussian) or mod a
prime, computed by the engine's one forward pass (``netpoly eval`` on the command line)."""

from __future__ import annotations

from . import _netpoly
from ._api import _short
from ._from_arrays import _exact_text
from ._netpoly import InputError


def _rows(X):
    """X as nested Python lists (a torch tensor or a NumPy array through tolist)."""
    if hasattr(X, "detach"):
        X = X.detach()
    if hasattr(X, "tolist") and getattr(getattr(X, "dtype", None), "kind", "O") != "O":
        return X.tolist(), True
    if hasattr(X, "shape") and hasattr(X, "tolist"):
        return X.tolist(), True
    return X, False


def _depth(x) -> int:
    d = 0
    while isinstance(x, (list, tuple)):
        if not x:
            break
        x, d = x[0], d + 1
    return d


def _shape(P) -> str:
    """What a point that is not tokens x width is: `3 x 2`, or its rows' lengths when they differ."""
    lengths = [len(r) if isinstance(r, (list, tuple)) else None for r in P]
    if None in lengths:
        return f"{len(P)} rows, not all of them lists"
    if len(set(lengths)) <= 1:
        return f"{len(P)} x {lengths[0] if lengths else 0}"
    return f"{len(P)} rows of {', '.join(map(str, lengths))} entries"


def _entry(x, where: str) -> str:
    """One entry as the model format's number text; a string must be one (named by its place if not)."""
    if isinstance(x, str):
        from ._network import _number
        _number(x, where)
    return str(_exact_text(x, where))


def evaluate(net, X, prime=None):
    rows, array = _rows(X)
    if not isinstance(rows, (list, tuple)):
        raise InputError(f"net(X): X=: expected a tokens x width matrix or a batch of them, got {_short(X)}")
    depth = _depth(rows)
    if depth not in (2, 3):
        raise InputError(f"net(X): X=: expected a {net.tokens} x {net.width} matrix (2 axes) or a batch of them "
                         f"(3 axes), got {depth} axes")
    batch = rows if depth == 3 else [rows]
    texts = []
    for k, P in enumerate(batch):
        where = f"net(X): X[{k}]" if depth == 3 else "net(X): X"
        if len(P) != net.tokens or any(not isinstance(r, (list, tuple)) or len(r) != net.width for r in P):
            raise InputError(f"{where}: expected a {net.tokens} x {net.width} matrix ({net.tokens} tokens of "
                             f"{net.width} channels), got {_shape(P)}")
        texts.append([_entry(x, f"{where}[{i}][{c}]") for i, r in enumerate(P) for c, x in enumerate(r)])
    if prime is not None:
        if isinstance(prime, bool) or not isinstance(prime, int) or prime < 2 or prime >= 2**63:
            raise InputError(f"net(X): prime=: expected a prime below 2^63, got {_short(prime)}")
        try:
            values, _ = _netpoly.evaluate(net._m, texts, prime)
        except InputError as e:  # not a prime, or not 1 mod 4 for a Gaussian model: name the argument
            raise InputError(f"net(X): prime=: {str(e).removeprefix('the prime: ')}") from None
        values = [[int(v) for v in vs] for vs in values]
    else:
        from ._network import _number
        values = [[_number(t, "net(X)") for t in vs] for vs in _netpoly.evaluate(net._m, texts, 0)]
    dout = net.output_width
    out = [[vs[i * dout:(i + 1) * dout] for i in range(net.tokens)] for vs in values]
    result = out if depth == 3 else out[0]
    if array:
        import numpy as np
        a = np.empty((len(out), net.tokens, dout) if depth == 3 else (net.tokens, dout), dtype=object)
        a[...] = result if depth == 2 else out
        return a
    return result
