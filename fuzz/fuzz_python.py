#!/usr/bin/env python3
"""A fuzz target for the Python entry points (issue 29): random, often hostile arguments to every
public function of `netpoly` (make, from_json, from_numpy, Poly, seprank on a polynomial and on a
network, Network.expand, bounds, table), for a given number of seconds.

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


CALLS = [call_make, call_from_json, call_from_numpy, call_poly_seprank, call_network_seprank, call_expand,
         call_bounds, call_table]


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
