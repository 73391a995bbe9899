#!/usr/bin/env python3
"""Separation rank with SymPy: the peer that netpoly is compared against.

Usage: sympy_seprank.py MODEL.json PARTITION [--arith ring|expr] [--rank domainmatrix|matrix]

PARTITION is side A as token indices (`0,1`), or netpoly's syntax (`half`,
`interleaved`, `A=0,2`, `A=x0_1,x1_0`); for tokens == 1 the indices are
channels, as in netpoly.

Reads a netpoly-model/1 file, runs the network's forward pass in SymPy
(variables x{i}_{c}), expands the model's output entry (its "output" field,
default token 0 channel 0), builds the coefficient matrix C[alpha][beta]
(alpha: the exponents of the A variables, beta: those of B) and prints
one JSON line

  {"peer":"sympy","terms":T,"rank":r,"expand_seconds":..,"rank_seconds":..,...}

How (the defaults are the fastest plain-SymPy route we know; the others are
what a less tuned script would do and are much slower):
  --arith ring  (default) sparse polynomials of sympy.polys.rings.ring over
                ZZ (QQ when a weight is a fraction): each layer is computed
                on lists of PolyElement, expanded as it goes.
  --arith expr  SymPy expressions (Symbol arithmetic), sympy.expand() after
                every layer, then Poly(y, *vars).terms().
  --rank domainmatrix (default) DomainMatrix over QQ in its sparse (SDM)
                format, .rank() (sparse Gauss-Jordan over QQ, sdm_irref).
  --rank matrix sympy.SparseMatrix(...).rank().
The forward pass uses the same association of products as netpoly (per
head M = (X K^T)^T (X V^T), then Y = (X Q^T) M O^T; only the output entry is
computed at the last layer), so both do the same arithmetic on the same sizes.
expand_seconds covers the forward pass and expansion; rank_seconds covers
building C from the terms (matrix_seconds of it) and its rank; cpu_seconds is
the process CPU time of both; total_seconds adds importing SymPy and reading
the model. `python` and `ground_types` say which interpreter and integer
arithmetic (gmpy2 or pure Python) did the work.
"""
import argparse, json, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npmodel  # noqa: E402


def T(A):
    return [list(r) for r in zip(*A)]


def matmul(A, B, zero):
    n, m = len(B), len(B[0])
    out = []
    for row in A:
        r = []
        for j in range(m):
            acc = zero
            for k in range(n):
                a, b = row[k], B[k][j]
                if a and b:
                    acc = acc + a * b
            r.append(acc)
        out.append(r)
    return out


def dot(u, v, zero):
    acc = zero
    for a, b in zip(u, v):
        if a and b:
            acc = acc + a * b
    return acc


def act(z, a):
    return z * z if a == "square" else z


class Forward:
    """The netpoly-model/1 forward pass on lists of lists of ring elements;
    `norm` canonicalises an element at the end of each layer (expand for
    SymPy expressions, identity for ring elements)."""

    def __init__(self, zero, scalar, norm):
        self.zero, self.scalar, self.norm = zero, scalar, norm

    def S(self, M):
        return [[self.scalar(w) for w in r] for r in M]

    def full(self, L, X):
        z = self.zero
        t = L["type"]
        N = len(X)
        if t == "attention":
            Y = [[z] * len(X[0]) for _ in range(N)]
            for h in L["heads"]:
                Q, K, V, O = (self.S(h[k]) for k in "QKVO")
                Qx, Kx, Vx = matmul(X, T(Q), z), matmul(X, T(K), z), matmul(X, T(V), z)
                M = matmul(T(Kx), Vx, z)  # da x da: sum_j (K x_j)(V x_j)^T
                Yh = matmul(matmul(Qx, M, z), T(O), z)
                Y = [[a + b for a, b in zip(ra, rb)] for ra, rb in zip(Y, Yh)]
        elif t == "token_mix":
            Z = [[act(v, L["activation"]) for v in r] for r in matmul(self.S(L["W"]), X, z)]
            Y = matmul(self.S(L["W2"]), Z, z) if L["W2"] is not None else Z
        elif t == "channel_mix":
            Z = [[act(v, L["activation"]) for v in r] for r in matmul(X, T(self.S(L["W"])), z)]
            Y = matmul(Z, T(self.S(L["W2"])), z) if L["W2"] is not None else Z
        elif t == "product":
            Ps = [matmul(X, T(self.S(W)), z) for W in L["Ws"]]
            Y = Ps[0]
            for P in Ps[1:]:
                Y = [[a * b for a, b in zip(ra, rb)] for ra, rb in zip(Y, P)]
        elif t == "permute":
            d = len(X[0])
            flat = [v for r in X for v in r]
            Y = [[flat[L["perm"][i * d + c]] for c in range(d)] for i in range(N)]
        if L["residual"]:
            Y = [[a + b for a, b in zip(ra, rb)] for ra, rb in zip(Y, X)]
        return [[self.norm(v) for v in r] for r in Y]

    def entry(self, L, X, i, c):
        """Only Y[i][c] of the last layer."""
        z = self.zero
        t = L["type"]
        col = [r[c] for r in X] if t in ("token_mix",) else None
        if t == "attention":
            y = z
            for h in L["heads"]:
                Q, K, V, O = (self.S(h[k]) for k in "QKVO")
                Kx, Vx = matmul(X, T(K), z), matmul(X, T(V), z)
                s = [dot(vj, O[c], z) for vj in Vx]               # s_j = (O V x_j)[c]
                w = [dot([Kx[j][b] for j in range(len(X))], s, z) for b in range(len(Q))]
                q = [dot(X[i], Q[b], z) for b in range(len(Q))]  # Q x_i
                y = y + dot(q, w, z)
        elif t == "token_mix":
            W = self.S(L["W"])
            if L["W2"] is None:
                y = act(dot(W[i], col, z), L["activation"])
            else:
                Zc = [act(dot(W[k], col, z), L["activation"]) for k in range(len(X))]
                y = dot(self.S(L["W2"])[i], Zc, z)
        elif t == "channel_mix":
            W = self.S(L["W"])
            if L["W2"] is None:
                y = act(dot(X[i], W[c], z), L["activation"])
            else:
                Zi = [act(dot(X[i], W[k], z), L["activation"]) for k in range(len(W))]
                y = dot(Zi, self.S(L["W2"])[c], z)
        elif t == "product":
            y = None
            for W in L["Ws"]:
                f = dot(X[i], self.scalar_row(W[c]), z)
                y = f if y is None else y * f
        elif t == "permute":
            d = len(X[0])
            p = L["perm"][i * d + c]
            y = X[p // d][p % d]
        if L["residual"]:
            y = y + X[i][c]
        return self.norm(y)

    def scalar_row(self, r):
        return [self.scalar(w) for w in r]

    def output(self, model, X):
        for L in model["layers"][:-1]:
            X = self.full(L, X)
        i, c = model["output"]
        return self.entry(model["layers"][-1], X, i, c)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("partition", help="side A: tokens 0,1 | half | interleaved | A=... (netpoly syntax)")
    ap.add_argument("--arith", choices=["ring", "expr"], default="ring")
    ap.add_argument("--rank", choices=["domainmatrix", "matrix"], default="domainmatrix")
    args = ap.parse_args()

    t_start = time.perf_counter()
    import sympy
    from sympy import QQ, ZZ
    from sympy.polys.matrices import DomainMatrix
    try:
        from sympy.external.gmpy import GROUND_TYPES
    except ImportError:  # older SymPy
        from sympy.polys.domains import GROUND_TYPES
    try:
        model = npmodel.load(args.model)
        N, d = model["tokens"], model["width"]
        A = set(npmodel.partition(args.partition, N, d))
    except (npmodel.ModelError, KeyError, ValueError) as e:
        print(f"sympy_seprank: error: {e}", file=sys.stderr)
        return 2
    names = npmodel.var_names(N, d)
    Aidx = [k for k in range(N * d) if k in A]
    Bidx = [k for k in range(N * d) if k not in A]
    integral = all(w.denominator == 1 for w in _weights(model))

    t0, c0 = time.perf_counter(), time.process_time()
    if args.arith == "ring":
        dom = ZZ if integral else QQ
        R, *gens = sympy.ring(",".join(names), dom)
        scalar = (lambda w: dom(w.numerator)) if integral else (lambda w: QQ(w.numerator, w.denominator))
        fw = Forward(R.zero, scalar, lambda v: v)
        X = [gens[i * d:(i + 1) * d] for i in range(N)]
        y = fw.output(model, X)
        terms = y.terms()
        to_qq = (lambda c: QQ(int(c))) if integral else (lambda c: c)
        arith = f"sympy.polys.rings.ring over {dom}"
    else:
        syms = sympy.symbols(names)
        fw = Forward(sympy.Integer(0), lambda w: sympy.Rational(w.numerator, w.denominator), sympy.expand)
        X = [list(syms[i * d:(i + 1) * d]) for i in range(N)]
        y = fw.output(model, X)
        terms = sympy.Poly(y, *syms).terms()
        to_qq = QQ.from_sympy
        arith = "sympy expressions, expand() per layer, Poly(y, *vars).terms()"
    t1 = time.perf_counter()

    rows, cols, entries = {}, {}, {}
    for mon, coef in terms:
        a = tuple(mon[k] for k in Aidx)
        b = tuple(mon[k] for k in Bidx)
        i = rows.setdefault(a, len(rows))
        j = cols.setdefault(b, len(cols))
        entries.setdefault(i, {})[j] = to_qq(coef)
    shape = (len(rows), len(cols))
    tm = time.perf_counter()
    if not terms:
        rank, how = 0, "zero polynomial"
    elif args.rank == "domainmatrix":
        rank = DomainMatrix(entries, shape, QQ).rank()
        how = "DomainMatrix(QQ, sparse SDM).rank()"
    else:
        M = sympy.SparseMatrix(shape[0], shape[1],
                               {(i, j): QQ.to_sympy(v) for i, r in entries.items() for j, v in r.items()})
        rank = M.rank()
        how = "sympy.SparseMatrix.rank()"
    t2, c2 = time.perf_counter(), time.process_time()
    print(json.dumps({"peer": "sympy", "version": sympy.__version__, "python": sys.executable,
                      "ground_types": GROUND_TYPES, "arith": arith, "rank_method": how,
                      "terms": len(terms), "rank": rank, "coefficient_matrix": list(shape),
                      "expand_seconds": round(t1 - t0, 6), "rank_seconds": round(t2 - t1, 6),
                      "matrix_seconds": round(tm - t1, 6), "cpu_seconds": round(c2 - c0, 6),
                      "total_seconds": round(t2 - t_start, 6)}))
    return 0


def _weights(model):
    for L in model["layers"]:
        mats = []
        if L["type"] == "attention":
            mats = [h[k] for h in L["heads"] for k in "QKVO"]
        elif L["type"] in ("token_mix", "channel_mix"):
            mats = [L["W"]] + ([L["W2"]] if L["W2"] is not None else [])
        elif L["type"] == "product":
            mats = L["Ws"]
        for M in mats:
            for r in M:
                yield from r


if __name__ == "__main__":
    sys.exit(main())
