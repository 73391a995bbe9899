#!/usr/bin/env python3
"""Separation rank with Singular: the peer that netpoly is compared against.

Usage: singular_seprank.py MODEL.json PARTITION [--timeout S] [--singular PATH]
                           [--script FILE] [--script-only]

PARTITION is side A as token indices (`0,1`), or netpoly's syntax (`half`,
`interleaved`, `A=0,2`, `A=x0_1,x1_0`); for tokens == 1 the indices are
channels, as in netpoly.

Writes a Singular script that does the whole job in Singular, then runs
`Singular -q` on it (killed after --timeout seconds, exit 3) and prints one
JSON line

  {"peer":"singular","terms":T,"rank":r,"expand_seconds":..,"rank_seconds":..,...}

The script:
  * ring r = 0, (x0_0, ..., x{N-1}_{d-1}), dp;  (char 0: exact rationals)
  * the forward pass as matrices of polynomials, layer by layer: every
    weight matrix is a `matrix W[r][c] = ...;` literal, and e.g. an attention
    head is `Y = Y + (X*transpose(Q)) * (transpose(X*transpose(K)) * (X*transpose(V))) * transpose(O);`
    (the association netpoly uses); x^2 activations and the product block's
    Hadamard products are loops over entries. At the last layer only the
    output entry is computed, as netpoly does.
  * the coefficient matrix with the kernel command `coef`: `coef(y, prodA)`
    (prodA the product of side A's variables) gives the A-monomials alpha
    and their coefficients p_alpha, polynomials in the B variables; then
    `coef(ideal(p_alpha...), prodB)` lists the B-monomials beta (first row)
    and, below, the rational matrix C[alpha][beta];
  * `rank(C)` (kernel command, LU decomposition over Q).
expand_seconds / rank_seconds are Singular's own wall times (rtimer) for the
forward pass and for coef + rank (matrix_seconds: the two coef calls of it);
cpu_seconds is Singular's CPU time (timer) for both; total_seconds is the
wall time of the Singular process, start-up and parsing included. Measured
on attn(2,4,2,4), the two `coef` calls take about 2/3 of the time and
`rank` the rest; `coeffs(I, K)` with K the B-monomials from `coef(y, prodB)`
costs the same, and a block ordering (dp(|A|),dp(|B|)) does not help.
"""
import argparse, json, os, re, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npmodel  # noqa: E402


SINGULAR_ERROR = re.compile(r"^\s*\?|error|fault|restart|signal|unable to allocate|no more memory", re.I)
MEMORY = re.compile(r"allocate|memory", re.I)


def num(w):
    return str(w.numerator) if w.denominator == 1 else f"({w.numerator}/{w.denominator})"


class Emitter:
    def __init__(self):
        self.lines = []
        self.n = 0

    def fresh(self, base):
        self.n += 1
        return f"{base}{self.n}"

    def emit(self, s):
        self.lines.append(s)

    def mat(self, base, M):
        """A weight matrix literal; returns its name."""
        name = self.fresh(base)
        self.emit(f"matrix {name}[{len(M)}][{len(M[0])}] = " + ", ".join(num(w) for r in M for w in r) + ";")
        return name

    def row(self, base, X, i, d):
        name = self.fresh(base)
        self.emit(f"matrix {name}[1][{d}] = " + ", ".join(f"{X}[{i + 1},{c + 1}]" for c in range(d)) + ";")
        return name

    def col(self, base, X, c, n):
        name = self.fresh(base)
        self.emit(f"matrix {name}[{n}][1] = " + ", ".join(f"{X}[{i + 1},{c + 1}]" for i in range(n)) + ";")
        return name

    def square_entries(self, Z):
        self.emit(f"for (i = 1; i <= nrows({Z}); i++) {{ for (j = 1; j <= ncols({Z}); j++) "
                  f"{{ {Z}[i,j] = {Z}[i,j]^2; }} }}")


def full_layer(e, L, X, N, d):
    """Emits the layer on the N x d matrix X; returns the output's name."""
    t = L["type"]
    Y = e.fresh("X")
    if t == "attention":
        e.emit(f"matrix {Y}[{N}][{d}];")
        for h in L["heads"]:
            Q, K, V, O = (e.mat(k, h[k]) for k in "QKVO")
            e.emit(f"{Y} = {Y} + ({X}*transpose({Q})) * (transpose({X}*transpose({K})) * ({X}*transpose({V})))"
                   f" * transpose({O});")
    elif t == "token_mix":
        W = e.mat("W", L["W"])
        Z = e.fresh("Z")
        e.emit(f"matrix {Z} = {W}*{X};")
        if L["activation"] == "square":
            e.square_entries(Z)
        if L["W2"] is not None:
            W2 = e.mat("W", L["W2"])
            e.emit(f"matrix {Y} = {W2}*{Z};")
        else:
            e.emit(f"matrix {Y} = {Z};")
    elif t == "channel_mix":
        W = e.mat("W", L["W"])
        Z = e.fresh("Z")
        e.emit(f"matrix {Z} = {X}*transpose({W});")
        if L["activation"] == "square":
            e.square_entries(Z)
        if L["W2"] is not None:
            W2 = e.mat("W", L["W2"])
            e.emit(f"matrix {Y} = {Z}*transpose({W2});")
        else:
            e.emit(f"matrix {Y} = {Z};")
    elif t == "product":
        Ps = []
        for W in L["Ws"]:
            Wn = e.mat("W", W)
            P = e.fresh("P")
            e.emit(f"matrix {P} = {X}*transpose({Wn});")
            Ps.append(P)
        e.emit(f"matrix {Y} = {Ps[0]};")
        for P in Ps[1:]:
            e.emit(f"for (i = 1; i <= nrows({Y}); i++) {{ for (j = 1; j <= ncols({Y}); j++) "
                   f"{{ {Y}[i,j] = {Y}[i,j]*{P}[i,j]; }} }}")
    elif t == "permute":
        e.emit(f"matrix {Y}[{N}][{d}];")
        for k, p in enumerate(L["perm"]):
            e.emit(f"{Y}[{k // d + 1},{k % d + 1}] = {X}[{p // d + 1},{p % d + 1}];")
    if L["residual"]:
        e.emit(f"{Y} = {Y} + {X};")
    return Y


def entry_layer(e, L, X, N, d, i, c):
    """Emits only entry (i, c) of the layer's output into poly y."""
    t = L["type"]
    e.emit("poly y = 0;")
    if t == "attention":
        xi = e.row("xi", X, i, d)
        for h in L["heads"]:
            Q, K, V = (e.mat(k, h[k]) for k in "QKV")
            oc = e.mat("oc", [[w] for w in h["O"][c]])  # O[c,:]^T, da x 1
            tmp = e.fresh("t")
            e.emit(f"matrix {tmp} = ({xi}*transpose({Q})) * (transpose({X}*transpose({K})) * "
                   f"(({X}*transpose({V})) * {oc}));")
            e.emit(f"y = y + {tmp}[1,1];")
    elif t == "token_mix":
        xc = e.col("xc", X, c, N)
        if L["W2"] is None:
            Wi = e.mat("W", [L["W"][i]])
            tmp = e.fresh("t")
            e.emit(f"matrix {tmp} = {Wi}*{xc};")
            e.emit(f"y = {tmp}[1,1]" + ("^2;" if L["activation"] == "square" else ";"))
        else:
            W = e.mat("W", L["W"])
            Z = e.fresh("Z")
            e.emit(f"matrix {Z} = {W}*{xc};")
            if L["activation"] == "square":
                e.square_entries(Z)
            W2i = e.mat("W", [L["W2"][i]])
            tmp = e.fresh("t")
            e.emit(f"matrix {tmp} = {W2i}*{Z};")
            e.emit(f"y = {tmp}[1,1];")
    elif t == "channel_mix":
        xi = e.row("xi", X, i, d)
        tmp = e.fresh("t")
        if L["W2"] is None:
            Wc = e.mat("W", [[w] for w in L["W"][c]])
            e.emit(f"matrix {tmp} = {xi}*{Wc};")
            e.emit(f"y = {tmp}[1,1]" + ("^2;" if L["activation"] == "square" else ";"))
        else:
            W = e.mat("W", L["W"])
            Z = e.fresh("Z")
            e.emit(f"matrix {Z} = {xi}*transpose({W});")
            if L["activation"] == "square":
                e.square_entries(Z)
            W2c = e.mat("W", [[w] for w in L["W2"][c]])
            e.emit(f"matrix {tmp} = {Z}*{W2c};")
            e.emit(f"y = {tmp}[1,1];")
    elif t == "product":
        xi = e.row("xi", X, i, d)
        e.emit("y = 1;")
        for W in L["Ws"]:
            Wc = e.mat("W", [[w] for w in W[c]])
            tmp = e.fresh("t")
            e.emit(f"matrix {tmp} = {xi}*{Wc};")
            e.emit(f"y = y*{tmp}[1,1];")
    elif t == "permute":
        p = L["perm"][i * d + c]
        e.emit(f"y = {X}[{p // d + 1},{p % d + 1}];")
    if L["residual"]:
        e.emit(f"y = y + {X}[{i + 1},{c + 1}];")


def script(model, A):
    N, d = model["tokens"], model["width"]
    names = npmodel.var_names(N, d)
    e = Emitter()
    e.emit('system("--ticks-per-sec", 1000);')
    e.emit(f"ring r = 0, ({', '.join(names)}), dp;")
    e.emit("int i; int j; int k;")
    e.emit("int t0 = rtimer; int c0 = timer;")
    X = "X0"
    e.emit(f"matrix X0[{N}][{d}] = {', '.join(names)};")
    layers = model["layers"]
    for L in layers[:-1]:
        X = full_layer(e, L, X, N, L["in_width"])
    i, c = model["output"]
    entry_layer(e, layers[-1], X, N, layers[-1]["in_width"], i, c)
    e.emit("int t1 = rtimer;")
    e.emit("int nterms = size(y);")
    prodA = "*".join(names[k] for k in A)
    prodB = "*".join(names[k] for k in range(N * d) if k not in set(A))
    e.emit("int rk = 0; int nA = 0; int nB = 0; int tm = t1;")
    e.emit("if (y != 0) {")
    e.emit(f"  matrix CA = coef(y, {prodA});          // row 1: A-monomials, row 2: their coefficients in B")
    e.emit("  nA = ncols(CA);")
    e.emit("  ideal I; for (k = 1; k <= nA; k++) { I[k] = CA[2,k]; }")
    e.emit(f"  matrix C = coef(I, {prodB});           // row 1: B-monomials, rows 2..: C[alpha][beta]")
    e.emit("  nB = ncols(C);")
    e.emit("  for (k = 1; k <= nB; k++) { C[1,k] = 0; }")
    e.emit("  tm = rtimer;")
    e.emit("  rk = rank(C);")
    e.emit("}")
    e.emit("int t2 = rtimer; int c2 = timer;")
    e.emit('print("NETPOLY_PEER " + string(nterms) + " " + string(rk) + " " + string(nA) + " " + string(nB)'
           ' + " " + string(t1 - t0) + " " + string(tm - t1) + " " + string(t2 - t1) + " " + string(c2 - c0));')
    e.emit("quit;")
    return "\n".join(e.lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("partition", help="side A: tokens 0,1 | half | interleaved | A=... (netpoly syntax)")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--singular", default=shutil.which("Singular") or "Singular")
    ap.add_argument("--script", help="also write the Singular script here")
    ap.add_argument("--script-only", action="store_true", help="print the script and stop")
    args = ap.parse_args()
    try:
        model = npmodel.load(args.model)
        A = npmodel.partition(args.partition, model["tokens"], model["width"])
    except (npmodel.ModelError, KeyError, ValueError) as err:
        print(f"singular_seprank: error: {err}", file=sys.stderr)
        return 2
    text = script(model, A)
    if args.script_only:
        sys.stdout.write(text)
        return 0
    if args.script:
        with open(args.script, "w") as f:
            f.write(text)
    with tempfile.NamedTemporaryFile("w", suffix=".sing", delete=False) as f:
        f.write(text)
        path = f.name
    t0 = time.perf_counter()
    try:
        p = subprocess.Popen([args.singular, "-q", "--no-rc", path], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            print(json.dumps({"peer": "singular", "timeout": args.timeout}))
            return 3
    except FileNotFoundError:
        print(f"singular_seprank: error: {args.singular} not found (Debian: apt-get install singular)",
              file=sys.stderr)
        return 2
    finally:
        os.unlink(path)
    wall = time.perf_counter() - t0
    m = re.search(r"NETPOLY_PEER (\d+) (\d+) (\d+) (\d+) (-?\d+) (-?\d+) (-?\d+) (-?\d+)", out)
    # Singular reports an error (or restarts after a crash, e.g. out of memory)
    # and goes on with the next statement, so a NETPOLY_PEER line alone proves
    # nothing: any error report voids the run.
    errors = [l for l in out.splitlines() if SINGULAR_ERROR.search(l)]
    if not m or errors or p.returncode not in (0, None):
        sys.stderr.write(out[-4000:])
        why = "ran out of memory" if any(MEMORY.search(l) for l in errors) else "reported an error"
        print(f"singular_seprank: error: Singular {why if errors else 'gave no result'} "
              f"(exit {p.returncode})", file=sys.stderr)
        return 1
    terms, rank, nA, nB, ms_exp, ms_mat, ms_rank, ms_cpu = map(int, m.groups())
    ver = subprocess.run([args.singular, "-v", "-q", "--no-rc", "-c", "quit;"], capture_output=True, text=True)
    vm = re.search(r"Singular[^\n]*?(\d+\.\d+\.\d+)", ver.stdout + ver.stderr)
    print(json.dumps({"peer": "singular", "version": vm.group(1) if vm else None,
                      "arith": "Singular matrices of polynomials over QQ (ring char 0, dp)",
                      "rank_method": "coef(y, prodA); coef(ideal, prodB); rank(matrix) (LU over QQ)",
                      "terms": terms, "rank": rank, "coefficient_matrix": [nA, nB],
                      "expand_seconds": ms_exp / 1000.0, "rank_seconds": ms_rank / 1000.0,
                      "matrix_seconds": ms_mat / 1000.0, "cpu_seconds": ms_cpu / 1000.0,
                      "total_seconds": round(wall, 6)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
