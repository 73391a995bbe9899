"""netpoly.merge: the shard files of one black-box analysis across a cluster, merged into a bracket.

The library's merge (``netpoly/shards.hpp``), the one ``netpoly seprank --merge`` prints: each file
read strictly, the shards checked against each other, and, given the model, against the layout
recomputed from it (then the bracket is certified; without the model it is only what the shards state).
"""

from __future__ import annotations

import json

from . import _netpoly
from ._api import api, entry, path_arg, text_arg, _short
from ._netpoly import InputError
from ._options import known, with_options


def merge(shards, model=None, *, output=None, partition=None, **options) -> dict:
    """Merges the shard files of ``netpoly seprank MODEL --blocks I/N`` into the analysis's bracket.

    Parameters
    ----------
    shards : list of paths
        Every share's shard file (each block must be in exactly one).
    model : netpoly.Network, path or None
        The model the shards were run on. Given, the merge recomputes the layout, caps, upper bound
        and prime from it (a forged or mismatched shard is refused) and the bracket is certified;
        without it, ``status`` is ``"stated"`` and ``certified`` is False.
    output, partition
        Optional: must be the shards' (as ``seprank --merge --output``, ``--partition``).
    {options}
        The options the shards were run with: each one given must equal the shards' value.

    Returns
    -------
    dict
        As ``netpoly seprank --merge --json``: ``lower``, ``upper`` (with their methods), ``status``,
        ``certified``, ``how``, ``checked``, the blocks with their ranks, the prime and the seed.
    """
    known(options)
    if isinstance(shards, (str, bytes)) or not hasattr(shards, "__iter__"):
        raise InputError(f"merge: shards=: expected a list of shard files, got {_short(shards)}")
    paths = [path_arg(p, "merge: shards=") for p in shards]
    m, label = None, ""
    if model is not None:
        from ._network import Network, load
        if not isinstance(model, Network):
            label = path_arg(model, "merge: model=").decode("utf-8", "surrogateescape")
            model = load(model)
        m, label = model._m, label or (model.name or "the model")
    elif output is not None or partition is not None or any(v is not None for v in options.values()):
        raise InputError("merge: output=, partition= and the options are checked against the model: give model=")
    out = entry(output, "output=") if output is not None else None
    parts = [text_arg(partition, "merge: partition=")] if partition is not None else []
    return json.loads(_netpoly.merge_shards(paths, m, label, out, parts, options))


merge = api(with_options(merge, []))
