"""``netpoly.check``: runs claim files, as ``netpoly check``, one Report per claim."""

from __future__ import annotations

import json
import os

from . import _netpoly
from ._api import api, _short, path_arg
from ._netpoly import InputError
from ._progress import interruption, progress_for
from ._results import Report


@api
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
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if not isinstance(paths, (list, tuple)) or not all(isinstance(p, (str, os.PathLike)) for p in paths):
        raise InputError(f"check: paths=: expected a path, a directory or a list of them, got {_short(paths)}")
    paths = [path_arg(p, "check: paths=") for p in paths]
    kw = {k: v for k, v in dict(match=match, budget=budget, max_terms=max_terms, strict=strict,
                                max_memory=max_memory, threads=threads).items() if v is not None}
    text, interrupted = _netpoly.check(paths, kw, progress_for("check", progress))
    reports = [Report(d) for d in json.loads(text)]
    if interrupted:
        raise interruption(reports, "check")
    return reports
