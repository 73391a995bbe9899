#!/usr/bin/env python3
"""A fuzz target for the Python entry points (issue 29): random, often hostile arguments to every
public function of `netpoly` (make, from_json, from_numpy, Poly, seprank on a polynomial and on a
network, Network.expand, bounds, table), and (issue 49) of the types it returns: Rows rendered with
random titles, bound and column names, from measured rows with hostile values put into their JSON
(NaN, huge integers, deep and cyclic structures, lone surrogates); Result, Bound, Report, Layer and
Results from mutated JSON; Poly evaluated at random points, raised to random powers and combined with
random numbers; GaussianRational; and progress= of every type, for a given number of seconds.

Python's fuzzers (atheris) are not among Debian's packages, so this is a structured random fuzzer
in plain Python: each round draws a call and its arguments from grammars of valid and invalid
values (wrong types, NaN, inf, negative, huge and tiny numbers, long and malformed strings,
unknown keyword arguments, strings that would be code if evaluated). The only acceptable outcomes
are a result or `netpoly.Error` (InputError, LimitError, CheckFailed; never InternalError). A crash
kills the process (the runner sees the signal); any other exception is a finding: the round's call
is printed as a reproducer and the script exits 1.

    scripts/fuzz python SECONDS        (or: fuzz/fuzz_python.py SECONDS [SEED [ROUND]]: ROUND replays one round)
"""
import faulthandler
import math
from fractions import Fraction
import os
import random
import sys
import tempfile
import time

import netpoly

SENTINEL = os.path.join(tempfile.gettempdir(), f"netpoly-fuzz-python-{os.getpid()}")
# A string that creates a file if anything evaluates it.
CODE = f"__import__('pathlib').Path({SENTINEL!r}).touch()"


def number(rng):
    return rng.choice([0, 1, 2, 3, -1, -2, 7, 2**31, 2**63, 2**64 + 1, 10**30, -(10**30), 1.5, -0.5, 1e-300,
                       1e300, math.nan, math.inf, -math.inf, True, False, None, "3", "x", "", [], {}, 3 + 4j,
                       10**5000 if rng.random() < 0.05 else 4])


def small(rng):
    return rng.choice([1, 2, 3, rng.randint(1, 4)]) if rng.random() < 0.8 else number(rng)


def text(rng):
    return rng.choice(["half", "interleaved", "A=0", "A=0,1", "A=x0_0", "A=x0_0,x1_1", "A=", "A=99", "A=x9_9",
                       "B=0", "all", "", "x0_0*x1_0 + 1", "x0_0^1000000000", "1/0", CODE, "\x00", "é" * 50,
                       "x0_0+" * 200 + "1", "(" * 500, "support", "blackbox,support", "exact,exact", "nope",
                       "4G", "-1G", "1e400", "inf", "nan"])


def weights(rng, rows, cols):
    if rng.random() < 0.1:
        return number(rng)
    return [[rng.choice([0, 1, -2, "1/2", "3", 1.25, math.nan, "x", 10**40, "1+i"]) if rng.random() < 0.3
             else rng.randint(-3, 3) for _ in range(cols)] for _ in range(rows)]


def option_kwargs(rng):
    kw = {}
    for o in netpoly.options():
        if rng.random() < 0.25:
            kw[o["name"]] = rng.choice([number(rng), text(rng), [text(rng)], [[1, 2]], True])
    if rng.random() < 0.3:
        kw.setdefault("budget", rng.choice([0.2, 1, 2]))
    kw.setdefault("max_terms", 20000)
    kw.setdefault("budget", 2)
    if rng.random() < 0.1:
        kw["no_such_option"] = 1
    return kw


def a_network(rng):
    arch = rng.choice(["attention", "mixer", "mlp", "product", "transformer", "nope", CODE])
    shape = {"layers": small(rng), "width": small(rng), "tokens": small(rng), "seed": rng.choice([1, 2, number(rng)])}
    if arch == "attention" and rng.random() < 0.5:
        shape["heads"] = small(rng)
    if rng.random() < 0.2:
        shape[rng.choice(["weight_range", "degree", "residual", "layer", "weights"])] = number(rng)
    return netpoly.make(arch, **shape)


def call_make(rng):
    return a_network(rng)


def call_from_json(rng):
    tokens, width = small(rng), small(rng)
    layer = rng.choice([
        {"type": "token_mix", "W": weights(rng, 2, 2)},
        {"type": "channel_mix", "W": weights(rng, 2, 2), "activation": rng.choice(["none", "square", "relu"])},
        {"type": "attention", "heads": [{"Q": weights(rng, 1, 2), "K": weights(rng, 1, 2), "V": weights(rng, 1, 2),
                                         "O": weights(rng, 2, 1), "bQ": [number(rng)]}]},
        {"type": "permute", "perm": [rng.randint(-1, 4) for _ in range(4)]},
        {"type": "branches", "branches": [[], [{"type": "token_mix", "W": weights(rng, 2, 2)}]]},
        {"type": CODE},
    ])
    import json
    try:
        doc = json.dumps({"format": rng.choice(["netpoly-model/1", "netpoly-model/9"]),
                          "input": {"tokens": tokens, "width": width}, "layers": [layer]})
    except (ValueError, TypeError):
        return None  # not JSON-encodable: nothing reaches netpoly
    net = netpoly.from_json(doc, "fuzz")
    return net.expand(outputs=[(0, 0)]) if rng.random() < 0.5 else net


def call_from_numpy(rng):
    import numpy as np
    W = np.array(rng.choice([[[1.0, 2.0], [0.5, -1.0]], [[math.nan, 1.0], [1.0, 1.0]], [[1e308, 1e308], [1, 1]],
                             [[1, 2, 3]]]))
    layers = [{"type": rng.choice(["token_mix", "channel_mix", "bogus"]), "W": W}]
    if rng.random() < 0.3:
        try:
            layers[0]["b"] = np.array([number(rng), 1.0]) if rng.random() < 0.5 else number(rng)
        except (ValueError, TypeError, OverflowError):
            return None  # NumPy refused to build the argument: nothing reaches netpoly
    return netpoly.from_numpy(layers, tokens=small(rng), width=small(rng))


def call_poly_seprank(rng):
    nvars = rng.choice([2, 3, 4, 0, -1, 10**6])
    terms = rng.choice([{(1, 0, 0, 1): 3, (0, 1, 1, 0): "1/2"}, {(1, 1): 1}, {(10**9, 0): 1}, {"x": 1},
                        {(1, 0): math.nan}, {(): 1}, {(1, 0, 0, 1): 10**50}])
    if rng.random() < 0.3:
        poly = text(rng)
        return netpoly.seprank(poly, side_a=rng.choice([[0], [0, 1], [], [99], ["x0_0"], number(rng)]),
                               **option_kwargs(rng))
    p = netpoly.Poly(terms, nvars)
    return netpoly.seprank(p, side_a=rng.choice([[0], [0, 1], [], [99], [-1], number(rng)]), **option_kwargs(rng))


def call_network_seprank(rng):
    net = a_network(rng)
    part = rng.choice([text(rng), "half"])
    kw = option_kwargs(rng)
    if rng.random() < 0.3:
        kw["outputs"] = rng.choice([[(0, 0)], [(9, 9)], [(-1, 0)], "all", number(rng)])
    return net.seprank(part, **kw)


def call_expand(rng):
    net = a_network(rng)
    # Bounded: legitimately long work is not a finding (max_terms refuses it up front;
    # a hostile max_terms is invalid or tiny, never a user's own large limit).
    return net.expand(outputs=rng.choice([[(0, 0)], [(0, 9)], None]), threads=rng.choice([1, 2, number(rng)]),
                      max_terms=rng.choice([20000, 20000, 0, -1, math.nan, "x", [], 1e-300]))


def call_bounds(rng):
    return netpoly.bounds(rng.choice(["attention", "mixer", "mlp", "nope"]), layers=small(rng), width=small(rng),
                          tokens=small(rng), heads=small(rng))


def call_table(rng):
    return netpoly.table(rng.choice(["attention", "mixer", "mlp", "x"]), layers=rng.choice([(1,), (1, 2), number(rng)]),
                         widths=rng.choice([(2,), (0,), number(rng)]), seeds=rng.choice([1, 0, -2, number(rng)]),
                         methods=rng.choice([None, "support", text(rng)]), budget=1, max_terms=20000, progress=False)


# ---- issue 49: the result types, their rendering, and Poly's evaluation and arithmetic

def deep(n):
    x = []
    for _ in range(n):
        x = [x]
    return x


def hostile(rng):
    """A value that JSON, the binding layer or a type check might not expect."""
    k = rng.randrange(30)
    if k == 0:
        loop = {}
        loop["x"] = loop
        return loop
    if k == 1:
        return deep(rng.choice([10, 100, 1000, 100_000]))
    return rng.choice([math.nan, math.inf, -math.inf, 10**30, 2**64, -(2**63) - 1, 10**5000, None, "", "x",
                       "\ud800", "\x00", True, False, [], {}, object(), 1.5, -1, 0, "1e999999999", {"a": 1},
                       (1, 2), b"x", 3 + 4j, CODE, "é" * 50, 2**63])


def mutated(rng, obj):
    """A deep copy of JSON-like obj with a few leaves, keys or containers replaced by hostile values."""
    import copy
    obj = copy.deepcopy(obj)
    for _ in range(rng.choice([1, 1, 2, 3])):
        slots = []  # (container, key)
        stack = [obj]
        while stack:
            x = stack.pop()
            items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
            for key, v in items:
                slots.append((x, key))
                if isinstance(v, (dict, list)) and len(slots) < 5000:
                    stack.append(v)
        if not slots:
            return hostile(rng)
        x, key = rng.choice(slots)
        r = rng.random()
        if r < 0.15 and isinstance(x, dict):
            del x[key]
        elif r < 0.25 and isinstance(x, dict):
            x[rng.choice([1, None, "\ud800", "", (1,)])] = x.pop(key)
        else:
            x[key] = hostile(rng)
    return obj


_CACHE = {}


def real_rows():
    """A small table's rows, measured once (the fuzz mutates copies)."""
    if "rows" not in _CACHE:
        _CACHE["rows"] = netpoly.table("attention", layers=[1], widths=[2], heads=[1], tokens=[2], progress=False)
        _CACHE["bound_ids"] = [b["id"] for b in _CACHE["rows"][0]["bounds"]]
    return _CACHE["rows"]


COLUMNS = ["L", "d", "H", "N", "k", "seed", "sep", "params", "status", "lower", "upper", "time", "nope"]


def names(rng, known):
    r = rng.random()
    if r < 0.2:
        return None
    if r < 0.3:
        return rng.choice(known + ["", ",", "L,d", " L", "\ud800", "\x00"])
    if r < 0.4:
        return hostile(rng)
    pool = known + ["", "L,d", " L ", ",", "nope", "\ud800", "\x00", None, 1, 1.5, ["L"], math.nan]
    seq = [rng.choice(known) if rng.random() < 0.7 else rng.choice(pool) for _ in range(rng.randint(0, 4))]
    return tuple(seq) if rng.random() < 0.2 else seq


def call_rows(rng):
    rows = real_rows()
    r = rng.random()
    if r < 0.5:
        data = rows
    elif r < 0.85:
        data = netpoly.Rows(mutated(rng, list(rows)))
    else:
        data = netpoly.Rows(rng.choice([[{}], [{"json": hostile(rng)}], [hostile(rng)], [], hostile(rng)]))
    kw = {}
    if rng.random() < 0.5:
        kw["title"] = rng.choice(["t", "", "\\input{x} & % $", CODE, "\ud800", "\x00", None, 1, "é" * 500])
    if rng.random() < 0.6:
        kw["bounds"] = names(rng, _CACHE["bound_ids"])
    if rng.random() < 0.6:
        kw["columns"] = names(rng, COLUMNS)
    if rng.random() < 0.05:
        kw["unknown"] = 1
    how = rng.random()
    if how < 0.45:
        return data.to_latex(**kw)
    if how < 0.9:
        return data.to_markdown(**kw)
    try:
        import pandas  # noqa: F401
    except ImportError:
        return None
    return data.to_pandas()


def real_result():
    if "result" not in _CACHE:
        net = netpoly.make("attention", layers=1, width=2, heads=1, tokens=2)
        _CACHE["result"] = net.seprank(progress=False).json
        _CACHE["bound"] = netpoly.bounds("attention", layers=1, width=2, heads=1, tokens=2)[0].json
        _CACHE["report"] = {"title": "t", "verdict": "PASS", "notes": ["n"], "text": "PASS t\n"}
        _CACHE["layer"] = {"type": "branches", "residual": False,
                           "branches": [[{"type": "token_mix", "W": [["1/2", "1+i"]]}]]}
    return _CACHE


def call_results(rng):
    c = real_result()
    kind = rng.choice(["Result", "Bound", "Report", "Layer", "Results"])
    key = {"Result": "result", "Bound": "bound", "Report": "report", "Layer": "layer", "Results": "result"}[kind]
    d = c[key] if rng.random() < 0.2 else mutated(rng, c[key]) if rng.random() < 0.85 else hostile(rng)
    if kind == "Results":
        items = [netpoly.Result(d) if rng.random() < 0.8 else hostile(rng) for _ in range(rng.randint(0, 3))]
        rs = netpoly.Results(items if rng.random() < 0.9 else hostile(rng))
        return rs.sup, rs.inf
    obj = getattr(netpoly, kind)(d)
    out = [repr(obj), str(obj)]
    for m in ("_repr_html_", "_repr_latex_"):
        if hasattr(obj, m):
            out.append(getattr(obj, m)())
    if kind == "Result":
        out += [obj.value, obj.status, obj.prime]
    if kind == "Bound":
        out.append(obj.holds)
    return out


def a_value(rng):
    return rng.choice([0, 1, -1, 2, 3, 10**30, 10**5000, 2**61, Fraction(1, 3), Fraction(-7, 2**80), 0.5, -2.0, 1e300,
                       1e-300, math.nan, math.inf, 1j, 2 + 3j, complex(math.nan, 0), netpoly.GaussianRational(0, 1),
                       netpoly.GaussianRational(1, 1), None, "x", "1", b"1", [], {}, True, object(),
                       __import__("decimal").Decimal("1.5"), __import__("decimal").Decimal("nan")])


def a_poly(rng):
    nvars = rng.choice([1, 2, 3])
    terms = {}
    for _ in range(rng.randint(0, 4)):
        e = tuple(rng.choice([0, 0, 1, 2, 7, 400, 10**6, 2**40, 2**61]) for _ in range(nvars))
        terms[e] = rng.choice([1, -1, 2, Fraction(1, 3), 10**40, netpoly.GaussianRational(1, 2), 0.5, 10**5000])
    return netpoly.Poly(terms, nvars)


def call_poly(rng):
    p = a_poly(rng)
    r = rng.random()
    if r < 0.6:
        k = rng.random()
        if k < 0.5:
            point = [a_value(rng) if rng.random() < 0.4 else rng.choice([0, 1, 2, Fraction(1, 2), 0.5])
                     for _ in range(p.nvars + rng.choice([0, 0, 0, 1, -1]))]
        elif k < 0.7:
            point = {n: a_value(rng) for n in p.var_names()[:rng.choice([p.nvars, p.nvars, 0])]}
        elif k < 0.8:
            point = __import__("itertools").repeat(1, rng.choice([p.nvars, 10**9]))
        else:
            point = hostile(rng)
        return p(point) if rng.random() < 0.8 else p.evaluate(point)
    if r < 0.75:
        return p ** rng.choice([0, 1, 2, 3, 40, 10**9, 2**62, -1, 1.5, None, True])
    if r < 0.9:
        return p + a_value(rng), p * a_value(rng), p - a_value(rng), p == a_value(rng), str(p), repr(p)
    g = netpoly.GaussianRational(a_value(rng), a_value(rng) if rng.random() < 0.7 else 0)
    return g + a_value(rng), g * a_value(rng), g ** rng.choice([0, 1, 5, 10**6, -1, 0.5]), str(g), g == a_value(rng)


def call_progress(rng):
    net = netpoly.make("attention", layers=1, width=2, heads=1, tokens=2)
    progress = rng.choice([None, False, "no", 1, 0, math.nan, [], lambda line: None, object()])
    return net.expand(progress=progress, max_terms=20000)


CALLS = [call_make, call_from_json, call_from_numpy, call_poly_seprank, call_network_seprank, call_expand,
         call_bounds, call_table, call_rows, call_rows, call_results, call_results, call_poly, call_poly,
         call_progress]


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else int.from_bytes(os.urandom(4), "little")
    only = int(sys.argv[3]) if len(sys.argv) > 3 else None  # replay one round
    print(f"fuzz_python: {secs:g} s, seed {seed}", flush=True)
    end = time.monotonic() + secs
    rounds = errors = 0
    # Progress: one updating line on a terminal; in a log, a line a minute.
    tty, next_line = sys.stderr.isatty(), time.monotonic() + 60
    while time.monotonic() < end or (only and rounds < only):
        rounds += 1
        if only and rounds != only:
            continue
        rng = random.Random(seed * 1_000_003 + rounds)
        call = rng.choice(CALLS)
        # A call that does not return within 60 s is a finding (a hang): the
        # traceback is dumped and the process exits.
        faulthandler.dump_traceback_later(60, exit=True)
        if tty:
            print(f"\rround {rounds} ({call.__name__})   ", end="", file=sys.stderr, flush=True)
        elif time.monotonic() >= next_line:
            print(f"round {rounds} ({call.__name__})", file=sys.stderr, flush=True)
            next_line += 60
        try:
            call(rng)
        except netpoly.InternalError as e:
            print(f"FINDING (InternalError) in round {rounds} ({call.__name__}, seed {seed}): {e}", flush=True)
            return 1
        except netpoly.Error:
            errors += 1
        except Exception as e:  # noqa: BLE001 - anything else is a finding
            import traceback
            traceback.print_exc()
            print(f"FINDING in round {rounds} ({call.__name__}, seed {seed}): {type(e).__name__}: {e}", flush=True)
            print(f"reproduce: fuzz/fuzz_python.py 0 {seed} {rounds}", flush=True)
            return 1
        if os.path.exists(SENTINEL):
            print(f"FINDING in round {rounds} ({call.__name__}): a string argument was evaluated as code", flush=True)
            os.unlink(SENTINEL)
            return 1
    faulthandler.cancel_dump_traceback_later()
    print(f"fuzz_python: {rounds} calls, {errors} refused with netpoly.Error, no finding", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
