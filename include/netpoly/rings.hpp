// The number domains a network runs over. Each Ring is an explicit context
// (like a FLINT ctx) with the same small interface, so the layer code in
// forward.hpp is written once:
//
//   Elem, Scalar            value type and weight type
//   Scalar scalar(w)        convert an exact weight (throws DomainError if impossible)
//   bool   is_zero(s)       skip zero weights
//   Elem   zero()
//   Elem   one()            the constant 1 (a bias adds b * one(): a degree-0 term)
//   void   axpy(r, s, x)    r += s * x        (scalar times element: cheap)
//   void   add(r, x)        r += x
//   void   addmul(r, a, b)  r += a * b        (element product: the costly one)
//   Elem   mul(a, b)
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "netpoly/error.hpp"
#include "netpoly/flint.hpp"

#include <flint/nmod_vec.h>

namespace netpoly {

// Exact rationals (fmpq): exact evaluation at rational points.
struct RationalRing {
  using Elem = Fmpq;
  using Scalar = Fmpq;
  Scalar scalar(const Fmpq& w) const { return w; }
  bool is_zero(const Scalar& s) const { return s.is_zero(); }
  Elem zero() const { return Fmpq(); }
  Elem one() const { return Fmpq(1); }
  void axpy(Elem& r, const Scalar& s, const Elem& x) const { fmpq_addmul(r.get(), s.get(), x.get()); }
  void add(Elem& r, const Elem& x) const { fmpq_add(r.get(), r.get(), x.get()); }
  void addmul(Elem& r, const Elem& a, const Elem& b) const { fmpq_addmul(r.get(), a.get(), b.get()); }
  Elem mul(const Elem& a, const Elem& b) const {
    Fmpq r;
    fmpq_mul(r.get(), a.get(), b.get());
    return r;
  }
};

// Integers mod a word-size prime p (nmod): fast exact evaluation mod p.
struct ModpRing {
  using Elem = ulong;
  using Scalar = ulong;
  nmod_t mod;
  // A square root of -1 mod p (p = 1 mod 4; 0: none): Gaussian weights a + bi
  // map to a + sqrt_m1 b, the reduction of Z[i] modulo a prime ideal over p.
  ulong sqrt_m1 = 0;
  explicit ModpRing(ulong p) { nmod_init(&mod, p); }
  // The ring with i = a square root of -1; throws InputError unless p = 1 mod 4.
  static ModpRing gaussian(ulong p);
  ulong modulus() const { return mod.n; }
  Scalar scalar(const Fmpq& w) const;  // throws DomainError when p divides the denominator
  Scalar scalar_gauss(const Fmpq& re, const Fmpq& im) const;  // DomainError without sqrt_m1
  Scalar from_fmpz(const Fmpz& z) const { return fmpz_fdiv_ui(z.get(), mod.n); }
  bool is_zero(Scalar s) const { return s == 0; }
  Elem zero() const { return 0; }
  Elem one() const { return 1; }
  void axpy(Elem& r, Scalar s, Elem x) const { r = nmod_add(r, nmod_mul(s, x, mod), mod); }
  void add(Elem& r, Elem x) const { r = nmod_add(r, x, mod); }
  void addmul(Elem& r, Elem a, Elem b) const { r = nmod_add(r, nmod_mul(a, b, mod), mod); }
  Elem mul(Elem a, Elem b) const { return nmod_mul(a, b, mod); }
};

// A batch of evaluations mod p at once: an element holds one residue per
// point. The forward pass runs once per batch, and every operation is a
// vector loop (FLINT's _nmod_vec routines), which amortises the per-layer
// overhead over many points (black-box and grid ranks).
struct BatchModpRing {
  using Elem = std::vector<ulong>;
  using Scalar = ulong;
  nmod_t mod;
  std::size_t batch;
  BatchModpRing(ulong p, std::size_t n) : batch(n) { nmod_init(&mod, p); }
  Scalar scalar(const Fmpq& w) const { return ModpRing(mod.n).scalar(w); }
  bool is_zero(Scalar s) const { return s == 0; }
  Elem zero() const { return Elem(batch, 0); }
  Elem one() const { return Elem(batch, 1); }
  Elem constant(ulong c) const { return Elem(batch, c); }
  void axpy(Elem& r, Scalar s, const Elem& x) const {
    _nmod_vec_scalar_addmul_nmod(r.data(), x.data(), static_cast<slong>(batch), s, mod);
  }
  void add(Elem& r, const Elem& x) const { _nmod_vec_add(r.data(), r.data(), x.data(), static_cast<slong>(batch), mod); }
  void addmul(Elem& r, const Elem& a, const Elem& b) const {
    for (std::size_t i = 0; i < batch; ++i) r[i] = nmod_addmul(r[i], a[i], b[i], mod);
  }
  Elem mul(const Elem& a, const Elem& b) const {
    Elem r(batch);
    for (std::size_t i = 0; i < batch; ++i) r[i] = nmod_mul(a[i], b[i], mod);
    return r;
  }
};

// The same batches with the residues held exactly in doubles, for primes
// p < 2^50, so each operation is a vector loop of AVX2/FMA instructions (4
// residues at a time): a b mod p as h = a b rounded, l = fma(a, b, -h)
// (exact: a b = h + l), q = rint(h / p), r = (h - q p) + l, plus p when
// negative. Every step after h is exact; q is within 0.875 of a b / p (three
// roundings of relative error 2^-53 on a value below 2^50), so r lies in
// (-p, p) before the correction. Only for CPUs with AVX2 and FMA
// (batch_f64_supported()); the black-box falls back to BatchModpRing elsewhere.
struct BatchF64Ring {
  using Elem = std::vector<double>;
  using Scalar = double;
  static constexpr ulong kMaxPrime = UWORD(1) << 50;
  double p, pinv;
  std::size_t batch;
  BatchF64Ring(ulong prime, std::size_t n);  // throws std::invalid_argument unless prime < 2^50
  static bool supported();                   // the CPU has AVX2 and FMA
  Scalar scalar(const Fmpq& w) const;
  bool is_zero(Scalar s) const { return s == 0; }
  Elem zero() const { return Elem(batch, 0.0); }
  Elem one() const { return Elem(batch, 1.0); }
  Elem constant(ulong c) const { return Elem(batch, static_cast<double>(c)); }
  void axpy(Elem& r, Scalar s, const Elem& x) const;
  void add(Elem& r, const Elem& x) const;
  void addmul(Elem& r, const Elem& a, const Elem& b) const;
  Elem mul(const Elem& a, const Elem& b) const;
  // r += sum_k s[k] x[k] in one pass over the batch (layers' linear maps,
  // detail::lin_row). For primes small enough that c products of residues
  // fit below 2^53 (c = lazy_terms() >= 2: p below about 2^26) the sums are
  // exact in doubles and reduced once per c terms; otherwise each product is
  // brought into (-p, p) without a correction, and remainder_terms() of those
  // add exactly before one reduction. Either way the result equals the axpy
  // loop's.
  void lincomb(Elem& r, const std::vector<Scalar>& s, const std::vector<const Elem*>& x) const;
  // r += sum_k a[k] b[k] elementwise in one pass (attention's products,
  // detail::addmuls): for lazy_terms() >= 2 the products add exactly in
  // doubles and are reduced once per lazy_terms() of them; otherwise term by
  // term as addmul. Either way the result equals the addmul loop's.
  void addmuls(Elem& r, const std::vector<const Elem*>& a, const std::vector<const Elem*>& b) const;
  std::size_t lazy_terms() const { return lazy_; }      // (2^53 - p) / (p - 1)^2, at most 2^20
  std::size_t remainder_terms() const { return rem_; }  // 2^53 / p - 1 (at least 7 below 2^50), at most 2^20

 private:
  std::size_t lazy_ = 0, rem_ = 1;  // set once by the constructor
};

// Doubles: numeric evaluation (estimates only).
struct DoubleRing {
  using Elem = double;
  using Scalar = double;
  Scalar scalar(const Fmpq& w) const { return w.to_double(); }
  bool is_zero(Scalar s) const { return s == 0.0; }
  Elem zero() const { return 0.0; }
  Elem one() const { return 1.0; }
  void axpy(Elem& r, Scalar s, Elem x) const { r += s * x; }
  void add(Elem& r, Elem x) const { r += x; }
  void addmul(Elem& r, Elem a, Elem b) const { r += a * b; }
  Elem mul(Elem a, Elem b) const { return a * b; }
};

// The rings below track only which monomials can appear: a weight matters
// only by being nonzero, and their sets can grow too costly (TooCostly).
struct PatternRing {
  using Scalar = unsigned char;  // 1 when the weight is nonzero (not bool: Mat stores a std::vector)
  struct TooCostly : LimitError {
    using LimitError::LimitError;
  };
  Scalar scalar(const Fmpq& w) const { return !w.is_zero(); }
  Scalar scalar_gauss(const Fmpq& re, const Fmpq& im) const { return !re.is_zero() || !im.is_zero(); }
  bool is_zero(Scalar s) const { return !s; }
};

// Bidegree supports: the set of (a, b) = (degree in the side-A variables,
// degree in the side-B variables) over the monomials a value may contain.
// Sums take unions and products Minkowski sums, so the result is a superset
// of the bidegrees of the true polynomial (cancellation can only remove
// monomials). It feeds the structural `support` upper bound (seprank.cpp),
// which needs no expansion. An element is a list of rows, row a being a
// bitset over b; no rows means the zero polynomial.
struct SupportRing : PatternRing {
  struct Elem {
    std::vector<std::vector<std::uint64_t>> rows;
    bool empty() const { return rows.empty(); }
    bool test(std::size_t a, std::size_t b) const {
      return a < rows.size() && b / 64 < rows[a].size() && ((rows[a][b / 64] >> (b % 64)) & 1U);
    }
    std::size_t max_b() const;  // largest b present (0 if empty)
  };
  // Beyond these (a degree, or word operations in all products so far) the
  // sets are too costly: mul throws TooCostly.
  std::size_t max_degree = 1 << 14;
  double max_work = 2e9;
  mutable double work = 0;
  Elem zero() const { return {}; }
  Elem one() const { return monomial(0, 0); }  // the bidegree (0, 0)
  static Elem monomial(std::size_t a, std::size_t b);
  void axpy(Elem& r, Scalar s, const Elem& x) const {
    if (s) add(r, x);
  }
  void add(Elem& r, const Elem& x) const;
  void addmul(Elem& r, const Elem& a, const Elem& b) const { add(r, mul(a, b)); }
  Elem mul(const Elem& a, const Elem& b) const;
};

// Bounds on total degree (-1 for zero). A forward pass over it bounds the
// degree of every polynomial the expansion computes, intermediates included
// (max_seen): what expand() needs before packing several variables into one
// exponent field, where an exponent reaching the base would carry silently.
struct DegreeRing {
  using Elem = long;
  using Scalar = int;  // whether the weight is nonzero
  static constexpr long kCap = long{1} << 62;  // saturates (expansions stop far below)
  mutable long max_seen = 0;
  Scalar scalar(const Fmpq& w) const { return w.is_zero() ? 0 : 1; }
  Scalar scalar_gauss(const Fmpq& re, const Fmpq& im) const { return re.is_zero() && im.is_zero() ? 0 : 1; }
  bool is_zero(Scalar s) const { return s == 0; }
  Elem zero() const { return -1; }
  Elem one() const { return 0; }
  void axpy(Elem& r, Scalar s, Elem x) const {
    if (s) add(r, x);
  }
  void add(Elem& r, Elem x) const { r = seen(std::max(r, x)); }
  Elem mul(Elem a, Elem b) const { return seen(a < 0 || b < 0 ? -1 : a > kCap - b ? kCap : a + b); }
  void addmul(Elem& r, Elem a, Elem b) const { add(r, mul(a, b)); }

 private:
  Elem seen(Elem d) const {
    max_seen = std::max(max_seen, d);
    return d;
  }
};

// Bounds on coefficient size, as base-2 logarithms: an element stands for a
// polynomial f = g / delta with g integral, ||g||_1 <= 2^h and the integer
// delta <= 2^d a product of weight denominators. Sums: (g1 delta2 + g2 delta1)
// / (delta1 delta2); products multiply both. A forward pass over it bounds
// every coefficient of the output after clearing denominators by 2^h (the
// black-box's chance that its random prime divides a minor depends on it).
// Every operation rounds up, so the bounds stay bounds in floating point.
struct HeightRing {
  struct Elem {
    double h = -HUGE_VAL;  // -inf: the zero polynomial
    double d = 0;
  };
  using Scalar = Elem;
  Scalar scalar(const Fmpq& w) const {
    if (w.is_zero()) return {};
    return {log2_up(w.num()), log2_up(w.den())};
  }
  // a + bi = (p1 q2 + p2 q1 i) / (q1 q2): the l1 norm of the numerator is at
  // most |p1| q2 + |p2| q1 (a Gaussian model's realified coefficients obey it).
  Scalar scalar_gauss(const Fmpq& re, const Fmpq& im) const {
    if (im.is_zero()) return scalar(re);
    if (re.is_zero()) return scalar(im);
    Fmpz a, b;
    fmpz_mul(a.get(), re.num(), im.den());
    fmpz_abs(a.get(), a.get());
    fmpz_mul(b.get(), im.num(), re.den());
    fmpz_abs(b.get(), b.get());
    fmpz_add(a.get(), a.get(), b.get());
    fmpz_mul(b.get(), re.den(), im.den());
    return {log2_up(a.get()), log2_up(b.get())};
  }
  // An upper bound on log2|z| (z != 0): exact below 2^53 (then rounded up), else the bit count.
  static double log2_up(const fmpz_t z) {
    const flint_bitcnt_t bits = fmpz_bits(z);
    if (bits <= 53) return up(std::log2(std::fabs(static_cast<double>(fmpz_get_si(z)))));
    return static_cast<double>(bits);
  }
  bool is_zero(const Scalar& s) const { return s.h == -HUGE_VAL; }
  Elem zero() const { return {}; }
  Elem one() const { return {0, 0}; }  // 1 = 1 / 1
  static double up(double x) { return x + 1e-9 * (1 + std::fabs(x)); }
  void add(Elem& r, const Elem& x) const {
    if (x.h == -HUGE_VAL) return;
    if (r.h == -HUGE_VAL) {
      r = x;
      return;
    }
    const double a = r.h + x.d, b = x.h + r.d, hi = std::max(a, b), lo = std::min(a, b);
    r.h = up(hi + std::log2(1 + std::exp2(lo - hi)));
    r.d = up(r.d + x.d);
  }
  Elem mul(const Elem& a, const Elem& b) const {
    if (a.h == -HUGE_VAL || b.h == -HUGE_VAL) return {};
    return {up(a.h + b.h), up(a.d + b.d)};
  }
  void axpy(Elem& r, const Scalar& s, const Elem& x) const { add(r, mul(s, x)); }
  void addmul(Elem& r, const Elem& a, const Elem& b) const { add(r, mul(a, b)); }
};

// Token-degree supports: the set of vectors (degree in token 0's variables,
// ..., degree in token N-1's) over the monomials a value may contain. Sums
// take unions, products Minkowski sums (a superset of the true polynomial's
// vectors, as for SupportRing). A vector v stands for at most
// prod_t binom(v_t + d - 1, d - 1) monomials, so a forward pass bounds the
// number of terms an expansion can have, far below "every monomial of the
// degree" (attention (2,4,2,6): 1,159,920, the exact count, against 2.8e7).
// Beyond `max_work` vector operations mul throws TooCostly.
struct TokenDegreeRing : PatternRing {
  using Vec = std::vector<std::uint32_t>;
  using Elem = std::vector<Vec>;  // sorted, unique; empty: the zero polynomial
  double max_work = 4e6;
  mutable double work = 0;
  std::size_t tokens = 0;  // the length of the vectors (one() is the zero vector)
  Elem zero() const { return {}; }
  Elem one() const { return {Vec(tokens, 0)}; }
  void add(Elem& r, const Elem& x) const {
    if (x.empty()) return;
    Elem u;
    u.reserve(r.size() + x.size());
    std::set_union(r.begin(), r.end(), x.begin(), x.end(), std::back_inserter(u));
    r = std::move(u);
  }
  Elem mul(const Elem& a, const Elem& b) const {
    work += static_cast<double>(a.size()) * static_cast<double>(b.size());
    if (work > max_work) throw TooCostly("token-degree sets too large");
    Elem r;
    r.reserve(a.size() * b.size());
    for (const auto& u : a)
      for (const auto& v : b) {
        Vec w(u.size());
        for (std::size_t k = 0; k < u.size(); ++k) w[k] = u[k] + v[k];
        r.push_back(std::move(w));
      }
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    return r;
  }
  void axpy(Elem& r, Scalar s, const Elem& x) const {
    if (s) add(r, x);
  }
  void addmul(Elem& r, const Elem& a, const Elem& b) const { add(r, mul(a, b)); }
};

// Exact polynomials over Q in the N*d input variables (fmpq_mpoly; the
// product delegates to FLINT's threaded fmpz_mpoly_mul).
// Polled after every product of an expansion (PolyRing::mul), on any of its
// threads: it may throw (LimitError near the memory limit, Interrupted) to
// stop the expansion between two products, and it shows progress
// (expansion_watch, expand.hpp).
struct ProductWatch {
  virtual ~ProductWatch() = default;
  virtual void after_product(slong terms) const = 0;
};

struct PolyRing {
  using Elem = FmpqMpoly;
  using Scalar = Fmpq;
  static constexpr bool parallel = true;  // forward.hpp: independent products on several threads
  // FLINT's own threads pay off beyond about 2^25 term pairs (measured:
  // 65,428 x 1,612 terms, 0.79 s on two threads vs 1.4 s on one; below
  // 7e6 pairs two products side by side are faster).
  static bool threads_itself_len(slong a, slong b) { return static_cast<double>(a) * static_cast<double>(b) >= 0x1p25; }
  static bool threads_itself(const Elem& a, const Elem& b) { return threads_itself_len(a.length(), b.length()); }
  // Below about 2^12 term pairs a product takes less than starting a thread.
  static bool worth_threads_len(slong a, slong b) { return static_cast<double>(a) * static_cast<double>(b) >= 0x1p12; }
  static bool worth_threads(const Elem& a, const Elem& b) { return worth_threads_len(a.length(), b.length()); }
  FmpqMpolyCtxPtr ctx;
  std::shared_ptr<const ProductWatch> watch;  // none: products are not watched
  explicit PolyRing(slong nvars, ordering_t ord = kOrder) : ctx(std::make_shared<FmpqMpolyCtx>(nvars, ord)) {}
  explicit PolyRing(FmpqMpolyCtxPtr c) : ctx(std::move(c)) {}  // polynomials of an existing context
  Scalar scalar(const Fmpq& w) const { return w; }
  bool is_zero(const Scalar& s) const { return s.is_zero(); }
  Elem zero() const { return FmpqMpoly(ctx); }
  Elem one() const {
    FmpqMpoly c(ctx);
    fmpq_mpoly_one(c.get(), ctx->get());
    return c;
  }
  Elem gen(slong v) const {
    FmpqMpoly g(ctx);
    fmpq_mpoly_gen(g.get(), v, ctx->get());
    return g;
  }
  // Accumulating into a zero r takes the summand over (a swap) instead of
  // copying it: FLINT's add copies when one side is zero, and the first
  // summand of every sum in the forward pass lands on a zero.
  void axpy(Elem& r, const Scalar& s, const Elem& x) const {
    FmpqMpoly t(ctx);
    fmpq_mpoly_scalar_mul_fmpq(t.get(), x.get(), s.get(), ctx->get());
    add(r, std::move(t));
  }
  void add(Elem& r, const Elem& x) const { fmpq_mpoly_add(r.get(), r.get(), x.get(), ctx->get()); }
  void add(Elem& r, Elem&& x) const {
    if (fmpq_mpoly_is_zero(r.get(), ctx->get())) fmpq_mpoly_swap(r.get(), x.get(), ctx->get());
    else fmpq_mpoly_add(r.get(), r.get(), x.get(), ctx->get());
  }
  void addmul(Elem& r, const Elem& a, const Elem& b) const { add(r, mul(a, b)); }
  Elem mul(const Elem& a, const Elem& b) const {
    FmpqMpoly t(ctx);
    fmpq_mpoly_mul(t.get(), a.get(), b.get(), ctx->get());
    if (watch) watch->after_product(t.length());
    return t;
  }
  // r += sum_k a[k] b[k] (forward.hpp's dot) when the products do not divide
  // evenly among thread_count() threads: each thread gets an equal share of
  // the term pairs, the products being laid end to end and cut into equal
  // parts, a product on a cut split by the terms of its longer factor (three
  // equal products on two threads then take 1.5 times one product, not 2).
  // Returns false, touching nothing, where whole products side by side do as
  // well (see rings.cpp); forward.hpp's dot then runs them so.
  bool dot_balanced(Elem& r, const std::vector<const Elem*>& a, const std::vector<const Elem*>& b) const;
  // Terms lo..hi-1 of p (a canonical polynomial again).
  Elem terms(const Elem& p, slong lo, slong hi) const;
};

// Polynomials mod p (nmod_mpoly): modular expansion where only ranks are needed.
struct ModPolyRing {
  using Elem = NmodMpoly;
  using Scalar = ulong;
  static constexpr bool parallel = true;
  static bool threads_itself(const Elem& a, const Elem& b) { return PolyRing::threads_itself_len(a.length(), b.length()); }
  static bool worth_threads(const Elem& a, const Elem& b) { return PolyRing::worth_threads_len(a.length(), b.length()); }
  NmodMpolyCtxPtr ctx;
  ModpRing base;
  std::shared_ptr<const ProductWatch> watch;  // as PolyRing's (expand --modulus shows progress)
  ModPolyRing(slong nvars, ulong p) : ctx(std::make_shared<NmodMpolyCtx>(nvars, p)), base(p) {}
  Scalar scalar(const Fmpq& w) const { return base.scalar(w); }
  bool is_zero(Scalar s) const { return s == 0; }
  Elem zero() const { return NmodMpoly(ctx); }
  Elem one() const {
    NmodMpoly c(ctx);
    nmod_mpoly_one(c.get(), ctx->get());
    return c;
  }
  Elem gen(slong v) const {
    NmodMpoly g(ctx);
    nmod_mpoly_gen(g.get(), v, ctx->get());
    return g;
  }
  // As PolyRing: a zero r takes the summand over.
  void axpy(Elem& r, Scalar s, const Elem& x) const {
    NmodMpoly t(ctx);
    nmod_mpoly_scalar_mul_ui(t.get(), x.get(), s, ctx->get());
    add(r, std::move(t));
  }
  void add(Elem& r, const Elem& x) const { nmod_mpoly_add(r.get(), r.get(), x.get(), ctx->get()); }
  void add(Elem& r, Elem&& x) const {
    if (nmod_mpoly_is_zero(r.get(), ctx->get())) nmod_mpoly_swap(r.get(), x.get(), ctx->get());
    else nmod_mpoly_add(r.get(), r.get(), x.get(), ctx->get());
  }
  void addmul(Elem& r, const Elem& a, const Elem& b) const { add(r, mul(a, b)); }
  Elem mul(const Elem& a, const Elem& b) const {
    NmodMpoly t(ctx);
    nmod_mpoly_mul(t.get(), a.get(), b.get(), ctx->get());
    if (watch) watch->after_product(t.length());
    return t;
  }
};

}  // namespace netpoly
