"""What netpoly's calls return: each number with how it was obtained (the CLI's JSON underneath)."""

from __future__ import annotations

from fractions import Fraction

from ._api import optional


def _fmt(x) -> str:
    return "-" if x is None else f"{x:,}"


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
        rows = "".join(f"<tr><td>{m['method']}</td><td>{m.get('kind', '')}</td><td>{_fmt(m.get('value'))}</td>"
                       f"<td>{_html(m.get('how', m.get('note', '')))}</td></tr>" for m in self.methods)
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


class Results(list):
    """Results of several (output, partition) pairs; ``.sup`` / ``.inf`` as certified brackets (NB 4.2)."""

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

    def __init__(self, d: dict):
        self.json = d
        self.id, self.kind, self.source = d["id"], d["kind"], d["source"]
        self.formula, self.condition, self.note = d["formula"], d["condition"], d["note"]
        self.in_regime, self.defined, self.floored = d["in_regime"], d["defined"], d["floored"]
        self.value_kind = d.get("value_kind")
        self.value = int(d["value"]) if d["value"] is not None else None
        self.log3 = float(d["log3"]) if d.get("log3") is not None else None

    @property
    def holds(self) -> bool:
        return self.in_regime

    def __repr__(self) -> str:
        if self.value is not None and len(str(self.value)) <= 24:
            v = f"{self.value:,}"
        else:
            v = "undefined" if self.log3 is None else f"3^{self.log3:.6g}"
        return f"<netpoly.Bound {self.id!r} ({self.kind}): {v}{'' if self.in_regime else ', out of regime'}>"


class Report:
    """One claim's outcome: verdict (``"PASS"``, ``"FAIL"``, ...), notes and the CLI's JSON.
    ``str(report)`` (and ``print``) is the text ``netpoly check`` prints for the claim."""

    def __init__(self, d: dict):
        self.json = d
        self.title = d.get("title")
        self.verdict = d.get("verdict")
        self.passed = self.verdict in ("PASS", "PASS (probabilistic)")
        self.notes = d.get("notes", [])
        self.eps = d.get("failure_probability")

    def __repr__(self) -> str:
        return f"<netpoly.Report {self.verdict}: {self.title!r}>"

    def __str__(self) -> str:
        return self.json.get("text", repr(self)).rstrip("\n")


def _number(v):
    """A table cell's value as a number: an exact integer, or None."""
    if isinstance(v, str) and v.lstrip("-").isdigit():
        return int(v)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


class Rows(list):
    """Table rows as dicts of numbers: ``sep_lower``/``sep_upper`` ints, each bound's exact ``value``
    (int or None) and ``log3`` (float or None), ``params`` an int. ``json`` keeps the CLI's row."""

    @staticmethod
    def _row(r: dict) -> dict:
        out = {k: v for k, v in r.items() if k not in ("bounds", "params", "second_draw")}
        out["json"] = r
        out["params"] = _number(r.get("params"))
        sd = r.get("second_draw")
        out["second_draw"] = _number(sd) if _number(sd) is not None else sd
        out["bounds"] = [{"id": b["id"], "kind": b["kind"], "in_regime": b["in_regime"],
                          "violated": b.get("violated", False), "value": _number(b.get("exact")),
                          "log3": b.get("log3")} for b in r.get("bounds", [])]
        return out

    def to_pandas(self):
        """A DataFrame: one row per table row, one column per bound's log3 (pandas needed)."""
        pandas = optional("pandas", "Rows.to_pandas")
        flat = []
        for r in self:
            d = {k: v for k, v in r.items() if k not in ("bounds", "json")}
            for b in r["bounds"]:
                d[b["id"]] = b["value"] if b["value"] is not None else (3 ** b["log3"] if b["log3"] is not None
                                                                        and b["log3"] < 600 else None)
            flat.append(d)
        return pandas.DataFrame(flat)

    def _render(self, fmt: str, title: str, bounds, columns) -> str:
        from . import _netpoly
        import json
        bounds = [bounds] if isinstance(bounds, str) else list(bounds or [])
        columns = [columns] if isinstance(columns, str) else list(columns or [])
        return _netpoly.render_rows(json.dumps([r["json"] for r in self]), fmt, title, ",".join(bounds),
                                    ",".join(columns))

    def to_latex(self, title: str = "netpoly table", bounds=None, columns=None) -> str:
        """The table as LaTeX (booktabs, siunitx), exactly as ``netpoly table --format latex`` renders these
        rows; ``bounds`` chooses the bound columns (``--bounds``), e.g. ``["LV Thm 3", "NB Thm 5.5"]``, and
        ``columns`` the columns before them, in order (``--columns``), e.g. ``["L", "d", "H", "sep"]``."""
        return self._render("latex", title, bounds, columns)

    def to_markdown(self, title: str = "netpoly table", bounds=None, columns=None) -> str:
        """The table as Markdown, as ``netpoly table`` renders these rows (``bounds``, ``columns`` as in
        ``to_latex``)."""
        return self._render("md", title, bounds, columns)
