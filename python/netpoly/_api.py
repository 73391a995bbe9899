"""The one boundary of the public calls: arguments bound and checked against the signature, and only
netpoly's exceptions out (as the CLI's ``main`` maps every exception to an exit code).

``@api`` on a public function or method:

- a call that does not fit the signature (a missing argument, an unknown keyword) is an InputError
  naming the function and the accepted keywords;
- an argument annotated ``int``, ``str`` or ``bool`` (optionally ``| None``) is checked for that type:
  ``tokens=2.7`` is refused, never truncated; NaN, inf, strings and bools (NumPy's too) are not whole
  numbers;
- inside the call, an OSError (a file) is an InputError and a MemoryError a LimitError; any other
  exception that is not netpoly's is an InternalError (a bug of netpoly, with the original chained).

The argument checks the calls share (``path_arg``, ``entry``) are here too.
"""

from __future__ import annotations

import functools
import inspect
import operator

from ._netpoly import Error, InputError, InternalError, LimitError


def _short(o) -> str:
    try:
        r = repr(o)
    except ValueError:  # an int too long for text
        return f"an integer of about {int(o.bit_length() * 0.30103)} digits" if isinstance(o, int) else type(o).__name__
    except Exception:  # noqa: BLE001 - a structure too deep to show, or a repr that fails: named by its type
        return f"a {type(o).__name__} (that cannot be shown)"
    return r if len(r) <= 80 else r[:77] + "..."


def is_bool(v) -> bool:
    """Python's bool or NumPy's (``numpy.bool_`` has ``__index__`` but is no more a number than True is)."""
    return isinstance(v, bool) or (type(v).__module__ == "numpy" and type(v).__name__ in ("bool_", "bool"))


def path_arg(p, where: str) -> bytes:
    """A file name given to a public call: a str or an os.PathLike, nothing else (``load(5)`` is not the
    file "5"); a NUL is refused with the whole name shown escaped. Returned as the file system's bytes
    (undecodable names, kept by Python as surrogates, reach the file as they are)."""
    import os
    if not isinstance(p, (str, os.PathLike)):
        raise InputError(f"{where}: expected a path (a str or os.PathLike), got {_short(p)}")
    s = os.fspath(p)
    if not isinstance(s, str):
        raise InputError(f"{where}: expected a path whose os.fspath is a str, got {_short(s)}")
    if "\0" in s:
        raise InputError(f"{where}: {s!r}: a path cannot contain a NUL character")
    return os.fsencode(s)


def unicode_ok(s: str) -> bool:
    """Whether a str is text the library can take (UTF-8): no lone surrogates (as ``"\\ud800"``)."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def text_arg(v, where: str, *, empty: bool = True) -> str:
    """A str argument passed on to the library: a str of valid Unicode text without NUL characters
    (``empty=False``: not empty either), else an InputError starting with ``where``."""
    if not isinstance(v, str):
        raise InputError(f"{where} expected a str, got {_short(v)}")
    if not unicode_ok(v):
        raise InputError(f"{where} {_short(v)}: not valid Unicode text (a lone surrogate)")
    if "\0" in v:
        raise InputError(f"{where} {_short(v)}: a NUL character is refused")
    if not empty and not v:
        raise InputError(f"{where} expected a non-empty str")
    return v


def names_arg(v, where: str, what: str) -> list:
    """A list of names passed to the library as one comma-separated list (``--columns``, ``--bounds``):
    None (the default: an empty list), one name as a str, or a list or tuple of str. Each name is
    non-empty, has no comma and no spaces around it, so that joining them with commas gives back exactly
    these names (``"L,d"`` would become two columns, ``""`` would mean the default)."""
    if v is None:
        return []
    names = [v] if isinstance(v, str) else v
    if not isinstance(names, (list, tuple)):
        raise InputError(f"{where} expected a list of {what} names (or None for the default), got {_short(v)}")
    if not names:
        raise InputError(f"{where} expected at least one {what} name (None for the default {what}s)")
    for n in names:
        text_arg(n, f"{where} a {what} name:")
        if not n.strip():
            raise InputError(f"{where} {_short(n)}: an empty {what} name (None for the default {what}s)")
        if "," in n:
            hint = f" (a list gives several: {[x.strip() for x in n.split(',')]!r})" if isinstance(v, str) else ""
            raise InputError(f"{where} {_short(n)}: a {what} name cannot contain a comma{hint}")
        if n != n.strip():
            raise InputError(f"{where} {_short(n)}: a {what} name with spaces around it")
    return list(names)


def json_data(o, where: str, max_depth: int = 64) -> str:
    """``o`` as JSON text for the library: plain data only (dicts with str keys, lists, tuples, str,
    finite floats, ints of at most 64 bits, bools, None), nested at most ``max_depth`` deep (a cycle
    is refused as too deep), without recursion. Else an InputError starting with ``where`` that names
    the place, e.g. ``[0]["json"]["seconds"]``."""
    import json
    import math
    stack = [(o, "", 0)]
    while stack:
        x, at, depth = stack.pop()
        if depth > max_depth:
            raise InputError(f"{where} nested more than {max_depth} deep at {at or 'the top'} (or cyclic)")
        if x is None or isinstance(x, bool):
            continue
        if isinstance(x, str):
            if not unicode_ok(x):
                raise InputError(f"{where}{at}: {_short(x)} is not valid Unicode text (a lone surrogate)")
        elif isinstance(x, int):
            if not -2**63 <= x < 2**64:
                raise InputError(f"{where}{at}: {_short(x)}: an integer beyond 64 bits")
        elif isinstance(x, float):
            if not math.isfinite(x):
                raise InputError(f"{where}{at}: {x}: NaN and infinities are not JSON numbers")
        elif isinstance(x, dict):
            for k, v in x.items():
                if not isinstance(k, str) or not unicode_ok(k):
                    raise InputError(f"{where}{at}: the key {_short(k)}: expected str keys")
                stack.append((v, f"{at}[{k!r}]", depth + 1))
        elif isinstance(x, (list, tuple)):
            stack.extend((v, f"{at}[{i}]", depth + 1) for i, v in enumerate(x))
        else:
            raise InputError(f"{where}{at}: {_short(x)}: expected JSON data (dict, list, str, number, bool or "
                             f"None), got {type(x).__name__}")
    return json.dumps(o, allow_nan=False)


def _whole(v) -> bool:
    if is_bool(v):
        return False
    try:
        operator.index(v)
    except TypeError:
        return False
    return True


_CHECKS = {
    "int": (_whole, "a whole number"),
    "str": (lambda v: isinstance(v, str), "a str"),
    "bool": (lambda v: isinstance(v, bool), "True or False"),
}


def _check_of(annotation):
    """(test, expected) for an annotation this boundary checks, else None."""
    if not isinstance(annotation, str):
        annotation = getattr(annotation, "__name__", "")
    parts = [p.strip() for p in annotation.split("|")]
    optional = "None" in parts
    parts = [p for p in parts if p != "None"]
    if len(parts) != 1 or parts[0] not in _CHECKS:
        return None
    test, expected = _CHECKS[parts[0]]
    if optional:
        return (lambda v: v is None or test(v)), expected + " or None"
    return test, expected


_PATHS = ("path", "paths")  # file names: kept as the file system's bytes (path_arg), surrogates included


def _check_text(name: str, k: str, v, keywords: bool) -> None:
    """Text the library reads as UTF-8: a str argument, or a str in a list, tuple or dict of them (one
    level; **keywords: each value), with a lone surrogate is an InputError naming the argument (the
    binding layer would fail to convert it, which is no message for the user)."""
    if keywords:
        for kk, vv in v.items():
            _check_text(name, kk, vv, False)
        return
    items = [v] if isinstance(v, str) else list(v.values()) if isinstance(v, dict) else v \
        if isinstance(v, (list, tuple)) else []
    for x in items:
        if isinstance(x, str) and not unicode_ok(x):
            raise InputError(f"{name}: {k}=: {_short(x)} is not valid Unicode text (a lone surrogate)")


def api(fn):
    """Gives ``fn`` the boundary described in this module's docstring."""
    sig = inspect.signature(fn)
    name = fn.__qualname__.lstrip("_").removesuffix(".__init__")
    checks = {p: c for p, c in ((p.name, _check_of(p.annotation)) for p in sig.parameters.values()) if c}
    keywords = [p.name for p in sig.parameters.values()
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"]

    open_ended = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())

    @functools.wraps(fn)
    def call(*args, **kwargs):
        for k in kwargs:
            if not open_ended and (k not in sig.parameters or sig.parameters[k].kind == inspect.Parameter.VAR_POSITIONAL):
                raise InputError(f"{name}: unknown keyword '{k}' (expected one of {', '.join(keywords)})")
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise InputError(f"{name}: {e} (its arguments: {', '.join(keywords)})") from None
        for k, (test, expected) in checks.items():
            if k in bound.arguments and not test(bound.arguments[k]):
                raise InputError(f"{name}: {k}=: expected {expected}, got {_short(bound.arguments[k])}")
        for k, v in bound.arguments.items():
            if k not in _PATHS and k != "self":
                _check_text(name, k, v, sig.parameters[k].kind == inspect.Parameter.VAR_KEYWORD)
        try:
            return fn(*args, **kwargs)
        except (Error, KeyboardInterrupt):
            raise
        except OSError as e:
            raise InputError(f"{name}: {e}") from None
        except MemoryError:
            raise LimitError(f"{name}: out of memory; lower the problem size") from None
        except RecursionError:
            raise InputError(f"{name}: the input is nested too deeply") from None
        except Exception as e:  # noqa: BLE001 - the boundary: anything else is netpoly's bug
            raise InternalError(f"{name}: {type(e).__name__}: {e} (a bug in netpoly; please report it)") from e

    return call


class MissingExtra(Error, ImportError):
    """An optional package a call needs is not installed: a netpoly.Error (and an ImportError) whose
    message names the extra that installs it (pyproject.toml's optional dependencies)."""


# extra -> (the package's name for users, the Debian package)
_EXTRAS = {"numpy": ("NumPy", "python3-numpy"), "sympy": ("SymPy", "python3-sympy"),
           "torch": ("PyTorch", "python3-torch"), "pandas": ("pandas", "python3-pandas"),
           "matplotlib": ("matplotlib", "python3-matplotlib")}


def optional(module: str, what: str):
    """The optional package ``module`` (one of pyproject.toml's extras, of the same name), imported; if it
    is missing, MissingExtra saying that ``what`` needs it and how to install it."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if (e.name or module).split(".")[0] != module:
            raise  # the package is there but fails to import: its own message says why
        label, deb = _EXTRAS[module]
        raise MissingExtra(f"{what} needs {label}, which is not installed: pip install 'netpoly[{module}]' "
                           f"(or 'netpoly[all]'; on Debian: apt install {deb})") from None


def entry(o, what):
    """An output entry (or a shape) given as (token, channel): two whole numbers in [0, 2^63), else an
    InputError that starts with ``what``."""
    try:
        t, c = o
        if is_bool(t) or is_bool(c):
            raise TypeError
        return (int(_index(t)), int(_index(c)))
    except (TypeError, ValueError):
        raise InputError(f"{what} expected (token, channel), got {_short(o)}") from None


def _index(x):
    v = operator.index(x)
    if v < 0 or v >= 2**63:  # beyond any size or index netpoly takes (and beyond int-to-text limits)
        raise ValueError
    return v
