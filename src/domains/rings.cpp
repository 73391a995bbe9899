#include "netpoly/rings.hpp"

#include <algorithm>
#include <immintrin.h>
#include <stdexcept>
#include <cmath>

#include "netpoly/error.hpp"
#include "netpoly/parallel.hpp"
#include "domains/batch_rings.hpp"
#include "domains/structure_rings.hpp"

namespace netpoly {

ModpRing::Scalar ModpRing::scalar(const Fmpq& w) const {
  ulong den = fmpz_fdiv_ui(w.den(), mod.n);
  if (den == 0)
    throw DomainError("weight " + w.str() + " has a denominator divisible by the modulus " +
                      std::to_string(mod.n) + "; choose another prime (--prime for seprank, --modulus for expand)");
  ulong num = fmpz_fdiv_ui(w.num(), mod.n);
  return nmod_mul(num, n_invmod(den, mod.n), mod);
}

ModpRing ModpRing::gaussian(ulong p) {
  if (p % 4 != 1)
    throw InputError("the prime " + std::to_string(p) + " is not 1 mod 4: -1 has no square root mod it, and a "
                     "model with Gaussian weights (a+bi) needs one (choose p = 1 mod 4)");
  ModpRing R(p);
  R.sqrt_m1 = n_sqrtmod(p - 1, p);
  if (nmod_mul(R.sqrt_m1, R.sqrt_m1, R.mod) != p - 1) throw InternalError("n_sqrtmod: no square root of -1 mod " + std::to_string(p));
  return R;
}

ModpRing::Scalar ModpRing::scalar_gauss(const Fmpq& re, const Fmpq& im) const {
  if (im.is_zero()) return scalar(re);
  if (!sqrt_m1)
    throw DomainError("Gaussian weights (a+bi) mod " + std::to_string(mod.n) + ": no square root of -1 was chosen");
  return nmod_add(scalar(re), nmod_mul(sqrt_m1, scalar(im), mod), mod);
}

// ------------------------------------------------------------------ BatchF64Ring
namespace {

#define NETPOLY_AVX2 __attribute__((target("avx2,fma")))

NETPOLY_AVX2 inline double mulmod1(double a, double b, double p, double pinv) {
  const double h = a * b;
  const double l = std::fma(a, b, -h);
  const double q = std::nearbyint(h * pinv);
  const double r = std::fma(-q, p, h) + l;
  return r < 0 ? r + p : r;
}

// a b mod p before its correction: h - q p + l with h = fl(a b), l its
// rounding error (fmsub), q the nearest quotient; exact, in (-p, p).
NETPOLY_AVX2 inline __m256d mulrem4(__m256d a, __m256d b, __m256d p, __m256d pinv) {
  const __m256d h = _mm256_mul_pd(a, b);
  const __m256d l = _mm256_fmsub_pd(a, b, h);
  const __m256d q = _mm256_round_pd(_mm256_mul_pd(h, pinv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm256_add_pd(_mm256_fnmadd_pd(q, p, h), l);
}

NETPOLY_AVX2 inline __m256d mulmod4(__m256d a, __m256d b, __m256d p, __m256d pinv) {
  const __m256d r = mulrem4(a, b, p, pinv);
  return _mm256_add_pd(r, _mm256_and_pd(_mm256_cmp_pd(r, _mm256_setzero_pd(), _CMP_LT_OQ), p));
}

NETPOLY_AVX2 inline __m256d addmod4(__m256d a, __m256d b, __m256d p) {
  const __m256d r = _mm256_add_pd(a, b);
  return _mm256_sub_pd(r, _mm256_and_pd(_mm256_cmp_pd(r, p, _CMP_GE_OQ), p));
}

NETPOLY_AVX2 inline double addmod1(double a, double b, double p) {
  const double r = a + b;
  return r >= p ? r - p : r;
}

// r[i] = f(r[i], x[i], y[i]) four lanes at a time, then the tail.
enum class Op { axpy, add, addmul, mul };

template <Op op>
NETPOLY_AVX2 void f64_loop(double* r, const double* x, const double* y, double s, std::size_t n, double p, double pinv) {
  const __m256d vp = _mm256_set1_pd(p), vpinv = _mm256_set1_pd(pinv), vs = _mm256_set1_pd(s);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d vx = _mm256_loadu_pd(x + i);
    __m256d v;
    if constexpr (op == Op::axpy) v = addmod4(_mm256_loadu_pd(r + i), mulmod4(vs, vx, vp, vpinv), vp);
    else if constexpr (op == Op::add) v = addmod4(_mm256_loadu_pd(r + i), vx, vp);
    else if constexpr (op == Op::addmul) v = addmod4(_mm256_loadu_pd(r + i), mulmod4(vx, _mm256_loadu_pd(y + i), vp, vpinv), vp);
    else v = mulmod4(vx, _mm256_loadu_pd(y + i), vp, vpinv);
    _mm256_storeu_pd(r + i, v);
  }
  for (; i < n; ++i) {
    if constexpr (op == Op::axpy) r[i] = addmod1(r[i], mulmod1(s, x[i], p, pinv), p);
    else if constexpr (op == Op::add) r[i] = addmod1(r[i], x[i], p);
    else if constexpr (op == Op::addmul) r[i] = addmod1(r[i], mulmod1(x[i], y[i], p, pinv), p);
    else r[i] = mulmod1(x[i], y[i], p, pinv);
  }
}

// x mod p for doubles holding integers in (-2^53, 2^53): q = floor(x / p) is
// within one of floor(x pinv) (relative error 2^-52 on a quotient below
// 2^52 in magnitude), the remainder x - q p is exact (fma, and it lies in
// (-p, 2p)), then one correction either way.
NETPOLY_AVX2 inline __m256d reduce4(__m256d x, __m256d p, __m256d pinv) {
  const __m256d q = _mm256_floor_pd(_mm256_mul_pd(x, pinv));
  __m256d r = _mm256_fnmadd_pd(q, p, x);
  r = _mm256_add_pd(r, _mm256_and_pd(_mm256_cmp_pd(r, _mm256_setzero_pd(), _CMP_LT_OQ), p));
  return _mm256_sub_pd(r, _mm256_and_pd(_mm256_cmp_pd(r, p, _CMP_GE_OQ), p));
}

NETPOLY_AVX2 inline double reduce1(double x, double p, double pinv) {
  double r = std::fma(-std::floor(x * pinv), p, x);
  if (r < 0) r += p;
  if (r >= p) r -= p;
  return r;
}

// r[i] += sum_k s[k] (*x[k])[i]: `lazy` >= 2 terms accumulate exactly before a
// reduction (each product below (p-1)^2, the sum below 2^53), else `rem`
// >= 1 products' remainders in (-p, p) do (mulrem4: mulmod4 without its
// correction).
NETPOLY_AVX2 void f64_lincomb(double* r, const double* s, const std::vector<double>* const* x, std::size_t K,
                              std::size_t n, double p, double pinv, std::size_t lazy, std::size_t rem) {
  const __m256d vp = _mm256_set1_pd(p), vpinv = _mm256_set1_pd(pinv);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d acc = _mm256_loadu_pd(r + i);
    if (lazy >= 2) {
      std::size_t c = 0;
      for (std::size_t k = 0; k < K; ++k) {
        acc = _mm256_fmadd_pd(_mm256_set1_pd(s[k]), _mm256_loadu_pd(x[k]->data() + i), acc);
        if (++c == lazy) {
          acc = reduce4(acc, vp, vpinv);
          c = 0;
        }
      }
      acc = reduce4(acc, vp, vpinv);
    } else {
      // Remainders unreduced: each fma(-q, p, h) + l is exact and in (-p, p)
      // (mulmod4 corrects it once), so `rem` of them added to acc in [0, p)
      // stay below 2^53 in magnitude, exact; reduce4 then brings acc back.
      std::size_t c = 0;
      for (std::size_t k = 0; k < K; ++k) {
        acc = _mm256_add_pd(acc, mulrem4(_mm256_set1_pd(s[k]), _mm256_loadu_pd(x[k]->data() + i), vp, vpinv));
        if (++c == rem) {
          acc = reduce4(acc, vp, vpinv);
          c = 0;
        }
      }
      acc = reduce4(acc, vp, vpinv);
    }
    _mm256_storeu_pd(r + i, acc);
  }
  for (; i < n; ++i) {
    double acc = r[i];
    if (lazy >= 2) {
      std::size_t c = 0;
      for (std::size_t k = 0; k < K; ++k) {
        acc = std::fma(s[k], (*x[k])[i], acc);
        if (++c == lazy) {
          acc = reduce1(acc, p, pinv);
          c = 0;
        }
      }
      acc = reduce1(acc, p, pinv);
    } else {
      for (std::size_t k = 0; k < K; ++k) acc = addmod1(acc, mulmod1(s[k], (*x[k])[i], p, pinv), p);
    }
    r[i] = acc;
  }
}

// r[i] += sum_k (*a[k])[i] (*b[k])[i] for lazy >= 2: each product below
// (p-1)^2, `lazy` of them on top of r[i] in [0, p) stay below 2^53, so the
// fma chain is exact and one reduce4 per `lazy` terms brings it back.
NETPOLY_AVX2 void f64_addmuls(double* r, const std::vector<double>* const* a, const std::vector<double>* const* b,
                              std::size_t K, std::size_t n, double p, double pinv, std::size_t lazy) {
  const __m256d vp = _mm256_set1_pd(p), vpinv = _mm256_set1_pd(pinv);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d acc = _mm256_loadu_pd(r + i);
    std::size_t c = 0;
    for (std::size_t k = 0; k < K; ++k) {
      acc = _mm256_fmadd_pd(_mm256_loadu_pd(a[k]->data() + i), _mm256_loadu_pd(b[k]->data() + i), acc);
      if (++c == lazy) {
        acc = reduce4(acc, vp, vpinv);
        c = 0;
      }
    }
    _mm256_storeu_pd(r + i, reduce4(acc, vp, vpinv));
  }
  for (; i < n; ++i) {
    double acc = r[i];
    std::size_t c = 0;
    for (std::size_t k = 0; k < K; ++k) {
      acc = std::fma((*a[k])[i], (*b[k])[i], acc);
      if (++c == lazy) {
        acc = reduce1(acc, p, pinv);
        c = 0;
      }
    }
    r[i] = reduce1(acc, p, pinv);
  }
}

// (p - 1)^2 and 2^53 - p are exact in long double's 64-bit mantissa for p < 2^32;
// larger primes leave no room (0).
std::size_t lazy_terms_for(double p) {
  if (p >= 0x1p32) return 0;
  const long double m = static_cast<long double>(p) - 1, room = 0x1p53L - static_cast<long double>(p);
  const long double c = std::floor(room / (m * m));
  return c > 0x1p20L ? std::size_t{1} << 20 : static_cast<std::size_t>(c);
}

// acc in [0, p) plus c remainders in (-p, p): |acc| < (c + 1) p <= 2^53.
std::size_t remainder_terms_for(double p) {
  const long double c = std::floor(0x1p53L / static_cast<long double>(p)) - 1;
  return c > 0x1p20L ? std::size_t{1} << 20 : static_cast<std::size_t>(c);
}

}  // namespace

void BatchF64Ring::lincomb(Elem& r, const std::vector<Scalar>& s, const std::vector<const Elem*>& x) const {
  f64_lincomb(r.data(), s.data(), x.data(), x.size(), batch, p, pinv, lazy_, rem_);
}

void BatchF64Ring::addmuls(Elem& r, const std::vector<const Elem*>& a, const std::vector<const Elem*>& b) const {
  if (lazy_ < 2) {
    for (std::size_t k = 0; k < a.size(); ++k) addmul(r, *a[k], *b[k]);
    return;
  }
  f64_addmuls(r.data(), a.data(), b.data(), a.size(), batch, p, pinv, lazy_);
}

BatchF64Ring::BatchF64Ring(ulong prime, std::size_t n) : p(static_cast<double>(prime)), pinv(1.0 / static_cast<double>(prime)), batch(n) {
  if (prime < 3 || prime >= kMaxPrime) throw InternalError("BatchF64Ring: the prime must be below 2^50");
  lazy_ = lazy_terms_for(p);
  rem_ = remainder_terms_for(p);
}

bool BatchF64Ring::supported() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}

BatchF64Ring::Scalar BatchF64Ring::scalar(const Fmpq& w) const {
  return static_cast<double>(ModpRing(static_cast<ulong>(p)).scalar(w));
}

void BatchF64Ring::axpy(Elem& r, Scalar s, const Elem& x) const { f64_loop<Op::axpy>(r.data(), x.data(), nullptr, s, batch, p, pinv); }
void BatchF64Ring::add(Elem& r, const Elem& x) const { f64_loop<Op::add>(r.data(), x.data(), nullptr, 0, batch, p, pinv); }
void BatchF64Ring::addmul(Elem& r, const Elem& a, const Elem& b) const {
  f64_loop<Op::addmul>(r.data(), a.data(), b.data(), 0, batch, p, pinv);
}
BatchF64Ring::Elem BatchF64Ring::mul(const Elem& a, const Elem& b) const {
  Elem r(batch);
  f64_loop<Op::mul>(r.data(), a.data(), b.data(), 0, batch, p, pinv);
  return r;
}

// ------------------------------------------------------------------ PolyRing
PolyRing::Elem PolyRing::terms(const Elem& p, slong lo, slong hi) const {
  FmpqMpoly t(ctx);
  const fmpz_mpoly_struct* z = p.get()->zpoly;
  fmpz_mpoly_struct* tz = t.get()->zpoly;
  const fmpz_mpoly_ctx_struct* zc = ctx->get()->zctx;
  const slong n = hi - lo, N = static_cast<slong>(mpoly_words_per_exp(z->bits, zc->minfo));
  if (n <= 0) return t;
  fmpz_mpoly_fit_length_reset_bits(tz, n, z->bits, zc);
  for (slong i = 0; i < n; ++i) fmpz_set(tz->coeffs + i, z->coeffs + lo + i);
  std::copy(z->exps + N * lo, z->exps + N * hi, tz->exps);
  _fmpz_mpoly_set_length(tz, n, zc);
  fmpq_set(t.get()->content, p.get()->content);
  fmpq_mpoly_reduce(t.get(), ctx->get());  // a range of a sorted polynomial is sorted; make it primitive
  return t;
}

bool PolyRing::dot_balanced(Elem& r, const std::vector<const Elem*>& a, const std::vector<const Elem*>& b) const {
  const std::size_t n = std::min(a.size(), b.size()), T = thread_count();
  std::vector<double> cost(n);
  double total = 0;
  bool big = false;
  for (std::size_t k = 0; k < n; ++k) {
    cost[k] = static_cast<double>(a[k]->length()) * static_cast<double>(b[k]->length());
    total += cost[k];
    big = big || threads_itself(*a[k], *b[k]);
  }
  // Declined (forward.hpp's dot then runs whole products as tasks): one
  // thread; products FLINT threads itself; below 2^12 pairs per thread (as
  // worth_threads); and products that divide evenly among the threads, which
  // side by side already share them evenly (cutting would add a sum of parts
  // per thread, and a sum of large fmpq_mpolys with different contents costs
  // a rescaling: measured slower on attn(2,4,2,4)).
  if (T < 2 || n == 0 || big || total < 0x1p12 * static_cast<double>(T) || n % T == 0) return false;
  // Thread t takes the pairs in [t, t+1) * total / T of the products laid end to end.
  struct Piece {
    std::size_t k;
    slong lo, hi;  // terms of the longer factor
  };
  std::vector<std::vector<Piece>> share(T);
  double start = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (cost[k] == 0) continue;
    const slong len = std::max(a[k]->length(), b[k]->length());
    auto at = [&](double x) {  // term of the longer factor at position x on the line
      const double f = std::clamp((x - start) / cost[k], 0.0, 1.0);
      return std::clamp(static_cast<slong>(std::llround(f * static_cast<double>(len))), slong(0), len);
    };
    for (std::size_t t = 0; t < T; ++t) {
      const slong lo = at(total * static_cast<double>(t) / static_cast<double>(T));
      const slong hi = t + 1 == T ? len : at(total * static_cast<double>(t + 1) / static_cast<double>(T));
      if (lo < hi) share[t].push_back({k, lo, hi});
    }
    start += cost[k];
  }
  std::vector<Elem> part(T, zero());
  parallel_for(T, [&](std::size_t t) {
    for (const Piece& pc : share[t]) {
      const Elem& x = *a[pc.k];
      const Elem& y = *b[pc.k];
      const bool a_longer = x.length() >= y.length();
      const slong len = a_longer ? x.length() : y.length();
      if (pc.lo == 0 && pc.hi == len) add(part[t], mul(x, y));
      else if (a_longer) add(part[t], mul(terms(x, pc.lo, pc.hi), y));
      else add(part[t], mul(x, terms(y, pc.lo, pc.hi)));
    }
  });
  for (auto& p : part) add(r, std::move(p));
  return true;
}

// ------------------------------------------------------------------ SupportRing
std::size_t SupportRing::Elem::max_b() const {
  std::size_t m = 0;
  for (const auto& row : rows)
    for (std::size_t w = row.size(); w-- > 0;)
      if (row[w]) {
        m = std::max<std::size_t>(m, 64 * w + 63 - static_cast<std::size_t>(__builtin_clzll(row[w])));
        break;
      }
  return m;
}

SupportRing::Elem SupportRing::monomial(std::size_t a, std::size_t b) {
  Elem e;
  e.rows.resize(a + 1);
  e.rows[a].assign(b / 64 + 1, 0);
  e.rows[a][b / 64] = std::uint64_t{1} << (b % 64);
  return e;
}

void SupportRing::add(Elem& r, const Elem& x) const {
  if (x.rows.size() > r.rows.size()) r.rows.resize(x.rows.size());
  for (std::size_t a = 0; a < x.rows.size(); ++a) {
    const auto& src = x.rows[a];
    auto& dst = r.rows[a];
    if (src.size() > dst.size()) dst.resize(src.size(), 0);
    for (std::size_t w = 0; w < src.size(); ++w) dst[w] |= src[w];
  }
}

SupportRing::Elem SupportRing::mul(const Elem& x, const Elem& y) const {
  if (x.empty() || y.empty()) return {};
  const std::size_t rows = x.rows.size() + y.rows.size() - 1;
  const std::size_t bmax = x.max_b() + y.max_b();
  if (std::max(rows - 1, bmax) > max_degree)
    throw TooCostly("degrees above " + std::to_string(max_degree) + " make the bidegree sets too costly");
  const std::size_t words = bmax / 64 + 1;
  std::size_t xbits = 0;
  for (const auto& row : x.rows)
    for (auto w : row) xbits += static_cast<std::size_t>(__builtin_popcountll(w));
  work += static_cast<double>(xbits) * static_cast<double>(y.rows.size()) * static_cast<double>(words);
  if (work > max_work)
    throw TooCostly("the bidegree sets need more than " + std::to_string(static_cast<long long>(max_work)) +
                    " word operations");
  Elem r;
  r.rows.assign(rows, {});
  for (std::size_t a1 = 0; a1 < x.rows.size(); ++a1)
    for (std::size_t w1 = 0; w1 < x.rows[a1].size(); ++w1)
      for (std::uint64_t bits = x.rows[a1][w1]; bits; bits &= bits - 1) {
        const std::size_t b1 = 64 * w1 + static_cast<std::size_t>(__builtin_ctzll(bits));
        const std::size_t ws = b1 / 64, bs = b1 % 64;
        for (std::size_t a2 = 0; a2 < y.rows.size(); ++a2) {
          const auto& src = y.rows[a2];
          if (src.empty()) continue;
          auto& dst = r.rows[a1 + a2];
          if (dst.empty()) dst.assign(words, 0);
          for (std::size_t k = 0; k < src.size() && k + ws < words; ++k) {
            dst[k + ws] |= src[k] << bs;
            if (bs && k + ws + 1 < words) dst[k + ws + 1] |= src[k] >> (64 - bs);
          }
        }
      }
  return r;
}

}  // namespace netpoly
