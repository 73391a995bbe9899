// The black-box's batch rings (internal): one value a lane, n points at once,
// mod a prime (BatchModpRing) or in doubles (BatchF64Ring); the same Ring
// interface as the public number domains (netpoly/rings.hpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "netpoly/rings.hpp"

#include <flint/nmod_vec.h>

namespace netpoly {

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

}  // namespace netpoly
