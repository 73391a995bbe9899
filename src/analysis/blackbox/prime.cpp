#include "analysis/blackbox/prime.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

#include "netpoly/error.hpp"
#include "model/forward.hpp"
#include "runtime/random.hpp"
#include "netpoly/rings.hpp"
#include "runtime/number_text.hpp"

namespace netpoly {

namespace {

constexpr ulong kLow = UWORD(1) << 49;  // the range is [2^49, 2^50): residues exact in doubles (BatchF64Ring)

}  // namespace

namespace {

// The lcm of every weight's denominator (real and imaginary parts): a prime
// not dividing it maps every weight to a residue.
Fmpz denominators(const Model& m) {
  Fmpz L(1);
  auto take = [&](const Fmpq& w) {
    fmpz_lcm(L.get(), L.get(), w.den());
    return 0;
  };
  for (const auto& l : m.layers) (void)l.map(take);
  for (const auto& l : m.imag) (void)l.map(take);
  return L;
}

// Candidates drawn before a draw gives up: a range holds about one prime in
// 35 odd numbers (one in 470 for the small range's 1 mod 120), so this many
// draws find one unless a model's denominators exclude almost every prime
// of the range (built against it).
constexpr int kMaxDraws = 1 << 20;

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
  // Rejection sampling: uniform among the primes of the range (= 1 mod 4 for
  // Gaussian weights) that divide no denominator. Excluding a fraction of
  // the 1.6e13 primes would take a denominator of about 49 bits per excluded
  // prime (beyond any model that fits --max-memory), so the draw ends; the
  // bound makes that a fact rather than an argument.
  const Fmpz den = denominators(m);
  SplitMix64 g(seed ^ 0x7a11d0b1e5ULL);
  for (int draw = 0; draw < kMaxDraws; ++draw) {
    const ulong q = (kLow + g.below(kLow)) | 1;
    if ((bp.gauss && q % 4 != 1) || !n_is_prime(q) || fmpz_fdiv_ui(den.get(), q) == 0) continue;
    bp.p = q;
    return bp;
  }
  throw LimitError("the black-box drew " + std::to_string(kMaxDraws) +
                   " candidates in [2^49, 2^50) without a prime that divides no weight's denominator; "
                   "give one with --prime, or leave out the blackbox method");
}

ulong draw_small_prime(const Model& m, std::uint64_t seed) {
  constexpr ulong lo = UWORD(1) << 22;
  const Fmpz den = denominators(m);
  // 1 mod 4 (Gaussian), and m-th roots of unity for every m | 120.
  auto usable = [&](ulong q) { return q % 120 == 1 && n_is_prime(q) && fmpz_fdiv_ui(den.get(), q) != 0; };
  SplitMix64 g(seed ^ 0x5a11ca11ULL);
  for (int draw = 0; draw < kMaxDraws; ++draw) {
    const ulong q = (lo + g.below(lo)) | 1;
    if (usable(q)) return q;
  }
  // The range's 8,338 such primes are few enough to list: uniform among those left.
  std::vector<ulong> left;
  for (ulong q = lo - lo % 120 + 121; q < 2 * lo; q += 120)
    if (usable(q)) left.push_back(q);
  return left.empty() ? 0 : left[g.below(left.size())];
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
  // Generic: a coefficient of an (r+1)-minor of C(w), a matrix of integer
  // polynomials in the weights with l1 norms below 2^h: at most (r+1)! 2^((r+1) h).
  const double minor_bits = bp.generic ? r1 * (height_log2 + std::log2(r1)) : r1 * (height_log2 + 0.5 * std::log2(r1));
  if (bp.gauss) return 2.0 * r1 * degree / static_cast<double>(kLow) + 2 * minor_bits / (49.0 * blackbox_prime_count_1mod4());
  return 2.0 * r1 * degree / static_cast<double>(kLow) + minor_bits / (49.0 * blackbox_prime_count());
}

std::string blackbox_prime_text(const BlackboxPrime& bp) {
  const std::string i = bp.gauss ? ", i mapped to a square root of -1 mod p" : "";
  const std::string w = bp.generic ? ", the weights drawn at random mod p" : "";
  return bp.fixed ? "the fixed prime p = " + std::to_string(bp.p) + " (--prime)" + i + w
                  : "p = " + std::to_string(bp.p) + ", a prime " + (bp.gauss ? "= 1 mod 4 " : "") +
                        "drawn at random from [2^49, 2^50) with seed " + std::to_string(bp.seed) + i + w;
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
    r.failure_probability = eps;
    r.details["failure_probability"] = eps;
    r.how += bp.generic ? "; equals the generic sep with probability >= 1 - " + fmt_g(eps) +
                              " over the seed (the prime, the weights and the points)"
                        : "; equals sep with probability >= 1 - " + fmt_g(eps) + " over the seed";
  } else {
    r.note = "no probability statement: for the degree bound " + fmt_g(degree) + " the failure bound is " +
             fmt_g(eps) + " >= 1 (the rank is a certified lower bound only)";
  }
}

}  // namespace netpoly
