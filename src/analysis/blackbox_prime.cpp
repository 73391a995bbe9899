#include "netpoly/blackbox_prime.hpp"

#include <cmath>
#include <cstdio>

#include "netpoly/error.hpp"
#include "netpoly/forward.hpp"
#include "netpoly/random.hpp"
#include "netpoly/rings.hpp"

namespace netpoly {

namespace {

constexpr ulong kLow = UWORD(1) << 49;  // the range is [2^49, 2^50): residues exact in doubles (BatchF64Ring)

std::string fmt_g(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

}  // namespace

BlackboxPrime draw_blackbox_prime(const Model& m, std::uint64_t seed, ulong fixed_prime) {
  BlackboxPrime bp;
  bp.seed = seed;
  bp.gauss = m.gaussian();
  if (fixed_prime) {
    if (bp.gauss) (void)ModpRing::gaussian(fixed_prime);  // InputError unless p = 1 mod 4
    bp.p = fixed_prime;
    bp.fixed = true;
    return bp;
  }
  SplitMix64 g(seed ^ 0x7a11d0b1e5ULL);
  for (;;) {
    const ulong q = (kLow + g.below(kLow)) | 1;
    if ((bp.gauss && q % 4 != 1) || !n_is_prime(q)) continue;
    try {
      // every denominator invertible mod q
      if (bp.gauss) (void)prepare(ModpRing::gaussian(q), m);
      else (void)prepare(ModpRing(q), m);
    } catch (const DomainError&) {
      continue;
    }
    bp.p = q;
    return bp;
  }
}

ulong draw_small_prime(const Model& m, std::uint64_t seed) {
  constexpr ulong lo = UWORD(1) << 22;
  SplitMix64 g(seed ^ 0x5a11ca11ULL);
  for (;;) {
    const ulong q = (lo + g.below(lo)) | 1;
    if (q % 120 != 1 || !n_is_prime(q)) continue;  // 1 mod 4 (Gaussian), m-th roots for m | 120
    try {
      if (m.gaussian()) (void)prepare(ModpRing::gaussian(q), m);
      else (void)prepare(ModpRing(q), m);
    } catch (const DomainError&) {
      continue;
    }
    return q;
  }
}

std::string small_prime_text(ulong q, std::uint64_t seed) {
  return "q = " + std::to_string(q) + ", a prime = 1 mod 120 drawn at random from [2^22, 2^23) with seed " +
         std::to_string(seed);
}

// Dusart: pi(x) >= x/ln x (1 + 1/ln x) (x >= 599) and
// pi(x) <= x/ln x (1 + 1/ln x + 2.51/ln^2 x) (x >= 355991): about 1.63e13
// (the true count is about 1.64e13).
double blackbox_prime_count() {
  const long double x1 = 0x1p50L, x0 = 0x1p49L, l1 = std::log(x1), l0 = std::log(x0);
  const long double lo1 = x1 / l1 * (1 + 1 / l1), hi0 = x0 / l0 * (1 + 1 / l0 + 2.51L / (l0 * l0));
  return static_cast<double>((lo1 - hi0) * (1 - 1e-12L));
}

// Bennett, Martin, O'Bryant, Rechnitzer (Illinois J. Math. 62, 2018):
// |θ(x; q, a) - x/φ(q)| < x / (160 log x) for x >= 8e9, 3 <= q <= 1e5. The
// primes = 1 mod 4 in [x0, x1) number at least (θ(x1; 4, 1) - θ(x0; 4, 1)) /
// log x1 >= ((x1 - x0)/2 - x1/(160 log x1) - x0/(160 log x0)) / log x1:
// about 8.11e12 (half of the 1.63e13 primes, as expected).
double blackbox_prime_count_1mod4() {
  const long double x1 = 0x1p50L, x0 = 0x1p49L, l1 = std::log(x1), l0 = std::log(x0);
  return static_cast<double>(((x1 - x0) / 2 - x1 / (160 * l1) - x0 / (160 * l0)) / l1 * (1 - 1e-12L));
}

// Why the prime's part: by Hadamard a nonzero (r+1)-minor of a matrix with
// entries below 2^h is at most (sqrt(r+1) 2^h)^(r+1), so it has at most
// log2|minor| / 49 prime factors of 2^49 or more, out of n equally likely.
double blackbox_block_eps(std::size_t rank, double degree, double height_log2, const BlackboxPrime& bp) {
  const double r1 = static_cast<double>(rank) + 1;
  if (bp.fixed) return 2.0 * r1 * degree / static_cast<double>(bp.p);
  const double minor_bits = r1 * (height_log2 + 0.5 * std::log2(r1));
  if (bp.gauss) return 2.0 * r1 * degree / static_cast<double>(kLow) + 2 * minor_bits / (49.0 * blackbox_prime_count_1mod4());
  return 2.0 * r1 * degree / static_cast<double>(kLow) + minor_bits / (49.0 * blackbox_prime_count());
}

std::string blackbox_prime_text(const BlackboxPrime& bp) {
  const std::string i = bp.gauss ? ", i mapped to a square root of -1 mod p" : "";
  return bp.fixed ? "the fixed prime p = " + std::to_string(bp.p) + " (--prime)" + i
                  : "p = " + std::to_string(bp.p) + ", a prime " + (bp.gauss ? "= 1 mod 4 " : "") +
                        "drawn at random from [2^49, 2^50) with seed " + std::to_string(bp.seed) + i;
}

void blackbox_prime_details(nlohmann::json& d, const BlackboxPrime& bp, double height_log2) {
  d["prime"] = bp.p;
  d["prime_source"] = bp.fixed ? "--prime" : bp.gauss ? "random = 1 mod 4 in [2^49, 2^50)" : "random in [2^49, 2^50)";
  d["seed"] = bp.seed;
  d["height_bits_bound"] = std::ceil(height_log2);
}

void state_blackbox_probability(MethodRun& r, double eps, double degree, const BlackboxPrime& bp) {
  if (bp.fixed) {
    // A fixed prime can divide the coefficients: only rank(C mod p) is then
    // reached with a known probability.
    r.note = eps < 1 ? "no probability statement for sep with --prime (a fixed prime may divide the coefficients): "
                       "the rank equals rank(C mod p) with probability >= 1 - " +
                           fmt_g(eps) + " over the points; drop --prime for a random prime"
                     : "no probability statement with --prime (a fixed prime may divide the coefficients, and this "
                       "one is too small for the degree); drop --prime for a random prime";
  } else if (eps < 1) {
    r.details["failure_probability"] = eps;
    r.how += "; equals sep with probability >= 1 - " + fmt_g(eps) + " over the seed";
  } else {
    r.note = "no probability statement: for the degree bound " + fmt_g(degree) + " the failure bound is " +
             fmt_g(eps) + " >= 1 (the rank is a certified lower bound only)";
  }
}

}  // namespace netpoly
