// The analysis rings (internal): a network run over them gives structure,
// not values: which monomials can appear (PatternRing, SupportRing,
// TokenDegreeRing), degree bounds (DegreeRing) and coefficient heights
// (HeightRing), for the structural bounds and the black-box's failure bound.
// The same Ring interface as the public number domains (netpoly/rings.hpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "netpoly/rings.hpp"

#include <flint/nmod_vec.h>

namespace netpoly {

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
// monomials). It feeds the structural `support` upper bound (analysis/engines/support.cpp),
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

}  // namespace netpoly
