"""The analysis options every front end takes, from netpoly's one option table (src/analysis/options.cpp):
``netpoly.options()``, and the table's keywords written into the signatures and docstrings of the calls
that take them."""

from __future__ import annotations

import inspect
from typing import Sequence

from . import _netpoly
from ._netpoly import InputError


def options() -> list:
    """The analysis options every front end takes, from netpoly's one option table: a list of dicts
    with ``name`` (the keyword), ``type``, ``default``, ``help`` and ``claims`` (whether claims take it
    too). ``netpoly seprank --help`` lists the same options as flags."""
    return [dict(o) for o in _netpoly.options()]


OPTIONS = {o["name"]: o for o in _netpoly.options()}


def _options_doc(indent: str, skip: Sequence[str]) -> str:
    lines = []
    for o in OPTIONS.values():
        if o["name"] in skip:
            continue
        lines.append(f"{indent}{o['name']} : {o['type']}, optional")
        lines.append(f"{indent}    {o['help']} (default: {o['default']}).")
    return "\n".join(lines)


def with_options(fn, fixed: Sequence[str]):
    """Gives ``fn`` (which takes ``**options``) the option table's keywords in its signature and docstring."""
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.kind != p.VAR_KEYWORD]
    params += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None)
               for name in OPTIONS if name not in fixed]
    fn.__signature__ = sig.replace(parameters=params)
    doc = (fn.__doc__ or "").split("\n")
    for k, line in enumerate(doc):
        if line.strip() == "{options}":
            doc[k] = _options_doc(line[:len(line) - len(line.lstrip())], fixed)
    fn.__doc__ = "\n".join(doc)
    return fn


def known(options: dict) -> None:
    """Misspelled keywords are refused up front (the C++ side checks the values)."""
    for k in options:
        if k not in OPTIONS:
            raise InputError(f"unknown keyword '{k}' (expected one of {', '.join(OPTIONS)})")
