"""``netpoly.seprank``: the separation rank of a polynomial (a Poly, a SymPy expression or text) for a
split of its variables. A network's is ``Network.seprank`` (_network.py)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Iterable

from . import _netpoly
from ._api import api, _short
from ._netpoly import InputError, LimitError
from ._number_text import rational_text
from ._options import known, with_options
from ._poly import GaussianRational, Poly
from ._poly_input import from_sympy, from_text
from ._progress import progress_for
from ._results import Result


_MAX_COEFFICIENT_BITS = 1 << 24  # the engine's limit on one coefficient of polynomial text (poly_text.cpp)


def seprank(poly, side_a: Iterable = (), *, progress=None, **options) -> Result:
    """The separation rank of a polynomial for the variables ``side_a`` against the rest.

    Parameters
    ----------
    poly : netpoly.Poly, SymPy expression or str
        A SymPy polynomial with rational or Gaussian-rational (``sympy.I``) coefficients, or text read
        by netpoly's own parser (numbers, names, ``+ - * ^`` and parentheses: never evaluated as code).
    side_a : iterable
        The variables of side A: SymPy symbols, names, or (for a Poly) variable indices.
    progress : bool, callable or None
        Progress display.
    {options}

    Examples
    --------
    >>> netpoly.seprank("x0*x2 + x1*x3", side_a=["x0", "x1"]).value
    2
    """
    known(options)
    max_terms = _netpoly.max_terms(options)  # every option checked (the table's checks) before any work
    if isinstance(side_a, (str, bytes)) or not isinstance(side_a, Iterable):
        side_a = [side_a]
    side_a = list(side_a)
    if isinstance(poly, Poly):
        names = poly.var_names()
        idx = []
        for v in side_a:
            if isinstance(v, int) and not isinstance(v, bool):
                if not 0 <= v < poly.nvars:
                    raise InputError(f"side_a=: variable {_short(v)} out of range (the polynomial has {poly.nvars})")
                idx.append(v)
            elif str(v) in names:
                idx.append(names.index(str(v)))
            else:
                have = f"{names[0]} .. {names[-1]}" if names else "it has no variables"
                raise InputError(f"side_a=: {_short(v)} is not a variable of the polynomial ({have})")
        terms, nvars = poly._terms, poly.nvars
    elif isinstance(poly, str):
        for v in side_a:
            if not isinstance(v, str):
                raise InputError(f"side_a=: a polynomial given as text takes variable names, got {_short(v)}")
        wanted = list(side_a)
        terms, names = from_text(poly, wanted, max_terms)
        idx, nvars = [names.index(v) for v in wanted], len(names)
    else:
        terms, gens = from_sympy(poly, side_a, max_terms)
        import sympy
        wanted = [sympy.Symbol(v) if isinstance(v, str) else v for v in side_a]
        idx, nvars = [gens.index(v) for v in wanted], len(gens)
    if not idx:
        raise InputError("side_a=: expected at least one variable of side A")
    if len(set(idx)) == nvars:
        raise InputError("side_a=: side B is empty (every variable is on side A)")
    re_terms, im_terms, gaussian = [], [], False
    for e, c in terms.items():
        if sum(e) >= 2**62:  # Poly arithmetic has no bound; the engine takes degrees below 2^62 (poly_text.hpp)
            raise InputError(f"seprank: a term of degree {_short(sum(e))}: exponents and degrees of 2^62 or more "
                             "are refused")
        for part in (c.re, c.im) if isinstance(c, GaussianRational) else (Fraction(c),):
            bits = max(part.numerator.bit_length(), part.denominator.bit_length())
            if bits > _MAX_COEFFICIENT_BITS:
                raise LimitError(f"seprank: a coefficient of {bits} bits; more than 2^24 bits is refused (as in "
                                 "polynomial text)")
        if isinstance(c, GaussianRational):
            gaussian = gaussian or c.im != 0
            re_terms.append((list(e), rational_text(c.re)))
            im_terms.append((list(e), rational_text(c.im)))
        else:
            re_terms.append((list(e), rational_text(Fraction(c))))
            im_terms.append((list(e), "0"))
    text = _netpoly.seprank_poly(re_terms, im_terms if gaussian else None, nvars, sorted(set(idx)), options,
                                 progress_for("seprank", progress))
    return Result(json.loads(text))


seprank = api(with_options(seprank, ["progress"]))
