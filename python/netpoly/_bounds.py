"""``netpoly.bounds``: every bound of the library for a shape, as ``netpoly bounds --json``; and ``netpoly.cite``, the entry that cites netpoly itself."""

from __future__ import annotations

import json

from . import _netpoly
from ._api import api, _short
from ._netpoly import InputError
from ._results import Bound


@api
def bounds(arch: str, **shape) -> list:
    """Every bound of the library for a shape, as ``netpoly bounds --json`` (the same JSON).

    Parameters
    ----------
    arch : str
        ``attention``, ``mixer``, ``mlp`` or ``product``.
    **shape
        ``layers``, ``width``, ``heads``, ``tokens``, ``degree``, ``residual``.
    """
    if not isinstance(arch, str):
        raise InputError(f"bounds: expected an architecture name, got {_short(arch)}")
    return [Bound(d) for d in json.loads(_netpoly.bounds(arch, shape))["bounds"]]


def cite() -> str:
    """The BibTeX entry that cites this build, as ``netpoly --cite`` prints it: CITATION.cff's title, authors,
    year, version and licence, and the build's commit and FLINT version in its note."""
    return _netpoly.cite()
