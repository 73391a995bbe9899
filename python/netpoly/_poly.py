"""Polynomials with exact coefficients: netpoly.Poly and its coefficients over Q(i)."""

from __future__ import annotations

import decimal as _decimal
import itertools as _itertools
import math as _math
import re as _re
from fractions import Fraction
from numbers import Complex, Number, Rational, Real
from typing import Mapping

from . import _netpoly
from ._api import _short, api, optional
from ._netpoly import Error, InputError, LimitError
from ._number_text import gauss_text, parse_rational, rational_text


class GaussianRational:
    """``a + b i`` with ``a``, ``b`` Fractions (a coefficient over Q(i)).

    Parameters
    ----------
    re, im : int, Fraction or str
        The real and imaginary parts, exactly.
    """

    __slots__ = ("re", "im")

    @api
    def __init__(self, re, im=0):
        self.re, self.im = _part(re, "re="), _part(im, "im=")

    @staticmethod
    def of(x) -> "GaussianRational":
        if isinstance(x, GaussianRational):
            return x
        c = _exact(x, "GaussianRational arithmetic")
        return c if isinstance(c, GaussianRational) else _gauss(c, 0)

    def _norm(self):
        return self.re if self.im == 0 else self

    def __add__(self, o):
        o = GaussianRational.of(o)
        return _gauss(self.re + o.re, self.im + o.im)._norm()

    __radd__ = __add__

    def __neg__(self):
        return _gauss(-self.re, -self.im)

    def __sub__(self, o):
        return self + (-GaussianRational.of(o))

    def __rsub__(self, o):
        return GaussianRational.of(o) - self

    def __mul__(self, o):
        o = GaussianRational.of(o)
        return _gauss(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)._norm()

    __rmul__ = __mul__

    def __pow__(self, n):
        """``z ** n`` for a whole number ``n >= 0`` (by squaring)."""
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise InputError(f"GaussianRational ** n: n must be a whole number >= 0, got {_short(n)}")
        if n > 1 and _bits(self) * n > _MAX_VALUE_BITS:
            raise LimitError(f"GaussianRational ** n: the power would have about {_bits(self) * n:,} bits (more "
                             "than 2^18)")
        r, b = _gauss(1, 0), self
        while n:
            if n & 1:
                r = GaussianRational.of(r * b)
            n >>= 1
            if n:
                b = GaussianRational.of(b * b)
        return r._norm()

    def __eq__(self, other):
        if isinstance(other, GaussianRational):
            return self.re == other.re and self.im == other.im
        try:
            return self.im == 0 and self.re == other
        except TypeError:
            return False

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self.re, self.im)) if self.im else hash(self.re)

    def __complex__(self):
        return complex(float(self.re), float(self.im))

    def to_sympy(self):
        sympy = optional("sympy", "GaussianRational.to_sympy")
        return sympy.Rational(self.re.numerator, self.re.denominator) + \
            sympy.I * sympy.Rational(self.im.numerator, self.im.denominator)

    def __str__(self):
        return gauss_text(self.re, self.im)

    __repr__ = __str__


_RATIONAL = _re.compile(r"[+-]?[0-9]+(/[0-9]+)?", _re.ASCII)


def _gauss(re, im) -> GaussianRational:
    """A GaussianRational of two exact parts (Fractions or ints), without the public constructor's checks."""
    g = GaussianRational.__new__(GaussianRational)
    g.re, g.im = Fraction(re), Fraction(im)
    return g


def _part(x, where: str) -> Fraction:
    """A real or imaginary part given to GaussianRational: an exact number (int, Fraction, a float as the
    dyadic rational it is, or the text "p/q"), else an InputError naming it."""
    if isinstance(x, str):
        try:
            if not _RATIONAL.fullmatch(x.strip()):  # no "1e999999999": an integer or p/q only
                raise ValueError
            return parse_rational(x.strip())
        except (ValueError, ZeroDivisionError, Error):
            raise InputError(f"GaussianRational: {where} {_short(x)}: expected an integer or p/q") from None
    c = _exact(x, f"GaussianRational: {where}")
    if isinstance(c, GaussianRational):
        raise InputError(f"GaussianRational: {where} expected a real number, got {c}")
    return c


def _exact(x, what: str):
    """A coefficient or point value as an exact Fraction or GaussianRational (floats: the dyadic rational
    they are; NaN and infinities refused)."""
    if isinstance(x, (GaussianRational, Fraction)):
        return x
    if isinstance(x, bool):
        return Fraction(int(x))
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, float):
        if x != x or x in (float("inf"), float("-inf")):
            raise InputError(f"{what}: {x} is not a number netpoly can take exactly")
        return Fraction(x)
    if isinstance(x, complex):
        if not (_math.isfinite(x.real) and _math.isfinite(x.imag)):
            raise InputError(f"{what}: {x} is not a number netpoly can take exactly")
        return _gauss(Fraction(x.real), Fraction(x.imag))._norm()
    if type(x).__module__ == "numpy" and type(x).__name__ in ("bool_", "bool"):
        return Fraction(int(x))
    if isinstance(x, Rational):
        return Fraction(int(x.numerator), int(x.denominator))
    if isinstance(x, _decimal.Decimal):
        if not x.is_finite():
            raise InputError(f"{what}: {x} is not a number netpoly can take exactly")
        return Fraction(x)
    if isinstance(x, Real):  # NumPy's floats of other widths, SymPy's Float: the binary float they are
        return _exact(float(x), what)
    if isinstance(x, Complex):
        return _exact(complex(x), what)
    raise InputError(f"{what}: expected a number, got {_short(x)}")


_MAX_POWER_TERMS = 5e7  # the default max_terms of an expansion
_MAX_POWER_WORK = 1e7  # products of terms in the last squaring of p ** n (Python's Fractions: seconds)
_MAX_VALUE_BITS = 1 << 18  # one exact value (a term at a point, a power): a gcd of 2^18 bits takes 0.1 s


def _value(x, at: str):
    """A value of a point: exact (Fraction, GaussianRational), or a finite float or complex number."""
    if isinstance(x, float) or (isinstance(x, Real) and not isinstance(x, Rational)
                                and not isinstance(x, _decimal.Decimal)):
        try:
            f = float(x)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"{at}: expected a number, got {_short(x)}") from None
        if not _math.isfinite(f):
            raise InputError(f"{at}: {f} is not a number to evaluate at (NaN and infinities are refused)")
        return f
    if isinstance(x, complex):
        if not (_math.isfinite(x.real) and _math.isfinite(x.imag)):
            raise InputError(f"{at}: {x} is not a number to evaluate at (NaN and infinities are refused)")
        return x
    return _exact(x, at)


def _bits(v) -> int:
    """The bits of an exact value, 0 for 0, 1, -1, i and -i (whose powers stay small)."""
    if isinstance(v, GaussianRational):
        if (v.re == 0 and abs(v.im) == 1) or (v.im == 0 and abs(v.re) in (0, 1)):
            return 0
        return max(_bits(v.re), _bits(v.im), 1)
    if v.denominator == 1 and abs(v.numerator) <= 1:
        return 0
    return max(abs(v.numerator).bit_length(), v.denominator.bit_length())


class Poly:
    """A polynomial with exact coefficients: a network's output, or any polynomial.

    Parameters
    ----------
    terms : dict
        ``{exponent tuple: coefficient}``; coefficients are ints, Fractions or GaussianRationals.
    nvars : int
        The number of variables.
    tokens, width : int
        How the variables are named: ``x{token}_{channel}`` (``tokens * width == nvars``).

    Notes
    -----
    ``+``, ``-``, ``*`` and ``** n`` work with other Polys of the same variables and with numbers;
    ``p(point)`` evaluates at a sequence of ``nvars`` values or a ``{name: value}`` mapping (exactly,
    when the values are exact); SymPy reads a Poly directly (``sympy.sympify(p)``).
    """

    @api
    def __init__(self, terms: Mapping, nvars: int, tokens: int = 1, width: int | None = None):
        def whole(v, what, lo=0):
            if isinstance(v, bool) or not isinstance(v, int) or v < lo or v >= 2**62:
                shown = type(v).__name__ if not isinstance(v, (int, float, str)) or isinstance(v, int) and v >= 2**62 \
                    else repr(v)[:60]
                raise InputError(f"Poly: {what}: expected a whole number in [{lo}, 2^62), got {shown}")
            return v
        whole(nvars, "nvars")
        whole(tokens, "tokens", 1)
        if width is not None:
            whole(width, "width", 1)
        if tokens * (width if width is not None else nvars) != nvars:
            raise InputError(f"Poly: tokens * width must be nvars ({nvars})")
        if not isinstance(terms, Mapping):
            raise InputError(f"Poly: terms: expected a dict {{exponent tuple: coefficient}}, got {type(terms).__name__}")
        self._terms = {}
        for e, c in terms.items():
            if not isinstance(e, tuple):
                raise InputError(f"Poly: an exponent must be a tuple of whole numbers, got {type(e).__name__}")
            e = tuple(whole(k, "an exponent") for k in e)
            if len(e) != nvars:
                raise InputError(f"Poly: an exponent tuple of length {len(e)}, expected {nvars}")
            c = _exact(c, "Poly coefficient")
            if c != 0:
                self._terms[e] = c
        self.nvars = nvars
        self.tokens = tokens
        self.width = width if width is not None else nvars

    @classmethod
    def _from_raw(cls, raw, tokens, width):
        re = {tuple(e): parse_rational(c) for e, c in raw["re"]}
        p = cls.__new__(cls)
        p.nvars, p.tokens, p.width = tokens * width, tokens, width
        if raw.get("im") is None:
            p._terms = re
            return p
        im = {tuple(e): parse_rational(c) for e, c in raw["im"]}
        p._terms = {}
        for e in set(re) | set(im):
            c = _gauss(re.get(e, 0), im.get(e, 0))._norm()
            if c != 0:
                p._terms[e] = c
        return p

    def _like(self, terms) -> "Poly":
        p = Poly.__new__(Poly)
        p._terms = {e: c for e, c in terms.items() if c != 0}
        p.nvars, p.tokens, p.width = self.nvars, self.tokens, self.width
        return p

    # ---- reading
    @property
    def terms(self) -> list:
        """``[(exponents, coefficient)]``, sorted by exponents (descending)."""
        return sorted(self._terms.items(), reverse=True)

    @property
    def degree(self) -> int:
        """The total degree (-1 for the zero polynomial)."""
        return max((sum(e) for e in self._terms), default=-1)

    @property
    def gaussian(self) -> bool:
        """Whether some coefficient has an imaginary part."""
        return any(isinstance(c, GaussianRational) for c in self._terms.values())

    def __len__(self) -> int:
        return len(self._terms)

    def var_names(self) -> list:
        """``x{token}_{channel}``, as the CLI names the variables."""
        return [_netpoly.var_name(self.width, k) for k in range(self.nvars)]

    def to_dict(self) -> dict:
        """``{exponent tuple: coefficient}``."""
        return dict(self._terms)

    # ---- arithmetic
    def _other(self, o) -> dict:
        if isinstance(o, Poly):
            if o.nvars != self.nvars:
                raise InputError(f"Poly: {self.nvars} and {o.nvars} variables")
            return o._terms
        c = _exact(o, "Poly arithmetic")
        return {(0,) * self.nvars: c} if c != 0 else {}

    def __add__(self, o):
        t = dict(self._terms)
        for e, c in self._other(o).items():
            t[e] = t.get(e, 0) + c
        return self._like(t)

    __radd__ = __add__

    def __neg__(self):
        return self._like({e: -c for e, c in self._terms.items()})

    def __sub__(self, o):
        return self + (-self._like(self._other(o)))

    def __rsub__(self, o):
        return self._like(self._other(o)) - self

    def __mul__(self, o):
        t: dict = {}
        for e1, c1 in self._terms.items():
            for e2, c2 in self._other(o).items():
                e = tuple(a + b for a, b in zip(e1, e2))
                t[e] = t.get(e, 0) + c1 * c2
        return self._like(t)

    __rmul__ = __mul__

    def __pow__(self, n: int):
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise InputError(f"Poly ** n: n must be a whole number >= 0, got {_short(n)}")
        if n > 1 and len(self._terms) > 0 and self.degree > 0:
            import math
            if self.degree * n >= 2**62:
                raise InputError(f"Poly ** n: degree {self.degree} * {_short(n)} reaches 2^62 (netpoly takes "
                                 "degrees below 2^62)")
            k = len(self._terms)
            terms = math.comb(n + k - 1, k - 1) if k > 1 and n < 10**6 else (1 if k == 1 else float("inf"))
            half = math.comb(n // 2 + k - 1, k - 1) if k > 1 and n < 10**6 else 1
            if terms > _MAX_POWER_TERMS or terms * half > _MAX_POWER_WORK:
                raise LimitError(f"Poly ** n: the power could have about {float(terms):.3g} terms, from about "
                                 f"{float(terms * half):.3g} products of terms (more than {_MAX_POWER_WORK:.0e}): "
                                 "expand it with SymPy, or lower n")
        if n > 1 and self._terms:
            bits = n * max(_bits(c) for c in self._terms.values())
            if bits > _MAX_VALUE_BITS:
                raise LimitError(f"Poly ** n: a coefficient could have about {bits:,} bits (more than 2^18)")
        r, b = self._like({(0,) * self.nvars: Fraction(1)}), self
        while n:
            if n & 1:
                r = r * b
            n >>= 1
            if n:
                b = b * b
        return r

    # ---- evaluation
    @api
    def __call__(self, point):
        """The value at ``point`` (a sequence of ``nvars`` numbers, or ``{name: value}`` with every variable).

        Exact numbers (ints, Fractions, GaussianRationals) give the exact value; a float or complex
        number among them a float (complex) one. NaN and infinities are refused, and so is an exact value
        with more than 2^18 bits in one term (LimitError), or a float power beyond a float's range."""
        where = "Poly: point="
        if isinstance(point, Mapping):
            names = self.var_names()
            missing = [n for n in names if n not in point]
            if missing:
                raise InputError(f"{where}: no value for {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}")
            values = [(f"{where}[{n!r}]", point[n]) for n in names]
        elif isinstance(point, (str, bytes)) or not hasattr(point, "__iter__"):
            raise InputError(f"{where}: expected a sequence of {self.nvars} numbers or a {{name: value}} dict, "
                             f"got {_short(point)}")
        else:
            given = list(_itertools.islice(point, self.nvars + 1))
            if len(given) != self.nvars:
                n = f"more than {self.nvars}" if len(given) > self.nvars else str(len(given))
                raise InputError(f"{where}: a point of {n} values, expected {self.nvars}")
            values = [(f"{where}[{k}]", v) for k, v in enumerate(given)]
        point = [_value(v, at) for at, v in values]
        if any(isinstance(v, (float, complex)) for v in point):
            return self._evaluate_float(point, values)
        total = Fraction(0)
        for e, c in self._terms.items():
            bits = sum(k * _bits(v) for v, k in zip(point, e) if k)
            if bits > _MAX_VALUE_BITS:
                raise LimitError(f"{where}: a term's value would have about {bits:,} bits (more than 2^18): "
                                 f"evaluate at smaller numbers, or at floats")
            t = c
            for v, k in zip(point, e):
                if k:
                    t = t * v ** k
            total = total + t
        return total._norm() if isinstance(total, GaussianRational) else total

    def _evaluate_float(self, point, values):
        """The value in floating point (some value is a float or complex)."""
        def conv(x, at):
            try:
                return complex(x) if isinstance(x, (complex, GaussianRational)) else float(x)
            except OverflowError:
                raise LimitError(f"{at}: beyond a float's range (evaluate at exact numbers)") from None
        pts = [conv(v, at) for v, (at, _) in zip(point, values)]
        total = 0.0
        for e, c in self._terms.items():
            t = conv(c, "Poly: a coefficient")
            for v, k in zip(pts, e):
                if k:
                    try:
                        t = t * v ** k
                    except OverflowError:
                        raise LimitError(f"Poly: point=: a power overflows a float (exponent {k}); evaluate at "
                                         "exact numbers") from None
            total = total + t
        return total

    evaluate = __call__

    # ---- SymPy
    @api
    def to_sympy(self, poly: bool = False):
        """The polynomial as a SymPy expression, built in one step (no sum rebuilt per term).

        With ``poly=True``, a ``sympy.Poly`` over QQ (or QQ_I) in the variables ``x{token}_{channel}``:
        SymPy's sparse representation, about ten times faster to build for large polynomials (100,000
        terms: about 1 s, against about 15 s for the expression; ``bench/to-sympy``).
        """
        sympy = optional("sympy", "Poly.to_sympy")
        if poly and not self.nvars:
            raise InputError("Poly.to_sympy: poly=True needs a variable (a sympy.Poly has generators); "
                             "to_sympy() gives a constant")
        xs = sympy.symbols(self.var_names())
        gens = list(xs) if isinstance(xs, (list, tuple)) else [xs]
        rep = {}
        for e, c in self._terms.items():
            rep[e] = c.to_sympy() if isinstance(c, GaussianRational) else sympy.Rational(c.numerator, c.denominator)
        domain = "QQ_I" if self.gaussian else "QQ"
        if poly:
            return sympy.Poly.from_dict(rep or {(0,) * len(gens): 0}, *gens, domain=domain)
        if not rep:
            return sympy.Integer(0)
        return sympy.Poly.from_dict(rep, *gens, domain=domain).as_expr()

    def _sympy_(self):
        return self.to_sympy()

    # ---- text
    def __str__(self) -> str:
        names = self.var_names()
        parts = []
        for e, c in self.terms:
            mono = "*".join(n if k == 1 else f"{n}^{k}" for n, k in zip(names, e) if k)
            cs = f"({c})" if isinstance(c, GaussianRational) else rational_text(c)
            parts.append(cs if not mono else (mono if cs == "1" else ("-" + mono if cs == "-1" else f"{cs}*{mono}")))
        return " + ".join(parts).replace("+ -", "- ") or "0"

    def __repr__(self) -> str:
        return f"<netpoly.Poly: {len(self._terms)} terms, degree {self.degree}, {self.nvars} variables>"

    def __eq__(self, other) -> bool:
        if isinstance(other, Poly):
            return self._terms == other._terms and self.nvars == other.nvars
        try:
            return self._terms == self._other(other)
        except InputError:
            return False

    __hash__ = None
