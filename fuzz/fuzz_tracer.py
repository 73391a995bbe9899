#!/usr/bin/env python3
"""A differential fuzz target for the PyTorch tracer (issue 50 §1): random modules written as research
code writes them, each traced with `netpoly.from_torch` and, when traced, its network's polynomials
compared with torch's own float64 forward pass at random dyadic points, exactly.

Each round writes a module's source (so a finding prints the module itself): Linear maps (biases,
F.linear, keyword forms, a Linear subclass with its own forward), squares in their five spellings,
products, sums and differences (alpha=, keyword forms), constant factors, residuals, softmax-free
attention ((q @ k.mT) @ v, q @ (k^T @ v), einsum) and multi-head attention with view/transpose heads,
causal masks on the scores (tril, masked_fill with 0, * tril(ones); and masks to refuse: a strict
triangle, the upper one, softmax's -inf),
split/chunk, sums over the channels, token mixing and token MLPs with a hidden size of their own, on
(N, d) or in batches (B, N, d); and the patterns that main traced into another function: in-place
updates with aliases (residual = x, .detach(), .contiguous(), a view), casts to integer and bool
types, forward hooks and pre-hooks, heads in (B, N, H, dh) times a (B, N, dh) activation with N == H,
a split unpacked into the wrong count, a module written for batches that also runs on (N, d) (traced
without batch=), a forward that raises SystemExit. Weights and inputs are multiples of 1/4, so
float64 is exact on most of these small modules: torch's value must equal the exact one, or (when the
exact value needs more than float64's 53 bits) be within 2^-40 of the sum of the terms' absolute values.

Findings (the round's module source is printed, and the script exits 1):
- a traced network that differs from torch's forward pass on the layout the module is written for;
- a module whose forward pass fails in torch, traced anyway;
- from_torch's own check refusing its trace ("the traced model is not the module's function"): a
  tracer bug it caught;
- InternalError, or any exception that is not a netpoly.Error; a round over 120 s (a hang).
Refusals (netpoly.InputError) of what the tracer does not express are counted, not findings.

    scripts/fuzz tracer SECONDS [SEED]     (or: fuzz/fuzz_tracer.py SECONDS [SEED [ROUND]]: ROUND replays one round)
"""
import faulthandler
import linecache
import os
import random
import sys
import time
from fractions import Fraction

import torch
import torch.nn.functional as F  # noqa: F401 - used by the generated modules
from torch import nn

import netpoly
import netpoly.torch as nt


class Lin2(nn.Linear):
    """A Linear subclass with a forward of its own (main took it as a plain Linear)."""

    def forward(self, x):
        return super().forward(x) * 2 - x[..., :1]


class Program:
    """A module's source, written one statement at a time; values are (name, width, degree)."""

    def __init__(self, rng, tokens, width, batch):
        self.rng, self.N, self.d, self.batch = rng, tokens, width, batch
        self.init, self.body, self.mods = [], [], 0
        self.vals = [("x", width, 1)]
        self.fails = False  # the forward pass fails in torch
        self.hooks = []
        self.counter = 0

    def var(self):
        self.counter += 1
        return f"v{self.counter}"

    def linear(self, w_in, w_out, cls="nn.Linear"):
        self.mods += 1
        name = f"l{self.mods}"
        bias = self.rng.random() < 0.5
        self.init.append(f"self.{name} = {cls}({w_in}, {w_out}, bias={bias})")
        return name

    def pick(self, width=None, max_degree=9):
        c = [v for v in self.vals if (width is None or v[1] == width) and v[2] <= max_degree]
        return self.rng.choice(c) if c else None

    def emit(self, line, width, degree):
        name = self.var()
        self.body.append(f"{name} = {line}")
        self.vals.append((name, width, degree))
        return name

    # ------------------------------------------------------------ the operations
    def op_linear(self):
        a, w, g = self.pick()
        out = self.rng.choice([w, self.d, 1, 2 * w if w < 4 else w, 2, 4])
        cls = "Lin2" if self.rng.random() < 0.1 and out == w else "nn.Linear"
        m = self.linear(w, out, cls)
        form = self.rng.randrange(4)
        if form == 0 or cls == "Lin2":
            return self.emit(f"self.{m}({a})", out, g)
        if form == 1:
            return self.emit(f"F.linear({a}, self.{m}.weight, self.{m}.bias)", out, g)
        if form == 2:
            return self.emit(f"F.linear({a}, weight=self.{m}.weight)", out, g)
        return self.emit(f"F.linear({a}, self.{m}.weight, bias=self.{m}.bias)", out, g)

    def op_square(self):
        v = self.pick(max_degree=4)
        if v is None:
            return
        a, w, g = v
        form = self.rng.choice(["{a} * {a}", "{a} ** 2", "torch.square({a})", "{a}.pow(exponent=2)", "{a}.pow(2)"])
        return self.emit(form.format(a=a), w, 2 * g)

    def op_product(self):
        a, w, g = self.pick(max_degree=4)
        b = self.pick(width=self.rng.choice([w, 1]) if w > 1 else w, max_degree=9 - g)
        if b is None:
            return
        return self.emit(f"{a} * {b[0]}", w, g + b[2])

    def op_sum(self):
        a, w, g = self.pick()
        b = self.pick(width=w)
        c = self.rng.choice(["2", "-1", "0.5", "3", "-0.25"])
        form = self.rng.choice(["{a} + {b}", "{a} - {b}", "torch.add({a}, {b}, alpha={c})", "torch.sub({a}, {b}, alpha={c})",
                                "{a}.sub({b}, alpha={c})", "{a}.add({b}, alpha={c})", "torch.sub({a}, {c}, alpha=2)",
                                "{a} + {c}"])
        return self.emit(form.format(a=a, b=b[0], c=c), w, max(g, b[2]))

    def op_scale(self):
        a, w, g = self.pick()
        c = self.rng.choice(["2", "0.5", "-4", "0.25"])
        form = self.rng.choice(["{a} * {c}", "{c} * {a}", "{a} / {c}", "torch.mul({a}, other={c})", "-{a}"])
        return self.emit(form.format(a=a, c=c), w, g)

    def op_residual(self):
        a, w, g = self.pick(width=self.d) or (None, 0, 0)
        if a is None or a == "x":
            return
        return self.emit(f"{a} + x", w, g)

    def op_attention(self):
        q = self.pick(max_degree=3)
        k = self.pick(width=q[1], max_degree=3)
        v = self.pick(max_degree=3)
        g = q[2] + k[2] + v[2]
        if g > 9:
            return
        b = "b" if self.batch else ""
        form = self.rng.choice(["({q} @ {k}.mT) @ {v}", "{q} @ ({k}.transpose(-1, -2) @ {v})",
                                f"torch.einsum('{b}nm,{b}md->{b}nd', torch.einsum('{b}nd,{b}md->{b}nm', {{q}}, {{k}}), {{v}})"])
        if self.rng.random() < 0.3:  # a mask on the scores: causal (traced) or another one (refused)
            form = f"{self.mask('({q} @ {k}.mT)')} @ {{v}}"
        return self.emit(form.format(q=q[0], k=k[0], v=v[0]), v[1], g)

    def mask(self, s):
        """The score product s masked as decoder-only models do, or by a mask netpoly must refuse."""
        return self.rng.choice([
            "torch.tril({s})", "{s}.masked_fill(torch.tril(torch.ones(N, N)) == 0, 0)",
            "{s} * torch.tril(torch.ones(N, N))", "{s}.masked_fill(torch.tril(torch.ones(N, N)) == 0, 0.0)",
            "torch.tril({s}, diagonal=-1)", "{s} * torch.triu(torch.ones(N, N))",
            "{s}.masked_fill(torch.tril(torch.ones(N, N)) == 0, float('-inf'))"]).format(s=s)

    def op_heads(self):
        H = 2
        c = [v for v in self.vals if v[1] % H == 0 and v[2] <= 3]
        if not c:
            return
        q = self.rng.choice(c)
        k = self.rng.choice([v for v in c if v[1] == q[1]])
        v = self.rng.choice([v for v in c if v[1] == q[1]])
        w, dh, g = q[1], q[1] // H, q[2] + k[2] + v[2]
        if g > 9:
            return
        if self.batch:
            split, back = f"view(B, N, {H}, {dh}).transpose(1, 2)", f"transpose(1, 2).reshape(B, N, {w})"
        else:
            split, back = f"view(N, {H}, {dh}).transpose(0, 1)", f"transpose(0, 1).reshape(N, {w})"
        hq, hk, hv = self.var(), self.var(), self.var()
        self.body += [f"{hq} = {q[0]}.{split}", f"{hk} = {k[0]}.{split}", f"{hv} = {v[0]}.{split}"]
        att = self.rng.choice(["({q} @ {k}.transpose(-2, -1)) @ {v}", "{q} @ ({k}.transpose(-2, -1) @ {v})"])
        if self.rng.random() < 0.3:
            att = f"{self.mask('({q} @ {k}.transpose(-2, -1))')} @ {{v}}"
        y = self.emit(f"({att.format(q=hq, k=hk, v=hv)}).{back}", w, g)
        if self.rng.random() < 0.5:
            m = self.linear(w, w)
            return self.emit(f"self.{m}({y})", w, g)
        return y

    def op_heads_times_tokens(self):
        """Heads (B, N, H, dh) times a (B, N, dh) activation: with N == H torch pairs tokens with heads."""
        if not self.batch:
            return
        c = [v for v in self.vals if v[1] == 4 and v[2] <= 4]
        if not c:
            return
        a = self.rng.choice(c)
        b = self.pick(width=2, max_degree=4)
        if b is None:
            return
        first = self.rng.random() < 0.3  # (B, H, N, dh): per head in a batch of one, mixes batches of B == H
        if first:
            return self.emit(f"({a[0]}.view(B, N, 2, 2).transpose(1, 2) * {b[0]}).transpose(1, 2).reshape(B, N, 4)",
                             4, a[2] + b[2])
        return self.emit(f"({a[0]}.view(B, N, 2, 2) * {b[0]}).reshape(B, N, 4)", 4, a[2] + b[2])

    def op_split(self):
        a, w, g = self.pick()
        if w < 2:
            return
        if w % 2 or self.rng.random() < 0.1:  # into three or more parts, unpacked into two: fails in torch
            if w >= 3:
                self.fails = True
                p, q = self.var(), self.var()
                self.body.append(f"{p}, {q} = {a}.split(1, -1)")
                return self.emit(f"{p} * {q}", 1, 2 * g)
            return
        p, q = self.var(), self.var()
        how = self.rng.choice([f"{a}.split({w // 2}, -1)", f"{a}.chunk(2, dim=-1)", f"torch.split({a}, {w // 2}, dim=-1)"])
        self.body.append(f"{p}, {q} = {how}")
        return self.emit(self.rng.choice([f"{p} * {q}", f"{p} - {q}", f"{p}"]), w // 2, 2 * g)

    def op_channel_sum(self):
        a, w, g = self.pick(max_degree=4)
        b = self.pick(max_degree=4)
        return self.emit(f"{a}.sum(-1, keepdim=True) * {b[0]}", b[1], g + b[2])

    def op_token_mix(self):
        a, w, g = self.pick()
        N = self.N
        if self.rng.random() < 0.5:
            m = self.linear(N, N)
            return self.emit(f"self.{m}({a}.transpose(-1, -2)).transpose(-1, -2)", w, g)
        if 2 * g > 9:
            return
        h = self.rng.choice([N + 1, 2 * N])
        m1, m2 = self.linear(N, h), self.linear(h, N)
        t = self.var()
        self.body.append(f"{t} = self.{m1}({a}.transpose(-1, -2))")
        return self.emit(f"self.{m2}(({t} * {t}) * {self.rng.choice(['2', '0.5', '1'])}).transpose(-1, -2)", w, 2 * g)

    def op_inplace(self):
        """An in-place update of a fresh tensor y with another name for it read afterwards."""
        a, w, g = self.pick()
        b = self.pick(width=w)
        y, alias = self.var(), self.var()
        self.body.append(f"{y} = {a} * 2")
        kind = self.rng.choice(["{y}", "{y}.detach()", "{y}.contiguous()", "view"])
        if kind == "view":
            if not self.batch or w % 2:
                return
            self.body.append(f"{alias} = {y}.view(B, N, 2, {w // 2})")
            self.body.append(f"{alias} *= 2")
            return self.emit(f"{y} + {b[0]}", w, max(g, b[2]))
        self.body.append(f"{alias} = {kind.format(y=y)}")
        update = self.rng.choice(["{y} += {b}", "{y}.add_({b}, alpha=2)", "{y} *= 3", "{y}.mul_(-1)", "{y} -= {b}"])
        self.body.append(update.format(y=y, b=b[0]))
        return self.emit(self.rng.choice([f"{alias} * {b[0]}", f"{alias} + {y}", f"{y} - {alias}"]), w,
                         g + b[2])

    def op_cast(self):
        a, w, g = self.pick()
        form = self.rng.choice(["{a}.to(torch.int64) * 1.0", "{a}.to(torch.bool) * {a}", "{a}.type_as(self.ints) * 1.0",
                                "{a}.sum(-1, keepdim=True, dtype=torch.int64) * {a}", "{a}.double()"])
        if "type_as" in form and "'ints'" not in " ".join(self.init):
            self.init.append("self.register_buffer('ints', torch.ones(1, dtype=torch.int64))")
        return self.emit(form.format(a=a), w, 2 * g if "bool" in form or "sum" in form else g)

    def op_hook(self):
        if not self.mods:
            return
        m = f"l{self.rng.randint(1, self.mods)}"
        kind = self.rng.choice(["register_forward_hook(lambda m, i, o: o * 2)",
                                "register_forward_pre_hook(lambda m, i: (i[0] * 2,))"])
        self.hooks.append(f"module.{m}.{kind}")

    def op_token_sum(self):
        """Written for batches: a sum over the tokens; on (N, d) the same code sums the channels."""
        if not self.batch:
            return
        a, w, g = self.pick(max_degree=4)
        return self.emit(f"{a} * {a}.sum(1, keepdim=True)", w, 2 * g)

    def op_exit(self):
        self.body.append("raise SystemExit(0)")

    OPS = [("op_linear", 6), ("op_square", 3), ("op_product", 3), ("op_sum", 4), ("op_scale", 2), ("op_residual", 2),
           ("op_attention", 3), ("op_heads", 3), ("op_split", 2), ("op_channel_sum", 1), ("op_token_mix", 2),
           ("op_inplace", 3), ("op_heads_times_tokens", 1), ("op_cast", 1), ("op_hook", 1), ("op_token_sum", 1),
           ("op_exit", 0.1)]

    def source(self):
        lines = ["class Fuzzed(nn.Module):", "    def __init__(self):", "        super().__init__()"]
        lines += [f"        {s}" for s in self.init] or ["        pass"]
        lines += ["", "    def forward(self, x):"]
        lines += ["        B, N, D = x.shape" if self.batch else "        N, D = x.shape"]
        lines += [f"        {s}" for s in self.body]
        lines += [f"        return {self.vals[-1][0]}"]
        lines += [f"# then: {h}" for h in self.hooks]
        return "\n".join(lines) + "\n"


def generate(rng):
    tokens, width = rng.choice([(2, 2), (2, 4), (3, 2), (2, 3), (1, 4)])
    batch = rng.random() < 0.5
    p = Program(rng, tokens, width, batch)
    names, weights = zip(*Program.OPS)
    for _ in range(rng.randint(1, 4)):
        getattr(p, rng.choices(names, weights)[0])()
    if p.vals[-1][0] == "x":
        p.op_linear()
    return p


def build(p, round_no):
    src = p.source()
    filename = f"<fuzz_tracer round {round_no}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)  # source lines in messages
    ns = {"torch": torch, "nn": nn, "F": F, "Lin2": Lin2}
    exec(compile(src, filename, "exec"), ns)  # noqa: S102 - the fuzzer's own generated module
    module = ns["Fuzzed"]().double()
    g = torch.Generator().manual_seed(round_no)
    with torch.no_grad():
        for t in module.parameters():
            t.copy_(torch.randint(-3, 4, t.shape, generator=g).double() / 4)
    for h in p.hooks:
        eval(h, {"module": module})  # noqa: S307 - the fuzzer's own generated hook
    return module, src


def value(poly, point):
    """The polynomial's exact value at the point, and the sum of its terms' absolute values there."""
    total, size = Fraction(0), Fraction(0)
    for e, c in poly.to_dict().items():
        term = Fraction(c)
        for x, k in zip(point, e):
            if k:
                term *= x ** k
        total += term
        size += abs(term)
    return total, size


class Finding(Exception):
    pass


def check(rng, round_no, stats):
    p = generate(rng)
    module, src = build(p, round_no)
    kw = {"tokens": p.N, "width": p.d}
    if rng.random() < 0.7:  # else from_torch finds the layout itself
        kw["batch"] = p.batch
    try:
        net = netpoly.from_torch(module, **kw)
    except netpoly.InternalError as e:
        raise Finding(f"InternalError: {e}") from None
    except netpoly.Error as e:
        if "is not the module's function" in str(e):
            raise Finding(f"from_torch's check refused its own trace: {e}") from None
        stats["refused"] += 1
        return src
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001 - anything else is a finding
        raise Finding(f"{type(e).__name__} escaped from_torch: {e}") from None
    if p.fails:
        raise Finding("traced a module whose forward pass fails in torch")
    try:
        polys = net.expand(outputs="all", max_terms=300000)
    except netpoly.LimitError:
        stats["too big"] += 1
        return src
    for _ in range(2):
        X = torch.tensor([[rng.randint(-8, 8) / 4 for _ in range(p.d)] for _ in range(p.N)], dtype=torch.float64)
        try:
            with torch.no_grad():
                Y = module(X[None])[0] if p.batch else module(X.clone())
        except Exception as e:  # noqa: BLE001 - torch's own error
            raise Finding(f"traced a module whose forward pass fails in torch: {type(e).__name__}: {e}") from None
        Y = Y.reshape(-1).tolist()
        if len(Y) != len(polys):
            raise Finding(f"the network has {len(polys)} outputs, torch's forward pass {len(Y)}")
        point = [Fraction(v) for v in X.reshape(-1).tolist()]
        for k, poly in enumerate(polys):
            exact, size = value(poly, point)
            # exact when float64 is (few bits); else within its rounding, far below what a wrong model is off by
            if exact != Fraction(Y[k]) and abs(exact - Fraction(Y[k])) > (size + 1) / 2**40:
                raise Finding(f"a wrong model: output {k} at {X.tolist()} is {exact} ({float(exact)!r}) in the "
                              f"traced network, {Y[k]!r} in torch's forward pass")
    stats["traced"] += 1
    return src


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else int.from_bytes(os.urandom(4), "little")
    only = int(sys.argv[3]) if len(sys.argv) > 3 else None  # replay one round
    print(f"fuzz_tracer: {secs:g} s, seed {seed}", flush=True)
    torch.set_num_threads(1)
    end = time.monotonic() + secs
    rounds = 0
    stats = {"traced": 0, "refused": 0, "too big": 0}
    tty, next_line = sys.stderr.isatty(), time.monotonic() + 60
    while time.monotonic() < end or (only and rounds < only):
        rounds += 1
        if only and rounds != only:
            continue
        rng = random.Random(seed * 1_000_003 + rounds)
        faulthandler.dump_traceback_later(120, exit=True)  # a hang is a finding
        if tty:
            print(f"\rround {rounds}: {stats}   ", end="", file=sys.stderr, flush=True)
        elif time.monotonic() >= next_line:
            print(f"round {rounds}: {stats}", file=sys.stderr, flush=True)
            next_line += 60
        try:
            src = check(rng, rounds, stats)
            if only:
                print(src)
        except Finding as e:
            print(f"\nFINDING in round {rounds} (seed {seed}): {e}", flush=True)
            print(random_source(seed, rounds), flush=True)
            print(f"reproduce: fuzz/fuzz_tracer.py 0 {seed} {rounds}", flush=True)
            return 1
    faulthandler.cancel_dump_traceback_later()
    print(f"\nfuzz_tracer: {rounds} modules: {stats['traced']} traced and equal to torch's forward pass, "
          f"{stats['refused']} refused with netpoly.Error, {stats['too big']} too big to expand; no finding", flush=True)
    return 0


def random_source(seed, round_no):
    """The module of a round, regenerated from its seed."""
    rng = random.Random(seed * 1_000_003 + round_no)
    return generate(rng).source()


if __name__ == "__main__":
    sys.exit(main())
