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
           "torch": ("PyTorch", "python3-torch"), "pandas": ("pandas", "python3-pandas")}


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
