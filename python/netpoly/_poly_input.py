"""Polynomials from user input: text, read by netpoly's own parser, and SymPy expressions (or
sympy.Poly), taken only when they are polynomials with rational or Gaussian-rational coefficients."""

from __future__ import annotations

import re as _re
from fractions import Fraction
from typing import Iterable, Sequence

from . import _netpoly
from ._api import optional
from ._netpoly import InputError
from ._number_text import parse_rational
from ._poly import GaussianRational


_NAME = _re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def from_text(text: str, names: Sequence[str] = (), max_terms: float = 5e7) -> tuple[dict, list]:
    """A polynomial written as text, read by netpoly's own parser (FLINT's, after netpoly's check of the
    text: exponents below 2^62, the expansion within ``max_terms``): numbers, variable names,
    ``+ - * ^ **`` and parentheses. Data, never code: nothing is evaluated. Returns (terms, names)."""
    if not isinstance(text, str):
        raise InputError("expected a polynomial as text")
    found = list(dict.fromkeys(list(names) + _NAME.findall(text)))
    if any(n in ("I", "i") for n in found):
        raise InputError("polynomial text: Gaussian coefficients are taken from SymPy expressions, not text "
                         "(write sympy.I)")
    terms = _netpoly.parse_poly(text.replace("**", "^"), found, max_terms)
    return {tuple(e): parse_rational(c) for e, c in terms}, found


def from_sympy(expr, gens_first: Iterable = (), max_terms: float = 5e7) -> tuple[dict, list]:
    """A SymPy polynomial as ``(terms, generators)``: refused (InputError) when it is not a polynomial
    with rational or Gaussian-rational coefficients, or when its expansion would exceed ``max_terms``
    terms (estimated before SymPy expands it)."""
    sympy = optional("sympy", "a SymPy polynomial")
    poly_gens: list = []
    if isinstance(expr, sympy.Poly):
        expr, poly_gens = _poly_expr(expr)
    try:
        expr = sympy.sympify(expr, strict=True)
    except (sympy.SympifyError, TypeError) as e:
        raise InputError(f"not a SymPy expression: {e}") from None
    _check_expandable(expr, max_terms)
    extra = [sympy.Symbol(str(g)) if isinstance(g, str) else g for g in gens_first]
    for g in extra:
        if not isinstance(g, sympy.Symbol):
            raise InputError(f"side_a=: {_show(g)}: expected a SymPy symbol")
        _check_leaf(g)
    extra += poly_gens
    try:
        expanded = sympy.expand(expr)
    except RecursionError:
        raise InputError("the expression is nested too deeply to expand") from None
    gens = sorted(expanded.free_symbols | set(extra), key=lambda s: s.sort_key())
    index = {g: k for k, g in enumerate(gens)}
    terms: dict = {}
    for term in sympy.Add.make_args(expanded):
        coeff, mono = term.as_independent(*gens, as_Add=False) if gens else (term, sympy.Integer(1))
        re, im = coeff.as_real_imag()
        if not (re.is_Rational and im.is_Rational):
            raise InputError(f"coefficient {_show(coeff)}: netpoly takes rational or Gaussian-rational coefficients")
        e = [0] * len(gens)
        for base, k in mono.as_powers_dict().items():
            if base == 1:
                continue
            if base not in index or not (k.is_Integer and k >= 0):
                raise InputError(f"{_show(term)}: not a polynomial term (netpoly takes polynomials)")
            if k >= 2**62:
                raise InputError(f"{_show(term)}: an exponent of 2^62 or more is refused")
            e[index[base]] += int(k)
        c = Fraction(int(re.p), int(re.q))
        if im != 0:
            c = GaussianRational(c, Fraction(int(im.p), int(im.q)))
        key = tuple(e)
        terms[key] = terms.get(key, 0) + c
    return {e: c for e, c in terms.items() if c != 0}, gens


def _show(node, n: int = 60) -> str:
    """A SymPy object as a message shows it: its text cut at ``n`` characters. SymPy writes numbers in
    decimal, which Python refuses beyond 4,300 digits: such an object is named, not printed."""
    try:
        return str(node)[:n]
    except ValueError:
        return f"<a {type(node).__name__} with a number of more than 4,300 digits>"


_EXACT_DOMAINS = ("ZZ", "QQ", "ZZ_I", "QQ_I")


def _poly_expr(p):
    """A ``sympy.Poly`` as its expression and generators, when its coefficients are exact rationals or
    Gaussian rationals (domain ZZ, QQ, ZZ_I, QQ_I, or polynomials over them such as ZZ[y]); any other
    domain (RR, CC: floats; GF(p): arithmetic mod p; fraction fields, algebraic extensions) is refused,
    naming it."""
    d = p.domain
    base = d.dom if getattr(d, "is_PolynomialRing", False) else d
    if str(base) not in _EXACT_DOMAINS:
        raise InputError(f"{_show(p)}: a sympy.Poly over {_show(d)}; netpoly takes polynomials with rational or "
                         f"Gaussian-rational coefficients (domain ZZ, QQ, ZZ_I or QQ_I)")
    for g in p.gens:
        _check_leaf(g)
        if not g.is_Symbol:
            raise InputError(f"{_show(p)}: its generator {_show(g)} is not a symbol (netpoly takes polynomials in "
                             f"symbols)")
    return p.as_expr(), list(p.gens)


def _check_expandable(expr, max_terms: float) -> None:
    """Walks the tree without recursion: only +, *, integer powers >= 0, symbols and numbers, and an
    estimate of the expanded terms (a power of a sum of k terms to the n has binom(n+k-1, n))."""
    import math
    import sympy
    size: dict = {}
    stack = [(expr, False)]
    while stack:
        node, done = stack.pop()
        if node in size:
            continue
        if not done:
            if not node.args or node.is_Number:
                _check_leaf(node)
                size[node] = 1
                continue
            _check_not_boolean(node)
            if getattr(node, "is_MatrixExpr", False) or getattr(node, "is_Matrix", False):
                raise InputError(f"{_show(node)}: a matrix expression (netpoly takes polynomials in commutative "
                                 f"scalar symbols)")
            if not (node.is_Add or node.is_Mul or node.is_Pow):
                raise InputError(f"{_show(node)}: not a polynomial (netpoly takes +, *, integer powers, symbols "
                                 f"and rational or Gaussian-rational numbers)")
            stack.append((node, True))
            stack.extend((a, False) for a in node.args)
            continue
        if node.is_Add:
            s = sum(size[a] for a in node.args)
        elif node.is_Mul:
            s = 1
            for a in node.args:
                s *= size[a]
        else:
            base, n = node.args
            if not (n.is_Integer and n >= 0):
                raise InputError(f"{_show(node)}: not a polynomial (the exponent {_show(n)} is not a whole number >= 0)")
            k = size[base]
            s = 1 if k == 1 else (math.comb(int(n) + k - 1, k - 1) if n < 10**6 else float("inf"))
        size[node] = min(s, 10**30)
        if size[node] > max_terms:
            raise InputError(f"{_show(node)}: its expansion would have about {float(size[node]):.3g} terms, more "
                             f"than max_terms={max_terms:g}")


def _check_leaf(node) -> None:
    """A leaf of a polynomial: a commutative scalar symbol, a rational number or sympy.I. Refused, naming
    the leaf: non-commutative symbols (x*y - y*x would otherwise become 0), matrix symbols, floats (not
    exact), booleans (sympy.true), other numbers (oo, nan, pi) and anything else."""
    import sympy
    what = _show(node)
    _check_not_boolean(node)
    if getattr(node, "is_MatrixExpr", False) or getattr(node, "is_Matrix", False):
        raise InputError(f"{what}: a matrix symbol (netpoly takes polynomials in commutative scalar symbols)")
    if node.is_commutative is not True:
        raise InputError(f"{what}: a non-commutative symbol (netpoly takes polynomials in commutative symbols)")
    if node.is_Float:
        raise InputError(f"{what}: a float (netpoly takes exact coefficients: write sympy.Rational(p, q))")
    if not (node.is_Symbol or node.is_Rational or node is sympy.I):
        raise InputError(f"{what}: not a polynomial (netpoly takes +, *, integer powers, symbols and rational or "
                         f"Gaussian-rational numbers)")


def _check_not_boolean(node) -> None:
    """sympy.true, x < y, And(...): a truth value, not a number (SymPy says it is not commutative,
    which is not the reason it is refused)."""
    import sympy
    from sympy.logic.boolalg import Boolean
    if isinstance(node, Boolean) and not isinstance(node, sympy.Expr):
        raise InputError(f"{_show(node)}: a boolean ({type(node).__name__}), not a number (netpoly takes "
                         f"polynomials in commutative symbols with rational or Gaussian-rational coefficients)")
