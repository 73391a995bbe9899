"""Polynomials with exact coefficients: netpoly.Poly and its coefficients over Q(i)."""

from __future__ import annotations

import decimal as _decimal
import itertools as _itertools
import math as _math
import re as _re
from fractions import Fraction
from numbers import Complex, Number, Rational, Real
from typing import Iterable, Mapping, Sequence

from . import _netpoly
from ._api import _short, api, optional
from ._netpoly import Error, InputError, LimitError


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


# ---------------------------------------------------------------- polynomials from user input
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
