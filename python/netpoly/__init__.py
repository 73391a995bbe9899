"""netpoly: exact network polynomials and separation ranks, from Python.

The same C++ library as the ``netpoly`` command (not a wrapper around it):

    import netpoly
    net = netpoly.make("attention", layers=2, width=4, heads=2, tokens=4, seed=1)
    p = net.expand(output=(0, 0))          # netpoly.Poly
    r = net.seprank(partition="half")      # netpoly.Result, with how every number was obtained
    netpoly.bounds("attention", layers=2, width=4, heads=2, tokens=4)

Every number keeps the provenance the CLI prints: ``Result.status`` is
"exact", "probabilistic" (``eps`` says with what failure probability, over
the black-box seed) or "bracket" (certified lower and upper ends), and
``Result.methods`` lists each method's value and how it was obtained.
Long calls release the GIL, stop on Ctrl-C (KeyboardInterrupt; finished
results are on the exception's ``partial``), and take ``budget=`` (seconds),
``max_memory=`` (bytes or "8G") and ``threads=``.
"""

from __future__ import annotations

import json as _json
import os as _os
from fractions import Fraction
from typing import Iterable, Sequence

from . import _netpoly
from ._netpoly import CheckFailed, Error, InputError, InternalError, LimitError

__version__ = _netpoly.__version__
flint_version = _netpoly.flint_version

__all__ = [
    "make", "load", "from_json", "from_numpy", "seprank", "bounds", "table", "check",
    "Network", "Poly", "Result", "Results", "Bound", "Report",
    "Error", "InputError", "LimitError", "CheckFailed", "InternalError", "__version__",
]


# ---------------------------------------------------------------- limits
def _memory(x) -> float:
    if x is None:
        return 0.0
    if isinstance(x, (int, float)):
        return float(x)
    s = str(x).strip().upper()
    units = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
    if s and s[-1] in units:
        return float(s[:-1]) * units[s[-1]]
    return float(s)


def _limits(budget=None, max_memory=None, threads=None) -> _netpoly.Limits:
    lim = _netpoly.Limits()
    lim.budget = float(budget) if budget else 0.0
    lim.max_memory = _memory(max_memory)
    lim.threads = int(threads) if threads else 0
    return lim


def _interrupted(done: list, what: str):
    e = KeyboardInterrupt(f"netpoly: {what} interrupted; {len(done)} finished (on .partial)")
    e.partial = done
    return e


# ---------------------------------------------------------------- networks
class Network:
    """A model (the netpoly-model/1 format): a network with exact weights."""

    def __init__(self, model: _netpoly.Model):
        self._m = model

    # shape
    name = property(lambda self: self._m.name)
    tokens = property(lambda self: self._m.tokens)
    width = property(lambda self: self._m.width)
    output_width = property(lambda self: self._m.output_width)
    layers = property(lambda self: self._m.layers)
    params = property(lambda self: self._m.params)
    degree = property(lambda self: self._m.degree)
    gaussian = property(lambda self: self._m.gaussian)
    output = property(lambda self: self._m.output)

    def to_json(self) -> str:
        return self._m.to_json()

    def save(self, path: str) -> None:
        text = self.to_json()
        tmp = f"{path}.tmp{_os.getpid()}"
        with open(tmp, "w") as f:
            f.write(text)
        _os.replace(tmp, path)

    def __eq__(self, other) -> bool:
        return isinstance(other, Network) and self._m == other._m

    def __repr__(self) -> str:
        g = ", Gaussian weights" if self.gaussian else ""
        return (f"<netpoly.Network {self.name!r}: N={self.tokens}, d={self.width}, {self.layers} layers, "
                f"{self.params} parameters, degree {self.degree:g}{g}>")

    def _outputs(self, output, outputs):
        if outputs == "all":
            return [(t, c) for t in range(self.tokens) for c in range(self.output_width)]
        if outputs is not None:
            return [tuple(o) for o in outputs]
        if output is None:
            output = self.output or (0, 0)
        return [tuple(output)]

    def expand(self, output=None, outputs=None, max_terms: float = 5e7, budget=None, max_memory=None, threads=None):
        """The network polynomial of one output entry (a Poly), or a list for ``outputs=[...] | "all"``."""
        outs = self._outputs(output, outputs)
        raw = _netpoly.expand(self._m, outs, float(max_terms), _limits(budget, max_memory, threads))
        polys = [Poly._from_raw(r, self.tokens, self.width) for r in raw]
        return polys if outputs is not None else polys[0]

    def seprank(self, partition: str = "half", partitions=None, output=None, outputs=None, methods=None,
                seed=None, prime=None, max_points=None, templates=None, method_budget=None,
                max_terms=None, budget=None, max_memory=None, threads=None, small_prime=True):
        """Separation rank (a bracket, closed when the methods agree) of output entries over partitions.

        ``partition``: "half", "A=0,1" (tokens), "A=x0_0,x1_1" (variables) ...;
        ``partitions``: a list of those, or "all-balanced". One output and one
        partition give a Result; otherwise a Results list (with .sup / .inf).
        ``small_prime=False`` skips the black-box's small-prime phase (the
        CLI's --no-small-prime; README, "The black-box's small prime").
        """
        many = partitions is not None or outputs is not None
        parts = ["all-balanced"] if partitions == "all-balanced" else list(partitions or [partition])
        outs = self._outputs(output, outputs)
        opts = {"methods": ",".join(methods) if isinstance(methods, (list, tuple)) else methods, "seed": seed,
                "prime": prime, "max_points": max_points, "templates": templates, "method_budget": method_budget,
                "max_terms": max_terms, "small_prime": small_prime}
        text, interrupted = _netpoly.seprank(self._m, outs, parts, opts, _limits(budget, max_memory, threads))
        rs = Results(Result(d) for d in _json.loads(text))
        if interrupted:
            raise _interrupted(rs, "seprank")
        return rs if many else rs[0]


def make(arch: str, **options) -> Network:
    """A preset model, as ``netpoly make ARCH``: layers, width, heads, tokens, degree, residual, seed,
    weights ("small" | "wide" | "generic"), range, permuted, perm_sum; "lv-witness" takes layers,
    width, heads, tokens, omega, rational_v, printed_last."""
    return Network(_netpoly.make(dict(options, arch=arch)))


def load(path: str) -> Network:
    """Reads and validates a model file (errors name the file and JSON path)."""
    return Network(_netpoly.load(path))


def from_json(text: str, source: str = "<json>") -> Network:
    return Network(_netpoly.parse(text, source))


def _exact_text(x) -> str | int:
    """One weight as the model format writes it, exactly."""
    if isinstance(x, str):
        return x
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return x if abs(x) < 2**53 else str(x)
    if isinstance(x, complex):
        re, im = Fraction(x.real), Fraction(x.imag)  # floats are dyadic rationals: exact
        return _gauss_text(re, im)
    if hasattr(x, "dtype") and getattr(x.dtype, "kind", "") in "iub":
        return _exact_text(int(x))
    if hasattr(x, "dtype") and getattr(x.dtype, "kind", "") == "c":
        return _exact_text(complex(x))
    f = Fraction(x)  # Fraction, float (exact), numpy floats, sympy Rational via its __index__/str
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _gauss_text(re: Fraction, im: Fraction) -> str:
    def q(v: Fraction) -> str:
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if im == 0:
        return q(re)
    b = "" if abs(im) == 1 else q(abs(im))
    if re == 0:
        return ("-" if im < 0 else "") + b + "i"
    return q(re) + ("-" if im < 0 else "+") + b + "i"


def _matrix(a) -> list:
    rows = a.tolist() if hasattr(a, "tolist") and not _is_object_array(a) else [list(r) for r in a]
    return [[_exact_text(x) for x in r] for r in rows]


def _is_object_array(a) -> bool:
    return hasattr(a, "dtype") and a.dtype.kind == "O"


def _layers(layers: Sequence[dict]) -> list:
    out = []
    for layer in layers:
        d = {}
        for k, v in layer.items():
            if k in ("W", "W2", "Q", "K", "V", "O", "C", "Ws"):
                d[k] = [_matrix(w) for w in v] if k == "Ws" else _matrix(v)
            elif k == "heads":
                d[k] = [{hk: (_matrix(hv) if hk != "extra" else [{ek: _matrix(ev) for ek, ev in e.items()} for e in hv])
                         for hk, hv in h.items()} for h in v]
            elif k == "branches":
                d[k] = [_layers(b) for b in v]
            else:
                d[k] = v
        out.append(d)
    return out


def from_numpy(layers: Sequence[dict], tokens: int, width: int, name: str = "from-numpy", output=(0, 0)) -> Network:
    """A model from layers written as in the model format, with NumPy arrays (integer, float or object
    arrays of Fractions) or nested lists in place of the matrices. Every weight is taken exactly: an
    integer as itself, a Fraction as itself, a float as the dyadic rational it is."""
    doc = {"format": "netpoly-model/1", "name": name, "input": {"tokens": int(tokens), "width": int(width)},
           "layers": _layers(layers), "output": {"token": int(output[0]), "channel": int(output[1])}}
    return from_json(_json.dumps(doc), name)


# ---------------------------------------------------------------- polynomials
class Poly:
    """A network polynomial: exact coefficients (Fractions; Gaussian ones as complex pairs)."""

    def __init__(self, terms: dict, nvars: int, tokens: int = 1, width: int | None = None):
        self._terms = {tuple(e): c for e, c in terms.items() if c != 0}
        self.nvars = nvars
        self.tokens = tokens
        self.width = width if width is not None else nvars

    @classmethod
    def _from_raw(cls, raw, tokens, width):
        re = {tuple(e): Fraction(c) for e, c in raw["re"]}
        if raw["im"] is None:
            return cls(re, tokens * width, tokens, width)
        im = {tuple(e): Fraction(c) for e, c in raw["im"]}
        terms = {}
        for e in set(re) | set(im):
            terms[e] = GaussianRational(re.get(e, Fraction(0)), im.get(e, Fraction(0)))
        return cls(terms, tokens * width, tokens, width)

    @property
    def terms(self) -> list:
        """[(exponents, coefficient)], sorted by exponents (descending)."""
        return sorted(self._terms.items(), reverse=True)

    @property
    def degree(self) -> int:
        return max((sum(e) for e in self._terms), default=-1)

    @property
    def gaussian(self) -> bool:
        return any(isinstance(c, GaussianRational) for c in self._terms.values())

    def var_names(self) -> list:
        """x{token}_{channel}, as the CLI names them."""
        return [_netpoly.var_name(self.width, k) for k in range(self.nvars)]

    def to_dict(self) -> dict:
        return dict(self._terms)

    def to_sympy(self):
        import sympy
        xs = sympy.symbols(self.var_names())
        expr = sympy.Integer(0)
        for e, c in self._terms.items():
            coef = c.to_sympy() if isinstance(c, GaussianRational) else sympy.Rational(c.numerator, c.denominator)
            mono = sympy.Integer(1)
            for x, k in zip(xs, e):
                if k:
                    mono *= x**k
            expr += coef * mono
        return expr

    def __str__(self) -> str:
        names = self.var_names()
        parts = []
        for e, c in self.terms:
            mono = "*".join(n if k == 1 else f"{n}^{k}" for n, k in zip(names, e) if k)
            cs = f"({c})" if isinstance(c, GaussianRational) else str(c)
            parts.append(cs if not mono else (mono if cs == "1" else f"{cs}*{mono}"))
        return " + ".join(parts).replace("+ -", "- ") or "0"

    def __repr__(self) -> str:
        return f"<netpoly.Poly: {len(self._terms)} terms, degree {self.degree}, {self.nvars} variables>"

    def __eq__(self, other) -> bool:
        return isinstance(other, Poly) and self._terms == other._terms and self.nvars == other.nvars


class GaussianRational:
    """a + b i with a, b Fractions (coefficients over Q(i))."""

    __slots__ = ("re", "im")

    def __init__(self, re, im=0):
        self.re, self.im = Fraction(re), Fraction(im)

    def __eq__(self, other):
        if isinstance(other, GaussianRational):
            return self.re == other.re and self.im == other.im
        return self.im == 0 and self.re == other

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self.re, self.im))

    def __complex__(self):
        return complex(float(self.re), float(self.im))

    def to_sympy(self):
        import sympy
        return sympy.Rational(self.re.numerator, self.re.denominator) + \
            sympy.I * sympy.Rational(self.im.numerator, self.im.denominator)

    def __str__(self):
        return _gauss_text(self.re, self.im)

    __repr__ = __str__


# ---------------------------------------------------------------- results
def _fmt(x) -> str:
    return "-" if x is None else f"{x:,}"


class Result:
    """One separation rank: certified ends, status, and each method's run (the CLI's JSON)."""

    def __init__(self, d: dict):
        self.json = d
        self.status = d["status"]
        self.lower = d.get("lower", {}).get("value")
        self.upper = d.get("upper", {}).get("value")
        self.methods = d.get("methods", [])
        self.timings = d.get("timings", {})
        self.eps = d.get("failure_probability")
        self.output = (d["output"]["token"], d["output"]["channel"]) if "output" in d else None
        self.partition = d.get("partition")
        primes = [m["details"].get("prime") for m in self.methods if "prime" in m.get("details", {})]
        self.prime = primes[0] if primes else None
        self.how = {m["method"]: m.get("how", "") for m in self.methods}

    @property
    def value(self):
        """The separation rank when the bracket is closed (exactly, or with probability 1 - eps), else None."""
        return self.lower if self.status in ("exact", "probabilistic") else None

    def _text(self) -> str:
        if self.status == "exact":
            return f"sep = {_fmt(self.lower)} (exact)"
        if self.status == "probabilistic":
            return (f"sep = {_fmt(self.lower)} (probabilistic: certified >= {_fmt(self.lower)}, equal with "
                    f"probability >= 1 - {self.eps:.3g}; certified <= {_fmt(self.upper)})")
        return f"sep in [{_fmt(self.lower)}, {_fmt(self.upper)}] (certified bracket)"

    def __repr__(self) -> str:
        where = ""
        if self.output is not None and self.partition is not None:
            where = f" y{self.output[0]}_{self.output[1]}, A={{{','.join(self.partition['A'])}}}:"
        return f"<netpoly.Result{where} {self._text()}>"

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td>{m['method']}</td><td>{m.get('kind', '')}</td><td>{_fmt(m.get('value'))}</td>"
                       f"<td>{_html(m.get('how', m.get('note', '')))}</td></tr>" for m in self.methods)
        return (f"<p><b>{_html(self._text())}</b></p><table><tr><th>method</th><th>kind</th><th>value</th>"
                f"<th>how</th></tr>{rows}</table>")

    def _repr_latex_(self) -> str:
        if self.status == "exact":
            return rf"$\mathrm{{sep}} = {self.lower}$ (exact)"
        if self.status == "probabilistic":
            return rf"$\mathrm{{sep}} = {self.lower}$ (probabilistic, $\varepsilon \le {self.eps:.3g}$)"
        hi = str(self.upper) if self.upper is not None else "\\infty"
        return rf"$\mathrm{{sep}} \in [{self.lower}, {hi}]$ (certified)"


def _html(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Results(list):
    """Results of several (output, partition) pairs; .sup / .inf as certified brackets (NB 4.2)."""

    def _extreme(self, f):
        lo = [r.lower for r in self]
        hi = [r.upper for r in self]
        lower = f(x for x in lo if x is not None) if any(x is not None for x in lo) else None
        upper = None if any(x is None for x in hi) else f(hi)
        status = "exact" if lower is not None and lower == upper else "bracket"
        return {"lower": lower, "upper": upper, "status": status}

    @property
    def sup(self) -> dict:
        return self._extreme(max)

    @property
    def inf(self) -> dict:
        if any(r.lower is None for r in self):
            return {"lower": None, "upper": self._extreme(min)["upper"], "status": "bracket"}
        return self._extreme(min)


def seprank(poly, A: Iterable = (), methods=None, seed=None, budget=None, max_memory=None, threads=None) -> Result:
    """Separation rank of a polynomial (a SymPy expression or a netpoly.Poly) for the variables A
    against the rest: ``netpoly.seprank(x0*x2 + x1*x3, A=[x0, x1])``."""
    if isinstance(poly, Poly):
        names = poly.var_names()
        terms = poly._terms
        a_idx = [names.index(str(v)) if not isinstance(v, int) else v for v in A]
        nvars = poly.nvars
    else:
        import sympy
        expr = sympy.expand(sympy.sympify(poly))
        a_set = {sympy.sympify(v) for v in A}
        if any(not isinstance(v, sympy.Symbol) for v in a_set):
            raise InputError(f"A = {sorted(map(str, a_set))}: expected SymPy symbols")
        # A's symbols are variables even where the polynomial does not contain them
        gens = sorted(expr.free_symbols | a_set, key=lambda s: s.sort_key())
        P = sympy.Poly(expr, *gens) if gens else sympy.Poly(expr, sympy.Symbol("x_unused"))
        nvars = len(P.gens)
        a_idx = [i for i, g in enumerate(P.gens) if g in a_set]
        terms = {}
        for e, c in P.terms():
            re, im = c.as_real_imag()
            if not (re.is_Rational and im.is_Rational):
                raise InputError(f"coefficient {c}: netpoly takes rational or Gaussian-rational coefficients")
            re, im = Fraction(int(re.p), int(re.q)), Fraction(int(im.p), int(im.q))
            terms[tuple(e)] = GaussianRational(re, im) if im else re
    re_terms, im_terms, gaussian = [], [], False
    for e, c in terms.items():
        if isinstance(c, GaussianRational):
            gaussian = gaussian or c.im != 0
            re_terms.append((list(e), str(c.re)))
            im_terms.append((list(e), str(c.im)))
        else:
            re_terms.append((list(e), str(Fraction(c))))
    opts = {"methods": ",".join(methods) if isinstance(methods, (list, tuple)) else methods, "seed": seed}
    text = _netpoly.seprank_poly(re_terms, im_terms if gaussian else None, nvars, sorted(a_idx), opts,
                                 _limits(budget, max_memory, threads))
    return Result(_json.loads(text))


# ---------------------------------------------------------------- bounds, tables, claims
class Bound:
    """A bound of the seed papers for a shape: id, kind, value (exact integer) or log3, in_regime."""

    def __init__(self, d: dict):
        self.json = d
        self.id, self.kind, self.source = d["id"], d["kind"], d["source"]
        self.formula, self.condition, self.note = d["formula"], d["condition"], d["note"]
        self.in_regime, self.defined, self.floored = d["in_regime"], d["defined"], d["floored"]
        self.value = int(d["value"]) if d["value"] is not None else None
        self.log3 = float(d["log3"]) if d["log3"] not in ("nan", "") else float("nan")

    @property
    def holds(self) -> bool:
        """Whether the statement's regime condition holds for this shape (the bound then applies)."""
        return self.in_regime

    def __repr__(self) -> str:
        v = f"{self.value:,}" if self.value is not None and len(str(self.value)) <= 24 else f"3^{self.log3:.6g}"
        return f"<netpoly.Bound {self.id!r} ({self.kind}): {v}{'' if self.in_regime else ', out of regime'}>"


def bounds(arch: str, **shape) -> list:
    """Every bound of the library for a shape, as ``netpoly bounds``."""
    return [Bound(d) for d in _json.loads(_netpoly.bounds(dict(shape, arch=arch)))]


class Report:
    """One claim's outcome: verdict ("PASS", "FAIL", ...), counts, notes and the CLI's JSON."""

    def __init__(self, d: dict):
        self.json = d
        self.title = d.get("title")
        self.verdict = d.get("verdict")
        self.passed = self.verdict in ("PASS", "PASS (probabilistic)")
        self.notes = d.get("notes", [])

    def __repr__(self) -> str:
        return f"<netpoly.Report {self.verdict}: {self.title!r}>"


def check(paths, filter: str = "", budget: float = 60, strict: bool = False, max_memory=None, threads=None) -> list:
    """Runs claim files (a path, a directory of *.np, or a list): one Report per claim."""
    if isinstance(paths, (str, _os.PathLike)):
        paths = [paths]
    text, interrupted = _netpoly.check([str(p) for p in paths], filter, float(budget), bool(strict),
                                       _limits(None, max_memory, threads))
    reports = [Report(d) for d in _json.loads(text)]
    if interrupted:
        raise _interrupted(reports, "check")
    return reports


class Rows(list):
    def to_pandas(self):
        import pandas
        return pandas.DataFrame([dict(r) for r in self])


def table(arch, layers=(1,), widths=(2,), heads=(1,), tokens=(2,), degrees=(), residual=False, seeds=1,
          weights="generic", partition="half", methods=None, method_budget=60, max_terms=5e7,
          param_budget=None, max_depth=6, max_width=16, budget=None, max_memory=None, threads=None) -> Rows:
    """Measured separation ranks next to every bound, one row per shape and seed (``netpoly table``).

    ``arch`` may be a list with ``param_budget=[32, 48]``: for each budget, architecture and depth up to
    ``max_depth``, the widest shape within the budget (``netpoly table --param-budget``)."""
    archs = list(arch) if isinstance(arch, (list, tuple)) else [arch]
    def lst(x):
        return [int(v) for v in (x if isinstance(x, (list, tuple, range)) else [x])]
    ms = ",".join(methods) if isinstance(methods, (list, tuple)) else (methods or "default")
    spec = {"arch": archs[0], "layers": lst(layers), "widths": lst(widths), "heads": lst(heads), "tokens": lst(tokens),
            "degrees": lst(degrees), "block_degrees": lst(degrees), "residual": bool(residual), "seeds": int(seeds),
            "options": {"range": 0, "weights": weights, "partition": partition, "methods": ms,
                        "budget": method_budget, "max_terms": float(max_terms)}}
    if param_budget is not None:
        spec.update({"archs": archs, "budgets": [str(b) for b in lst(param_budget)], "max_depth": int(max_depth),
                     "max_width": int(max_width)})
    text, interrupted = _netpoly.table(_json.dumps(spec), _limits(budget, max_memory, threads))
    rows = Rows(_json.loads(text))
    if interrupted:
        raise _interrupted(rows, "table")
    return rows
