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

from __future__ import annotations

import inspect as _inspect
import json as _json
import os as _os
from fractions import Fraction
from typing import Iterable, Mapping, Sequence

from . import _netpoly
from ._netpoly import CheckFailed, Error, InputError, InternalError, LimitError
from ._api import api as _api, _short, is_bool as _is_bool, path_arg as _path_arg
from ._poly import GaussianRational, Poly, from_sympy as _from_sympy, from_text as _from_text
from ._poly import integer_text as _integer_text, rational_text as _rational_text, gauss_text as _gauss_text
from ._poly import parse_rational as _parse_rational
from ._progress import progress_for as _progress_for
from ._results import Bound, Report, Result, Results, Rows

__version__ = _netpoly.__version__
flint_version = _netpoly.flint_version

__all__ = [
    "make", "load", "from_json", "from_numpy", "from_torch", "seprank", "bounds", "table", "check", "options",
    "Network", "Layer", "Poly", "GaussianRational", "Result", "Results", "Bound", "Report", "Rows",
    "Error", "InputError", "LimitError", "CheckFailed", "InternalError", "__version__",
]


def options() -> list:
    """The analysis options every front end takes, from netpoly's one option table: a list of dicts
    with ``name`` (the keyword), ``type``, ``default``, ``help`` and ``claims`` (whether claims take it
    too). ``netpoly seprank --help`` lists the same options as flags."""
    return [dict(o) for o in _netpoly.options()]


_OPTIONS = {o["name"]: o for o in _netpoly.options()}


def _options_doc(indent: str, skip: Sequence[str]) -> str:
    lines = []
    for o in _OPTIONS.values():
        if o["name"] in skip:
            continue
        lines.append(f"{indent}{o['name']} : {o['type']}, optional")
        lines.append(f"{indent}    {o['help']} (default: {o['default']}).")
    return "\n".join(lines)


def _with_options(fn, fixed: Sequence[str]):
    """Gives ``fn`` (which takes ``**options``) the option table's keywords in its signature and docstring."""
    sig = _inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.kind != p.VAR_KEYWORD]
    params += [_inspect.Parameter(name, _inspect.Parameter.KEYWORD_ONLY, default=None)
               for name in _OPTIONS if name not in fixed]
    fn.__signature__ = sig.replace(parameters=params)
    doc = (fn.__doc__ or "").split("\n")
    for k, line in enumerate(doc):
        if line.strip() == "{options}":
            doc[k] = _options_doc(line[:len(line) - len(line.lstrip())], fixed)
    fn.__doc__ = "\n".join(doc)
    return fn


def _known(options: dict) -> None:
    """Misspelled keywords are refused up front (the C++ side checks the values)."""
    for k in options:
        if k not in _OPTIONS:
            raise InputError(f"unknown keyword '{k}' (expected one of {', '.join(_OPTIONS)})")


# ---------------------------------------------------------------- networks
class Layer:
    """One layer of a network, as the model format writes it (``docs/model-format.md``).

    Attributes
    ----------
    type : str
        ``attention``, ``token_mix``, ``channel_mix``, ``product``, ``permute`` or ``branches``.
    residual : bool
    fields : dict
        Its other fields: matrices as lists of rows of exact numbers (Fractions, or GaussianRationals
        for weights ``a+bi``), ``heads`` as a list of dicts, ``branches`` as lists of Layers.
    """

    def __init__(self, d: dict):
        self.type = d["type"]
        self.residual = bool(d.get("residual", False))
        self.fields = {k: _exact_tree(k, v) for k, v in d.items() if k not in ("type", "residual")}

    def __getitem__(self, k):
        return self.fields[k]

    def __repr__(self) -> str:
        extra = ""
        if self.type == "attention":
            extra = f", {len(self.fields['heads'])} head(s)"
        elif self.type == "branches":
            extra = f", {len(self.fields['branches'])} branch(es)"
        return f"<netpoly.Layer {self.type}{', residual' if self.residual else ''}{extra}>"


def _number(x):
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, str) and x.endswith("i"):
        from ._poly import GaussianRational as G
        body = x[:-1]
        k = max(body.rfind("+"), body.rfind("-"))
        re, im = (body[:k], body[k:]) if k > 0 else ("0", body)
        im = {"": "1", "+": "1", "-": "-1"}.get(im, im)
        return G(_parse_rational(re), _parse_rational(im))
    return _parse_rational(x) if isinstance(x, str) else x


def _exact_tree(key, v):
    if key == "branches":
        return [[Layer(l) for l in b] for b in v]
    if key == "heads":
        return [{k: _exact_tree(k, x) for k, x in h.items()} for h in v]
    if key == "extra":
        return [{k: _exact_tree(k, x) for k, x in e.items()} for e in v]
    if isinstance(v, list):
        return [_exact_tree(key, x) for x in v]
    return _number(v) if key not in ("activation", "perm", "degree") else v


class Network:
    """A model (the netpoly-model/1 format): a network with exact weights.

    Attributes
    ----------
    name : str
    tokens, width, output_width : int
        The input is ``tokens x width``; outputs are ``tokens x output_width``.
    layers : list of Layer
    depth : int
        The number of layers.
    params : int
        Its parameter count.
    degree : float
        The degree bound of its outputs.
    gaussian : bool
        Whether some weight is a Gaussian rational ``a+bi``.
    """

    def __init__(self, model: _netpoly.Model):
        self._m = model
        self._layers = None

    name = property(lambda self: self._m.name)
    tokens = property(lambda self: self._m.tokens)
    width = property(lambda self: self._m.width)
    output_width = property(lambda self: self._m.output_width)
    depth = property(lambda self: self._m.depth)
    params = property(lambda self: self._m.params)
    degree = property(lambda self: self._m.degree)
    gaussian = property(lambda self: self._m.gaussian)
    output = property(lambda self: self._m.output)

    @property
    def layers(self) -> list:
        if self._layers is None:
            self._layers = [Layer(l) for l in _json.loads(self.to_json())["layers"]]
        return self._layers

    def to_json(self) -> str:
        """The model file's text (netpoly-model/1)."""
        return self._m.to_json()

    @_api
    def save(self, path) -> None:
        """Writes the model file (atomically: a temporary file, then a rename)."""
        path = _path_arg(path, "save")
        text = self.to_json()
        tmp = path + b".tmp%d" % _os.getpid()
        with open(tmp, "w") as f:
            f.write(text)
        _os.replace(tmp, path)

    def __eq__(self, other) -> bool:
        return isinstance(other, Network) and self._m == other._m

    __hash__ = None

    def __repr__(self) -> str:
        g = ", Gaussian weights" if self.gaussian else ""
        return (f"<netpoly.Network {self.name!r}: N={self.tokens}, d={self.width}, {self.depth} layers, "
                f"{self.params} parameters, degree {self.degree:g}{g}>")

    def _outputs(self, output, outputs):
        if outputs == "all":
            return [(t, c) for t in range(self.tokens) for c in range(self.output_width)]
        if outputs is not None:
            if isinstance(outputs, (str, bytes)) or not isinstance(outputs, Iterable):
                raise InputError(f"outputs=: expected 'all' or a list of (token, channel), got {_short(outputs)}")
            return [_entry(o, "outputs=") for o in outputs]
        if output is None:
            output = self.output or (0, 0)
        return [_entry(output, "output=")]

    @_api
    def expand(self, output=None, outputs=None, *, max_terms=None, budget=None, max_memory=None, threads=None,
               progress=None):
        """The network polynomial of one output entry.

        Parameters
        ----------
        output : (int, int), optional
            The entry (token, channel); the model's output, else (0, 0).
        outputs : list of (int, int) or "all", optional
            Several entries: a list of Polys is returned.
        max_terms, budget, max_memory, threads
            As for ``seprank`` (the option table's checks).
        progress : bool, callable or None
            Progress display (default: on a terminal or in a notebook).

        Returns
        -------
        Poly or list of Poly
        """
        outs = self._outputs(output, outputs)
        kw = {k: v for k, v in dict(max_terms=max_terms, budget=budget, max_memory=max_memory,
                                    threads=threads).items() if v is not None}
        raw = _netpoly.expand(self._m, outs, kw, _progress_for("expand", progress))
        polys = [Poly._from_raw(r, self.tokens, self.width) for r in raw]
        return polys if outputs is not None else polys[0]

    def seprank(self, partition: str = "half", *, partitions=None, output=None, outputs=None, progress=None,
                **options):
        """The separation rank of output entries over partitions, as a certified bracket.

        The same request as ``netpoly seprank`` (the same options, defaults and checks): with neither
        ``budget`` nor ``max_points`` the black-box refines while the bracket is open.

        Parameters
        ----------
        partition : str
            ``"half"``, ``"interleaved"``, ``"A=0,1"`` (tokens) or ``"A=x0_0,x1_1"`` (variables).
        partitions : list of str or "all-balanced", optional
            Several partitions (each unordered pair analysed once); a Results list is returned.
        output, outputs
            As for ``expand``.
        progress : bool, callable or None
            Progress display (default: on a terminal or in a notebook).
        {options}

        Returns
        -------
        Result, or Results (a list with ``.sup`` / ``.inf``) for several outputs or partitions.
        """
        _known(options)
        many = partitions is not None or outputs is not None
        if partitions == "all-balanced":
            parts = ["all-balanced"]
        elif partitions is not None:
            if isinstance(partitions, (str, bytes)):
                raise InputError(f"partitions=: expected a list of partitions or 'all-balanced', got {_short(partitions)}")
            parts = [str(p) for p in partitions]
        else:
            if not isinstance(partition, str):
                raise InputError(f"partition=: expected a str such as 'half' or 'A=0,1', got {_short(partition)}")
            parts = [partition]
        outs = self._outputs(output, outputs)
        text, interrupted = _netpoly.seprank(self._m, outs, parts, options, _progress_for("seprank", progress))
        rs = Results(Result(d) for d in _json.loads(text))
        if interrupted:
            raise _interrupted(rs, "seprank")
        return rs if many else rs[0]


Network.seprank = _api(_with_options(Network.seprank, ["partition", "partitions", "output", "outputs", "progress"]))


def _entry(o, what):
    try:
        t, c = o
        if _is_bool(t) or _is_bool(c):
            raise TypeError
        return (int(_index(t)), int(_index(c)))
    except (TypeError, ValueError):
        raise InputError(f"{what} expected (token, channel), got {_short(o)}") from None


def _index(x):
    import operator
    v = operator.index(x)
    if v < 0 or v >= 2**63:  # beyond any size or index netpoly takes (and beyond int-to-text limits)
        raise ValueError
    return v


def _interrupted(done: list, what: str):
    flight = sum(1 for r in done if getattr(r, "unfinished", False))
    also = f", {flight} in flight with the ends found so far" if flight else ""
    e = KeyboardInterrupt(f"netpoly: {what} interrupted; {len(done) - flight} finished{also} (on .partial)")
    e.partial = done
    return e


@_api
def make(arch: str, **shape) -> Network:
    """A preset model, as ``netpoly make ARCH``.

    Parameters
    ----------
    arch : str
        ``attention``, ``mixer``, ``mlp``, ``product`` or ``lv-witness``.
    **shape
        ``layers``, ``width``, ``heads`` (attention), ``tokens``, ``degree`` (attention, product),
        ``residual``, ``permuted`` and ``perm_sum`` (mixer, mlp), ``seed``, ``weights``
        (``"small"`` | ``"wide"`` | ``"generic"``), ``weight_range`` (the CLI's ``--range``);
        ``lv-witness`` takes ``layers``, ``width``, ``heads``, ``tokens``, ``omega``, ``rational_v``,
        ``printed_last``. An unknown keyword is an InputError.
    """
    if not isinstance(arch, str):
        raise InputError(f"make: expected an architecture name, got {_short(arch)}")
    return Network(_netpoly.make(arch, shape))


@_api
def load(path) -> Network:
    """Reads and validates a model file (errors name the file and JSON path)."""
    return Network(_netpoly.load(_path_arg(path, "load")))


@_api
def from_json(text: str, source: str = "<json>") -> Network:
    """A model from its JSON text (validated like a file)."""
    if not isinstance(text, str):
        raise InputError("from_json: expected the model's JSON text")
    return Network(_netpoly.parse(text, source))


def _exact_text(x, where: str) -> str | int:
    """One weight as the model format writes it, exactly (NaN and infinities refused)."""
    if isinstance(x, str):
        return x
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return x if abs(x) < 2**53 else _integer_text(x)
    if isinstance(x, complex) or (hasattr(x, "dtype") and getattr(x.dtype, "kind", "") == "c"):
        z = complex(x)
        for part in (z.real, z.imag):
            if part != part or part in (float("inf"), float("-inf")):
                raise InputError(f"{where}: {z} is not a number netpoly can take exactly")
        return _gauss_text(Fraction(z.real), Fraction(z.imag))
    if hasattr(x, "dtype") and getattr(x.dtype, "kind", "") in "iub":
        return _exact_text(int(x), where)
    if isinstance(x, GaussianRational):
        return str(x)
    try:
        f = float(x) if not hasattr(x, "numerator") else None
    except (TypeError, ValueError):
        raise InputError(f"{where}: expected a number, got {type(x).__name__}") from None
    if f is not None and (f != f or f in (float("inf"), float("-inf"))):
        raise InputError(f"{where}: {f} is not a number netpoly can take exactly")
    try:
        q = Fraction(x) if f is None else Fraction(f)
    except (TypeError, ValueError):
        raise InputError(f"{where}: expected a number, got {_short(x)}") from None
    return _rational_text(q)


def _matrix(a, where: str) -> list:
    try:
        rows = a.tolist() if hasattr(a, "tolist") and not (hasattr(a, "dtype") and a.dtype.kind == "O") \
            else [list(r) for r in a]
        if not isinstance(rows, list) or any(isinstance(r, (str, bytes)) for r in rows):
            raise TypeError
        rows = [list(r) for r in rows]
    except TypeError:
        raise InputError(f"{where}: expected a matrix (a list of rows of numbers), got {_short(a)}") from None
    return [[_exact_text(x, f"{where}[{i}][{j}]") for j, x in enumerate(r)] for i, r in enumerate(rows)]


_MATRICES = ("W", "W2", "Q", "K", "V", "O", "C")
_VECTORS = ("b", "b2", "bQ", "bK", "bV", "bO")  # biases (docs/model-format.md)


def _vector(a, where: str) -> list:
    try:
        xs = a.tolist() if hasattr(a, "tolist") else a
        if not isinstance(xs, (list, tuple)):
            raise TypeError
    except TypeError:
        raise InputError(f"{where}: expected a vector (a list of numbers), got {_short(a)}") from None
    return [_exact_text(x, f"{where}[{i}]") for i, x in enumerate(xs)]


def _head(h: dict, at: str) -> dict:
    out = {}
    for k, v in h.items():
        if k in _MATRICES:
            out[k] = _matrix(v, f"{at}.{k}")
        elif k in _VECTORS:
            out[k] = _vector(v, f"{at}.{k}")
        elif k == "extra":
            out[k] = [_head(e, f"{at}.extra[{j}]") for j, e in enumerate(v)]
        else:
            out[k] = v
    return out


def _layers(layers: Sequence[dict], where: str = "layers") -> list:
    out = []
    if isinstance(layers, (str, bytes, Mapping)) or not hasattr(layers, "__iter__"):
        raise InputError(f"{where}: expected a list of layers (dicts), got {_short(layers)}")
    for n, layer in enumerate(layers):
        if not isinstance(layer, Mapping):
            raise InputError(f"{where}[{n}]: expected a layer (a dict with a 'type'), got {_short(layer)}")
        d = {}
        at = f"{where}[{n}]"
        for k, v in layer.items():
            if k in _MATRICES:
                d[k] = _matrix(v, f"{at}.{k}")
            elif k in _VECTORS:
                d[k] = _vector(v, f"{at}.{k}")
            elif k == "Ws":
                d[k] = [_matrix(w, f"{at}.Ws[{i}]") for i, w in enumerate(v)]
            elif k == "bs":
                d[k] = [_vector(b, f"{at}.bs[{i}]") for i, b in enumerate(v)]
            elif k == "heads":
                d[k] = [_head(h, f"{at}.heads[{i}]") for i, h in enumerate(v)]
            elif k == "branches":
                d[k] = [_layers(b, f"{at}.branches[{i}]") for i, b in enumerate(v)]
            else:
                d[k] = v
        out.append(d)
    return out


@_api
def from_numpy(layers: Sequence[dict], tokens: int, width: int, name: str = "from-numpy", output=(0, 0)) -> Network:
    """A model from layers written as in the model format, with NumPy arrays (integer, float or object
    arrays of Fractions) or nested lists in place of the matrices.

    Every weight is taken exactly: an integer as itself, a Fraction as itself, a float as the dyadic
    rational it is; NaN and infinities are refused (InputError naming the weight).
    """
    t, w = _entry((tokens, width), "tokens/width:")
    o = _entry(output, "output=")
    doc = {"format": "netpoly-model/1", "name": str(name), "input": {"tokens": t, "width": w},
           "layers": _layers(layers), "output": {"token": o[0], "channel": o[1]}}
    return from_json(_json.dumps(doc), str(name))


@_api
def from_torch(module, *args, **kwargs) -> Network:
    """``netpoly.torch.from_torch``: the Network a PyTorch module computes, its weights taken exactly.
    Imports torch (only here)."""
    from .torch import from_torch as f
    return f(module, *args, **kwargs)


# ---------------------------------------------------------------- polynomials
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
    _known(options)
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
        terms, names = _from_text(poly, wanted, max_terms)
        idx, nvars = [names.index(v) for v in wanted], len(names)
    else:
        terms, gens = _from_sympy(poly, side_a, max_terms)
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
            re_terms.append((list(e), _rational_text(c.re)))
            im_terms.append((list(e), _rational_text(c.im)))
        else:
            re_terms.append((list(e), _rational_text(Fraction(c))))
            im_terms.append((list(e), "0"))
    text = _netpoly.seprank_poly(re_terms, im_terms if gaussian else None, nvars, sorted(set(idx)), options,
                                 _progress_for("seprank", progress))
    return Result(_json.loads(text))


seprank = _api(_with_options(seprank, ["progress"]))


# ---------------------------------------------------------------- bounds, tables, claims
@_api
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
    return [Bound(d) for d in _json.loads(_netpoly.bounds(arch, shape))["bounds"]]


@_api
def check(paths, *, match: str = "", budget=None, max_terms=None, strict: bool = False, max_memory=None,
          threads=None, progress=None) -> list:
    """Runs claim files (a path, a directory of ``*.np``, or a list): one Report per claim.

    Parameters
    ----------
    paths : str, path or list
    match : str
        Only claims whose title contains this (the CLI's ``--filter``).
    budget, max_terms : optional
        Seconds per rank method (default 60) and the expansion limit, as ``netpoly check``.
    strict : bool
        A probabilistic PASS does not count as passed.
    """
    if isinstance(paths, (str, _os.PathLike)):
        paths = [paths]
    if not isinstance(paths, (list, tuple)) or not all(isinstance(p, (str, _os.PathLike)) for p in paths):
        raise InputError(f"check: paths=: expected a path, a directory or a list of them, got {_short(paths)}")
    paths = [_path_arg(p, "check: paths=") for p in paths]
    kw = {k: v for k, v in dict(match=match, budget=budget, max_terms=max_terms, strict=strict,
                                max_memory=max_memory, threads=threads).items() if v is not None}
    text, interrupted = _netpoly.check(paths, kw, _progress_for("check", progress))
    reports = [Report(d) for d in _json.loads(text)]
    if interrupted:
        raise _interrupted(reports, "check")
    return reports


@_api
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
        dicts of numbers (``lower``, ``upper``, ``params``, each bound's ``value`` and ``log3``), with
        ``.to_latex()``, ``.to_markdown()`` and ``.to_pandas()``.
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
                                       _progress_for("table", progress))
    rows = Rows(Rows._row(r) for r in _json.loads(text))
    if interrupted:
        raise _interrupted(rows, "table")
    return rows
