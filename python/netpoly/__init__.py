"""netpoly: exact network polynomials and separation ranks, from Python.

The same C++ library as the ``netpoly`` command (not a wrapper around it)::

    import netpoly
    net = netpoly.make("attention", layers=2, width=4, heads=2, tokens=4, seed=1)
    p = net.expand(output=(0, 0))          # netpoly.Poly
    r = net.seprank(partition="half")      # netpoly.Result, with how every number was obtained
    netpoly.bounds("attention", layers=2, width=4, heads=2, tokens=4)

Every number keeps the provenance the CLI prints: ``Result.status`` is "exact", "probabilistic"
(``eps`` says with what failure probability, over the black-box seed) or "bracket" (certified
lower and upper ends), and ``Result.methods`` lists each method's value and how it was obtained.

The analysis options (``methods``, ``budget``, ``max_points``, ...) are the CLI's, from one table
(``netpoly.options()``), with the same defaults and checks: ``net.seprank(max_points=64)`` is
``netpoly seprank --max-points 64``. Bad input raises ``netpoly.InputError`` naming the argument.
Long calls release the GIL, show progress on a terminal or in a notebook (``progress=``), and stop
on Ctrl-C (KeyboardInterrupt; finished results, and the pairs in flight with their ends so far, are on
the exception's ``partial``).
"""

from . import _netpoly
from ._bounds import bounds, cite
from ._check import check
from ._from_arrays import from_numpy, from_torch
from ._jacobian import Dimension
from ._netpoly import CheckFailed, Error, InputError, InternalError, LimitError
from ._network import Layer, Network, from_json, load, make
from ._options import options
from ._poly import GaussianRational, Poly
from ._results import Bound, Report, Result, Results, Row, Rows
from ._seprank import seprank
from ._shards import merge
from ._table import table

__version__ = _netpoly.__version__
flint_version = _netpoly.flint_version


__all__ = [
    "make", "load", "from_json", "from_numpy", "from_torch", "seprank", "merge", "bounds", "table", "check", "options",
    "Network", "Layer", "Dimension", "Poly", "GaussianRational", "Result", "Results", "Bound", "Report", "Row", "Rows",
    "Error", "InputError", "LimitError", "CheckFailed", "InternalError", "cite", "__version__",
]
