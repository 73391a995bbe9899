"""What netpoly's calls return: each number with how it was obtained (the CLI's JSON underneath)."""

from __future__ import annotations

import math
from fractions import Fraction

from ._api import _short, api, json_data, names_arg, optional, text_arg
from ._netpoly import InputError


def _fmt(x) -> str:
    return "-" if x is None else f"{x:,}"


def _want(ok: bool, where: str, expected: str, got) -> None:
    if not ok:
        raise InputError(f"{where}: expected {expected}, got {_short(got)}")


def _is_count(v) -> bool:
    """A whole number the library writes (a size_t): in [0, 2^64)."""
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**64


def _is_real(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _is_float(v) -> bool:
    """A float, or an int that converts to one."""
    return isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**1000)


def _optional(d: dict, key: str, test, where: str, expected: str) -> None:
    """d[key], when present and not None, passes test (else an InputError naming where and key)."""
    if d.get(key) is not None:
        _want(test(d[key]), f"{where}[{key!r}]", expected, d[key])


def _items(it, name: str, what: str) -> list:
    """The items of a list given to a list type's constructor (a str is not a list of rows)."""
    if isinstance(it, (str, bytes, dict)) or not hasattr(it, "__iter__"):
        raise InputError(f"{name}: expected a list of {what}, got {_short(it)}")
    return list(it)


def _big_int(digits: str) -> int:
    """Decimal digits as an int, whatever their number (int() refuses more than 4,300)."""
    from ._number_text import parse_rational
    return int(parse_rational(digits))


def _html(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Result:
    """One separation rank: certified ends, status, and each method's run (the CLI's JSON).

    Attributes
    ----------
    status : str
        ``"exact"`` (both ends certified and equal), ``"probabilistic"`` (a certified lower end equal to
        sep with probability at least ``1 - eps``) or ``"bracket"`` (certified ends that differ).
    lower, upper : int or None
        The certified ends.
    value : int or None
        The separation rank when the bracket is closed (exactly, or with probability ``1 - eps``).
    eps : float or None
        The failure probability of a probabilistic result, over the black-box's seed.
    prime : int or None
        The black-box's prime (or the first method's that reports one).
    methods : list of dict
        Each method's run: value, kind, how it was obtained, details.
    json : dict
        The CLI's JSON of this result.
    unfinished : bool
        On an interrupted call's ``partial``: the pair that was in flight, with the ends its finished
        methods (and the running one's bound so far) certify.
    quantity : str
        ``"sep of this network"``, or with ``generic=True`` ``"generic sep of this shape"`` (gsep: the
        sep of the layers with every weight an indeterminate; printed as ``gsep``).
    """

    @api
    def __init__(self, d: dict):
        _check_result(d)
        self.json = d
        self.status = d["status"]
        self.lower = d.get("lower", {}).get("value")
        self.upper = d.get("upper", {}).get("value")
        self.methods = d.get("methods") or []
        self.timings = d.get("timings") or {}
        self.eps = d.get("failure_probability")
        self.output = (d["output"]["token"], d["output"]["channel"]) if "output" in d else None
        self.partition = d.get("partition")
        primes = [m["details"]["prime"] for m in self.methods if "prime" in (m.get("details") or {})]
        self.prime = primes[0] if primes else None
        self.how = {m["method"]: m.get("how") or "" for m in self.methods}
        self.quantity = d.get("quantity", "sep of this network")
        self.unfinished = bool(d.get("unfinished", False))  # a pair in flight when interrupted

    @property
    def _name(self) -> str:
        return "gsep" if self.quantity == "generic sep of this shape" else "sep"

    @property
    def value(self):
        return self.lower if self.status in ("exact", "probabilistic") else None

    def _text(self) -> str:
        if self.status == "exact":
            return f"{self._name} = {_fmt(self.lower)} (exact)"
        if self.status == "probabilistic":
            return (f"{self._name} = {_fmt(self.lower)} (probabilistic: certified >= {_fmt(self.lower)}, equal with "
                    f"probability >= 1 - {self.eps:.3g}; certified <= {_fmt(self.upper)})")
        return f"{self._name} in [{_fmt(self.lower)}, {_fmt(self.upper)}] (certified bracket)"

    def __repr__(self) -> str:
        where = ""
        if self.output is not None and self.partition is not None:
            where = f" y{self.output[0]}_{self.output[1]}, A={{{','.join(self.partition['A'])}}}:"
        return f"<netpoly.Result{where} {self._text()}>"

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td>{_html(m['method'])}</td><td>{_html(m.get('kind') or '')}</td>"
                       f"<td>{_fmt(m.get('value'))}</td>"
                       f"<td>{_html(m.get('how') or m.get('note') or '')}</td></tr>" for m in self.methods)
        return (f"<p><b>{_html(self._text())}</b></p><table><tr><th>method</th><th>kind</th><th>value</th>"
                f"<th>how</th></tr>{rows}</table>")

    def _repr_latex_(self) -> str:
        n = self._name
        if self.status == "exact":
            return rf"$\mathrm{{{n}}} = {self.lower}$ (exact)"
        if self.status == "probabilistic":
            return rf"$\mathrm{{{n}}} = {self.lower}$ (probabilistic, $\varepsilon \le {self.eps:.3g}$)"
        hi = str(self.upper) if self.upper is not None else "\\infty"
        return rf"$\mathrm{{{n}}} \in [{self.lower}, {hi}]$ (certified)"


def _check_result(d) -> None:
    """The JSON of a result as netpoly writes it (``Result.json``, ``netpoly seprank --json``): the fields
    a Result reads, each of its type, else an InputError naming the field."""
    w = "Result: d="
    _want(isinstance(d, dict), w, "the JSON of a result (a dict, as netpoly seprank --json writes)", d)
    _want(d.get("status") in ("exact", "probabilistic", "bracket", "error"), f"{w}['status']",
          "'exact', 'probabilistic', 'bracket' or 'error'", d.get("status"))
    for end in ("lower", "upper"):
        if end in d:
            _want(isinstance(d[end], dict), f"{w}[{end!r}]", "a dict with the end's 'value'", d[end])
            _optional(d[end], "value", _is_count, f"{w}[{end!r}]", "a whole number in [0, 2^64) or None")
    if d["status"] == "probabilistic":
        _want(_is_real(d.get("failure_probability")), f"{w}['failure_probability']",
              "a number (a probabilistic result's failure probability)", d.get("failure_probability"))
    _optional(d, "failure_probability", _is_real, w, "a number or None")
    if "output" in d:
        o = d["output"]
        _want(isinstance(o, dict) and _is_count(o.get("token")) and _is_count(o.get("channel")), f"{w}['output']",
              "{'token': int, 'channel': int}", o)
    _optional(d, "partition", lambda p: isinstance(p, dict) and isinstance(p.get("A"), list) and
              all(isinstance(x, str) for x in p["A"]), w, "{'A': [variable names], ...}")
    _optional(d, "timings", lambda t: isinstance(t, dict), w, "a dict")
    _optional(d, "quantity", lambda q: isinstance(q, str), w, "a str")
    _optional(d, "methods", lambda m: isinstance(m, list), w, "a list of each method's run")
    for i, m in enumerate(d.get("methods") or []):
        at = f"{w}['methods'][{i}]"
        _want(isinstance(m, dict) and isinstance(m.get("method"), str), at, "a dict with the 'method' (a str)", m)
        _optional(m, "details", lambda x: isinstance(x, dict), at, "a dict")
        for k in ("how", "kind", "note"):
            _optional(m, k, lambda x: isinstance(x, str), at, "a str")
        _optional(m, "value", _is_count, at, "a whole number in [0, 2^64) or None")


class Results(list):
    """Results of several (output, partition) pairs; ``.sup`` / ``.inf`` as certified brackets (NB 4.2)."""

    @api
    def __init__(self, results=()):
        super().__init__(_items(results, "Results", "netpoly.Result objects"))

    def _extreme(self, f):
        for i, r in enumerate(self):
            _want(isinstance(r, Result), f"Results[{i}]", "a netpoly.Result", r)
        if not self:
            raise InputError(f"Results.{'sup' if f is max else 'inf'}: no results (of no pair there is no extreme)")
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
        self._extreme(min)  # each a Result
        if any(r.lower is None for r in self):
            return {"lower": None, "upper": self._extreme(min)["upper"], "status": "bracket"}
        return self._extreme(min)


class Bound:
    """A bound of the seed papers for a shape (the JSON of ``netpoly bounds --json``).

    Attributes
    ----------
    id, kind, source, formula, condition, note : str
    value : int or None
        The exact value when it is an integer of at most 10,000 digits.
    log3 : float or None
        Its base-3 logarithm (None when undefined).
    value_kind : str
        ``"exact"`` or ``"log3"``: which of the two the paper's formula gives here.
    in_regime : bool
        Whether the statement's regime condition holds for this shape.
    """

    @api
    def __init__(self, d: dict):
        w = "Bound: d="
        _want(isinstance(d, dict), w, "the JSON of a bound (a dict, as netpoly bounds --json writes)", d)
        for k in ("id", "kind", "source", "formula", "condition", "note"):
            _want(isinstance(d.get(k), str), f"{w}[{k!r}]", "a str", d.get(k))
        for k in ("in_regime", "defined", "floored"):
            _want(isinstance(d.get(k), bool), f"{w}[{k!r}]", "True or False", d.get(k))
        _optional(d, "value_kind", lambda x: isinstance(x, str), w, "a str or None")
        v = d.get("value")
        ok = v is None or (isinstance(v, int) and not isinstance(v, bool)) or \
            (isinstance(v, str) and v.lstrip("-").isdigit() and v.isascii() and len(v) <= 10_001)
        _want(ok, f"{w}['value']", "an integer (or its decimal digits, at most 10,000) or None", v)
        lg = d.get("log3")
        ok = lg is None or _is_float(lg) or \
            (isinstance(lg, str) and lg.strip().lower() in ("inf", "-inf", "nan"))
        _want(ok, f"{w}['log3']", "a number, 'inf', '-inf' or None", lg)
        self.json = d
        self.id, self.kind, self.source = d["id"], d["kind"], d["source"]
        self.formula, self.condition, self.note = d["formula"], d["condition"], d["note"]
        self.in_regime, self.defined, self.floored = d["in_regime"], d["defined"], d["floored"]
        self.value_kind = d.get("value_kind")
        self.value = _big_int(v) if isinstance(v, str) else v
        self.log3 = float(lg) if lg is not None else None

    @property
    def holds(self) -> bool:
        return self.in_regime

    def __repr__(self) -> str:
        if self.value is not None and abs(self.value) < 10**24:
            v = f"{self.value:,}"
        else:
            v = "undefined" if self.log3 is None else f"3^{self.log3:.6g}"
        return f"<netpoly.Bound {self.id!r} ({self.kind}): {v}{'' if self.in_regime else ', out of regime'}>"


class Report:
    """One claim's outcome: verdict (``"PASS"``, ``"FAIL"``, ...), notes and the CLI's JSON.
    ``str(report)`` (and ``print``) is the text ``netpoly check`` prints for the claim."""

    @api
    def __init__(self, d: dict):
        w = "Report: d="
        _want(isinstance(d, dict), w, "the JSON of a claim's outcome (a dict, as netpoly check --json writes)", d)
        for k in ("title", "verdict", "text"):
            _optional(d, k, lambda x: isinstance(x, str), w, "a str or None")
        _optional(d, "notes", lambda x: isinstance(x, list), w, "a list of notes")
        _optional(d, "failure_probability", _is_real, w, "a number or None")
        self.json = d
        self.title = d.get("title")
        self.verdict = d.get("verdict")
        self.passed = self.verdict in ("PASS", "PASS (probabilistic)")
        self.notes = d.get("notes") or []
        self.eps = d.get("failure_probability")

    def __repr__(self) -> str:
        return f"<netpoly.Report {self.verdict}: {self.title!r}>"

    def __str__(self) -> str:
        return (self.json.get("text") or repr(self)).rstrip("\n")


def _number(v):
    """A table cell's value as a number: an exact integer, or None."""
    if isinstance(v, str) and v.lstrip("-").isdigit():
        return int(v)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _log3(v):
    """A bound's log3 as a float (the JSON writes an infinite one as "inf"), or None."""
    if isinstance(v, str) and v.strip().lower() in ("inf", "-inf"):
        return float(v)
    return float(v) if _is_real(v) else None


def _n(x) -> str:
    """A count with thousands separators; anything else as it is."""
    return f"{x:,}" if isinstance(x, int) and not isinstance(x, bool) else str(x)


_RELATION = {"upper": "<=", "lower": ">=", "asymptotic order": "~"}


class Row(dict):
    """One row of ``netpoly.table``: a dict of numbers (``config``, ``key``, ``lower``, ``upper``,
    ``status``, ``params``, ``second_draw``, ``bounds`` with each bound's exact ``value`` and ``log3``),
    with the CLI's row as ``row["json"]``. It prints as one line: the shape, the sep bracket with its
    status, the second draw and the bounds in regime (``row["bounds"]`` has them all)."""

    def _sep(self) -> str:
        lo, hi, st = self.get("lower"), self.get("upper"), self.get("status")
        if st == "exact":
            return f"sep = {_n(lo)} (exact)"
        if st == "probabilistic":
            return f"sep = {_n(lo)} (probabilistic; certified in [{_n(lo)}, {_n(hi)}])"
        if st == "error":
            return "sep: error"
        return f"sep in [{_n(lo or 0)}, {'inf' if hi is None else _n(hi)}] ({st})"

    def _bounds(self) -> str:
        cells = []
        for b in self.get("bounds") or []:
            if not isinstance(b, dict) or not b.get("in_regime"):
                continue
            v, lg = b.get("value"), _log3(b.get("log3"))
            text = _n(v) if isinstance(v, int) else "undefined" if lg is None else f"3^{lg:.6g}"
            cells.append(f"{b.get('id')} {_RELATION.get(b.get('kind'), '=')} {text}"
                         f"{' VIOLATED' if b.get('violated') else ''}")
        return "; bounds in regime: " + ", ".join(cells) if cells else ""

    def __repr__(self) -> str:
        try:
            params = f", {_n(self['params'])} params" if self.get("params") is not None else ""
            second = self.get("second_draw")
            second = f", 2nd draw {_n(second)}" if second not in (None, "") else ""
            degenerate = f", degenerate: {self['degenerate']}" if self.get("degenerate") else ""
            return f"<netpoly.Row {self.get('key', '?')}{params}: {self._sep()}{second}{degenerate}{self._bounds()}>"
        except Exception:  # noqa: BLE001 - a row edited into something else still prints, as the dict it is
            return _short(dict(self))

    def _repr_pretty_(self, p, cycle) -> None:  # IPython and Jupyter: the same line, not the dict
        p.text(repr(self))


def _title(rows) -> str:
    """The title ``netpoly table`` gives these rows, from the sweep each row records (the library's
    rows_title, as ``--merge`` titles a union of sweeps): "netpoly table: attention, partition half, ...".
    Rows of sweeps that ``--merge`` would not join (or rows without their sweep) get "netpoly table"."""
    from . import _netpoly
    try:
        return _netpoly.rows_title(rows._rows_json("Rows"))
    except (InputError, ValueError):
        return "netpoly table"  # a row not as netpoly writes it: the renderer refuses it, naming it


class _CliTitle(str):
    """The default title of Rows.to_latex and to_markdown: the one the CLI gives these rows."""

    def __repr__(self) -> str:
        return "<the CLI's title>"


_CLI_TITLE = _CliTitle()


class Rows(list):
    """Table rows (``netpoly.Row``: dicts of numbers): ``lower``/``upper`` ints, each bound's exact
    ``value`` (int or None) and ``log3`` (float or None), ``params`` an int. ``json`` keeps the CLI's
    row."""

    @api
    def __init__(self, rows=()):
        super().__init__(_items(rows, "Rows", "rows (dicts, as netpoly.table returns them)"))

    @staticmethod
    def _row(r: dict) -> Row:
        out = Row((k, v) for k, v in r.items() if k not in ("bounds", "params", "second_draw"))
        out["json"] = r
        out["params"] = _number(r.get("params"))
        sd = r.get("second_draw")
        out["second_draw"] = _number(sd) if _number(sd) is not None else sd
        out["bounds"] = [{"id": b["id"], "kind": b["kind"], "in_regime": b["in_regime"],
                          "violated": b.get("violated", False), "value": _number(b.get("exact")),
                          "log3": b.get("log3")} for b in r.get("bounds", [])]
        return out

    def _rows_json(self, name: str) -> str:
        """The rows' JSON (the CLI's rows) as one JSON text, each row checked to be one of netpoly.table's
        (a dict with its ``json``) and plain JSON data."""
        parts = []
        for i, r in enumerate(self):
            if not isinstance(r, dict) or not isinstance(r.get("json"), dict):
                raise InputError(f"{name}: row {i}: expected a row of netpoly.table (a dict with the CLI's row "
                                 f"as its 'json'), got {_short(r)}")
            parts.append(json_data(r["json"], f"{name}: row {i}: its json"))
        return "[" + ",".join(parts) + "]"

    @api
    def to_pandas(self):
        """A DataFrame: one row per table row, one column per bound's log3 (pandas needed)."""
        pandas = optional("pandas", "Rows.to_pandas")
        flat = []
        for i, r in enumerate(self):
            at = f"Rows.to_pandas: row {i}"
            _want(isinstance(r, dict) and isinstance(r.get("bounds"), list), at,
                  "a row of netpoly.table (a dict with its 'bounds')", r)
            d = {k: v for k, v in r.items() if k not in ("bounds", "json")}
            for j, b in enumerate(r["bounds"]):
                _want(isinstance(b, dict) and isinstance(b.get("id"), str), f"{at}['bounds'][{j}]",
                      "a dict with the bound's 'id'", b)
                v, lg = b.get("value"), b.get("log3")
                _want(v is None or (isinstance(v, int) and not isinstance(v, bool)), f"{at}['bounds'][{j}]['value']",
                      "an int or None", v)
                _want(lg is None or _is_float(lg),
                      f"{at}['bounds'][{j}]['log3']", "a number or None", lg)
                d[b["id"]] = v if v is not None else (3 ** lg if lg is not None and lg < 600 else None)
            flat.append(d)
        return pandas.DataFrame(flat)

    def _render(self, name: str, fmt: str, title, bounds, columns) -> str:
        from . import _netpoly
        rows_json = self._rows_json(name)
        title = _title(self) if title is _CLI_TITLE else text_arg(title, f"{name}: title=:")
        bound_ids = names_arg(bounds, f"{name}: bounds=:", "bound")
        column_names = names_arg(columns, f"{name}: columns=:", "column")
        return _netpoly.render_rows(rows_json, fmt, title, ",".join(bound_ids), ",".join(column_names))

    @api
    def to_latex(self, title: str = _CLI_TITLE, bounds=None, columns=None) -> str:
        """The table as LaTeX (booktabs, siunitx), exactly as ``netpoly table --format latex`` renders these
        rows, titled as the CLI titles them (the sweep's architecture, partition, output and weights;
        ``title=""``: no title); ``bounds`` chooses the bound columns (``--bounds``), e.g.
        ``["LV Thm 3", "NB Thm 5.5"]``, and ``columns`` the columns before them, in order (``--columns``),
        e.g. ``["L", "d", "H", "sep"]``. Each name is one column: a name with a comma, an empty name or an
        empty list is an InputError (None gives the default columns)."""
        return self._render("Rows.to_latex", "latex", title, bounds, columns)

    @api
    def to_markdown(self, title: str = _CLI_TITLE, bounds=None, columns=None) -> str:
        """The table as Markdown, as ``netpoly table`` renders these rows, title included (``title``,
        ``bounds``, ``columns`` as in ``to_latex``)."""
        return self._render("Rows.to_markdown", "md", title, bounds, columns)

    @api
    def plot(self, bounds=None, ax=None):
        """The plot of ``netpoly table --plot`` as a matplotlib Figure (matplotlib needed): log3 of the
        certified ends against depth (or width, or parameters for equal budgets), one series per shape,
        with the bound curves of the first seed's rows; no title. ``bounds=None`` draws the upper and
        lower bounds in regime (and above 1) for some row, few enough that at most six styles are told
        apart; ``bounds="all"`` every bound; a list of ids those, in that order (``--bounds``).
        ``ax``: an Axes to draw into (its figure is returned)."""
        from ._plot import plot_rows
        return plot_rows(self, bounds, ax)
