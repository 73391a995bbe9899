"""``netpoly.table``: measured separation ranks next to every bound, one row per shape and seed, as
``netpoly table``."""

from __future__ import annotations

import json

from . import _netpoly
from ._api import api, _short
from ._netpoly import InputError
from ._progress import interruption, progress_for
from ._results import Rows


@api
def table(arch="attention", *, layers=(1,), widths=(2,), heads=(1,), tokens=None, degrees=None, residual=False,
          seeds=1, weights="generic", partition="half", methods=None, budget=None, max_terms=None,
          param_budget=None, max_depth=6, max_width=16, max_memory=None, threads=None, progress=None) -> Rows:
    """Measured separation ranks next to every bound, one row per shape and seed (``netpoly table``).

    The arguments are the CLI's flags, checked the same way. ``arch`` may be a list with
    ``param_budget=[32, 48]``: for each budget, architecture and depth up to ``max_depth``, the widest
    shape within the budget (``netpoly table --param-budget``).

    Returns
    -------
    Rows
        ``netpoly.Row`` dicts of numbers (``lower``, ``upper``, ``params``, each bound's ``value`` and
        ``log3``; ``print(row)`` is one line), with ``.to_latex()`` and ``.to_markdown()`` (titled as the
        CLI titles them), ``.plot()`` (``--plot``'s plot, a matplotlib Figure) and ``.to_pandas()``.
    """
    archs = list(arch) if isinstance(arch, (list, tuple)) else [arch]
    if not all(isinstance(a, str) for a in archs):
        raise InputError(f"table: arch=: expected names, got {_short(arch)}")
    if isinstance(methods, (list, tuple)):
        if not all(isinstance(m, str) for m in methods):
            raise InputError(f"table: methods=: expected a comma list or a list of method names, got {_short(methods)}")
        methods = ",".join(methods)
    kw = dict(arch=",".join(archs), layers=layers, widths=widths, heads=heads, tokens=tokens, degrees=degrees,
              residual=residual, seeds=seeds, weights=weights, partition=partition, methods=methods,
              budget=budget, max_terms=max_terms, param_budget=param_budget, max_depth=max_depth,
              max_width=max_width, max_memory=max_memory, threads=threads)
    text, interrupted = _netpoly.table({k: v for k, v in kw.items() if v is not None},
                                       progress_for("table", progress))
    rows = Rows(Rows._row(r) for r in json.loads(text))
    if interrupted:
        raise interruption(rows, "table")
    return rows
