"""Networks: ``Network`` (a model with exact weights: expand, seprank, save) and its ``Layer``s, and the
ways to get one from netpoly: ``make`` (a preset), ``load`` (a model file) and ``from_json``."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Iterable

from . import _netpoly
from ._api import api, _short, entry, path_arg
from ._netpoly import InputError
from ._number_text import parse_rational
from ._options import known, with_options
from ._poly import Poly
from ._progress import interruption, progress_for
from ._results import Result, Results


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

    @api
    def __init__(self, d: dict):
        _layer_dict(d, "Layer: d=")
        self.type = d["type"]
        self.residual = bool(d.get("residual", False))
        self.fields = {k: _exact_tree(k, v, f"Layer: d=[{k!r}]") for k, v in d.items() if k not in ("type", "residual")}

    def __getitem__(self, k):
        return self.fields[k]

    def __repr__(self) -> str:
        extra = ""
        if self.type == "attention":
            extra = f", {len(self.fields.get('heads') or [])} head(s)"
        elif self.type == "branches":
            extra = f", {len(self.fields.get('branches') or [])} branch(es)"
        return f"<netpoly.Layer {self.type}{', residual' if self.residual else ''}{extra}>"


def _layer_dict(d, where: str) -> None:
    if not isinstance(d, dict) or not isinstance(d.get("type"), str):
        raise InputError(f"{where}: expected a layer as the model format writes it (a dict with its 'type'), "
                         f"got {_short(d)}")
    if not isinstance(d.get("residual", False), bool):
        raise InputError(f"{where}['residual']: expected True or False, got {_short(d['residual'])}")


_RATIONAL = re.compile(r"[+-]?[0-9]+(/[0-9]+)?", re.ASCII)
_GAUSS = re.compile(r"(?:([+-]?[0-9]+(?:/[0-9]+)?)(?=[+-]))?([+-]?(?:[0-9]+(?:/[0-9]+)?)?)i", re.ASCII)


def _number(x, where: str):
    """A weight of the model format (an integer, "p/q" or "a+bi") as a Fraction or GaussianRational."""
    if isinstance(x, int) and not isinstance(x, bool):
        return Fraction(x)
    if not isinstance(x, str):
        return x
    try:
        if x.endswith("i"):
            from ._poly import GaussianRational as G
            m = _GAUSS.fullmatch(x)
            if not m:
                raise ValueError
            im = {"": "1", "+": "1", "-": "-1"}.get(m.group(2), m.group(2))
            return G(parse_rational(m.group(1) or "0"), parse_rational(im))
        if not _RATIONAL.fullmatch(x):
            raise ValueError
        return parse_rational(x)
    except (ValueError, ZeroDivisionError):
        raise InputError(f"{where}: {_short(x)}: expected a number as the model format writes it (an integer, "
                         "p/q or a+bi)") from None


def _exact_tree(key, v, where: str):
    def items(kind):
        if not isinstance(v, list):
            raise InputError(f"{where}: expected a list of {kind}, got {_short(v)}")
        return v
    if key == "branches":
        out = []
        for i, b in enumerate(items("branches (lists of layers)")):
            if not isinstance(b, list):
                raise InputError(f"{where}[{i}]: expected a list of layers, got {_short(b)}")
            out.append([Layer(l) for l in b])
        return out
    if key in ("heads", "extra"):
        out = []
        for i, h in enumerate(items("dicts")):
            if not isinstance(h, dict):
                raise InputError(f"{where}[{i}]: expected a dict, got {_short(h)}")
            out.append({k: _exact_tree(k, x, f"{where}[{i}][{k!r}]") for k, x in h.items()})
        return out
    if isinstance(v, list):
        return [_exact_tree(key, x, f"{where}[{i}]") for i, x in enumerate(v)]
    return _number(v, where) if key not in ("activation", "perm", "degree") else v


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
        Its parameter count: the weights of its model file (``weights``), or, for a network from
        ``from_torch``, the module's (``sum(p.numel() for p in module.parameters())``: a shared tensor
        once; the model file may hold more entries, the maps the format needs to wire the module's
        operations, such as the identity output map of a head without a projection).
    weights : int
        The number of entries of its model file's matrices and biases.
    degree : float
        The degree bound of its outputs.
    gaussian : bool
        Whether some weight is a Gaussian rational ``a+bi``.
    """

    @api
    def __init__(self, model: _netpoly.Model):
        if not isinstance(model, _netpoly.Model):
            raise InputError(f"Network: model=: expected the library's model (netpoly.make, load, from_json or "
                             f"from_numpy make Networks), got {_short(model)}")
        self._m = model
        self._layers = None
        self._params = None  # the source module's parameter count (from_torch)

    name = property(lambda self: self._m.name)
    tokens = property(lambda self: self._m.tokens)
    width = property(lambda self: self._m.width)
    output_width = property(lambda self: self._m.output_width)
    depth = property(lambda self: self._m.depth)
    params = property(lambda self: self._m.params if self._params is None else self._params)
    weights = property(lambda self: self._m.params)
    degree = property(lambda self: self._m.degree)
    gaussian = property(lambda self: self._m.gaussian)
    output = property(lambda self: self._m.output)

    @property
    def layers(self) -> list:
        if self._layers is None:
            self._layers = [Layer(l) for l in json.loads(self.to_json())["layers"]]
        return self._layers

    @api
    def __call__(self, X, prime=None):
        """The network's output at X, exactly: ``net(X)`` for one input (``tokens x width``: a nested list, a
        NumPy array or a torch tensor) gives the ``tokens x output_width`` output; a batch (``B x tokens x
        width``) gives ``B`` of them. Every entry is taken as the number it is (a float is its dyadic
        rational; Fractions, integers, complex numbers and GaussianRationals exactly); the values are
        Fractions, or GaussianRationals when a weight or an entry is Gaussian: exact, never rounded.
        ``prime=p``: the values mod the prime ``p`` as integers (a Gaussian model or entry needs
        ``p = 1 mod 4``; ``i`` maps to FLINT's square root of -1 mod p, as ``netpoly eval --modulus``
        reports it). A NumPy array or tensor gives a NumPy object array, lists give lists. The command
        line's ``netpoly eval MODEL --points FILE`` computes the same."""
        from ._evaluate import evaluate
        return evaluate(self, X, prime)

    def canonical(self) -> "Network":
        """The same function in canonical form (docs/model-format.md, "Canonical form"): every part that an
        attention, mixing, product or residual layer expresses written as that layer (affine maps composed
        and folded into the matrices around them, heads and MLPs of a sum merged, ``x + f(x)`` a residual
        flag, zero biases dropped). The analyses of one network read this form whatever the model's source;
        ``from_torch`` returns it."""
        c = Network(self._m.canonical())
        c._params = self._params
        c.rounding = getattr(self, "rounding", None)
        return c

    def to_json(self) -> str:
        """The model file's text (netpoly-model/1)."""
        return self._m.to_json()

    @api
    def save(self, path) -> None:
        """Writes the model file as the CLI writes its outputs: a file replaced atomically (a temporary
        beside it, then a rename), a symbolic link written through (the file it names is replaced, the
        link stays), a FIFO or a device written directly."""
        _netpoly.write_output(path_arg(path, "save"), self.to_json())

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
            return [entry(o, "outputs=") for o in outputs]
        if output is None:
            output = self.output or (0, 0)
        return [entry(output, "output=")]

    @api
    def jacobian_rank(self, output=None, outputs=None, *, seed=None):
        """The dimension of this shape's function family: the polynomials its ``output`` (default: the
        model's output; ``outputs``: several, or ``"all"``, together) takes as every weight varies, as
        ``netpoly jacobian`` gives it: a ``netpoly.Dimension`` with certified ends ``lower``/``upper``
        and ``status`` "exact" or "probabilistic" (``eps``). ``seed`` reproduces a run."""
        from ._jacobian import jacobian_rank
        return jacobian_rank(self, self._outputs(output, outputs), seed)

    @api
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
        raw = _netpoly.expand(self._m, outs, kw, progress_for("expand", progress))
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
        partitions : list of str, "all-balanced" or "all-balanced-entries", optional
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
        known(options)
        many = partitions is not None or outputs is not None
        if partitions in ("all-balanced", "all-balanced-entries"):
            parts = [partitions]
        elif partitions is not None:
            if isinstance(partitions, (str, bytes)):
                raise InputError(f"partitions=: expected a list of partitions, 'all-balanced' or 'all-balanced-entries', got {_short(partitions)}")
            parts = [str(p) for p in partitions]
        else:
            if not isinstance(partition, str):
                raise InputError(f"partition=: expected a str such as 'half' or 'A=0,1', got {_short(partition)}")
            parts = [partition]
        outs = self._outputs(output, outputs)
        text, interrupted = _netpoly.seprank(self._m, outs, parts, options, progress_for("seprank", progress))
        rs = Results(Result(d) for d in json.loads(text))
        if interrupted:
            raise interruption(rs, "seprank")
        return rs if many else rs[0]


Network.seprank = api(with_options(Network.seprank, ["partition", "partitions", "output", "outputs", "progress"]))


@api
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


@api
def load(path) -> Network:
    """Reads and validates a model file (errors name the file and JSON path)."""
    return Network(_netpoly.load(path_arg(path, "load")))


@api
def from_json(text: str, source: str = "<json>") -> Network:
    """A model from its JSON text (validated like a file)."""
    if not isinstance(text, str):
        raise InputError("from_json: expected the model's JSON text")
    return Network(_netpoly.parse(text, source))
