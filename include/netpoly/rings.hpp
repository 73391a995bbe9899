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
