"""Exact numbers as the model format writes them, "p" or "p/q" in decimal ("a+bi" for Gaussian rationals),
whatever their size: Python's int() and str() refuse more than 4,300 digits, FLINT does not."""

from __future__ import annotations

from fractions import Fraction

from . import _netpoly


def rational_text(v: Fraction) -> str:
    """A Fraction as the model format writes it, whatever its size."""
    n, d = v.numerator, v.denominator
    return integer_text(n) if d == 1 else f"{integer_text(n)}/{integer_text(d)}"


def integer_text(n: int) -> str:
    """An int's decimal text; Python's str() refuses more than 4,300 digits, so big ones go through FLINT."""
    if -10**4000 < n < 10**4000:
        return str(n)
    return _netpoly.decimal(format(n, "x"))


def parse_rational(text: str) -> Fraction:
    """ "p" or "p/q" (decimal) as a Fraction, whatever its size (Python's int() refuses more than 4,300
    digits; through hexadecimal text there is no limit)."""
    if len(text) < 4000:
        return Fraction(text)
    num, _, den = text.partition("/")

    def big(t: str) -> int:
        return int(_netpoly.hexadecimal(t), 16)
    return Fraction(big(num), big(den) if den else 1)


def gauss_text(re: Fraction, im: Fraction) -> str:
    if im == 0:
        return rational_text(re)
    b = "" if abs(im) == 1 else rational_text(abs(im))
    if re == 0:
        return ("-" if im < 0 else "") + b + "i"
    return rational_text(re) + ("-" if im < 0 else "+") + b + "i"
