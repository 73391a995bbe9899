// What an expansion will cost before it runs (netpoly/expand.hpp): its terms
// and degree, its memory, the refusal beyond --max-terms, the watch a run
// keeps over it, and the height and bit bounds of an output's coefficients
// and values (the structural rings: DegreeRing, TokenDegreeRing, HeightRing).
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "domains/structure_rings.hpp"
#include "expansion/expand_in.hpp"
#include "expansion/packing.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "runtime/limits.hpp"
#include "runtime/number_text.hpp"

namespace netpoly {

using expansion_detail::expand_in;

// log of binom(n + k - 1, k): monomials of degree exactly k in n variables.
// binom(M + m, m) = prod_{i=1..m} (1 + M/i) with m = min(n - 1, k), M = max:
// a difference of lgamma values loses every digit when M is huge (degree
// 3^39 in 4 variables came out as 0 terms). Beyond m = 10000 the count is
// above 2^10000 anyway.
double log_monomial_count(double n, double k) {
  const double m = std::min(n - 1, k), M = std::max(n - 1, k);
  if (m > 10000) return HUGE_VAL;
  double s = 0;
  for (double i = 1; i <= m; ++i) s += std::log1p(M / i);
  return s;
}

namespace {

double log_multiset(double n, double k) { return log_monomial_count(n, k); }

}  // namespace


// The token-degree bound on the terms of any output entry (TokenDegreeRing);
// HUGE_VAL when the sets are too costly to compute.
double token_degree_terms(const Model& m) {
  if (m.tokens == 0 || m.width == 0 || m.num_inputs() > 4096 || m.tokens > 64) return HUGE_VAL;
  TokenDegreeRing T;
  T.tokens = m.tokens;
  std::vector<TokenDegreeRing::Elem> X;
  X.reserve(m.num_inputs());
  for (std::size_t t = 0; t < m.tokens; ++t)
    for (std::size_t c = 0; c < m.width; ++c) {
      TokenDegreeRing::Vec v(m.tokens, 0);
      v[t] = 1;
      X.push_back({v});
    }
  std::vector<Entry> all;
  for (std::size_t t = 0; t < m.tokens; ++t)
    for (std::size_t c = 0; c < m.output_width(); ++c) all.push_back({t, c});
  std::vector<TokenDegreeRing::Elem> Y;
  try {
    Y = expand_in(T, m, all, std::move(X));
  } catch (const TokenDegreeRing::TooCostly&) {
    return HUGE_VAL;
  }
  const double dm1 = static_cast<double>(m.width) - 1;
  double best = 0;
  for (const auto& y : Y) {
    double sum = 0;
    for (const auto& v : y) {
      double l = 0;  // log prod_t binom(v_t + d - 1, d - 1)
      for (auto t : v) l += log_monomial_count(dm1 + 1, static_cast<double>(t));
      sum += l > 700 ? HUGE_VAL : std::exp(l);
    }
    best = std::max(best, sum);
  }
  // A sum of integers computed through logarithms: round to the nearest when
  // it is that close (exp/log are off in the last bits), else round up.
  if (best >= 0x1p50) return best;
  const double r = std::round(best);
  return std::fabs(best - r) <= 1e-9 * std::max(1.0, best) ? r : std::ceil(best);
}

ExpansionEstimate estimate_expansion(const Model& m) {
  ExpansionEstimate e;
  double deg = 1;
  for (const auto& l : m.layers) {
    const double f = l.degree();
    deg *= f;
    if ((l.residual && f != 1) || !l.homogeneous()) e.homogeneous = false;
  }
  e.degree = deg;  // exact below 2^53; an upper estimate above (never clamped)
  const double n = static_cast<double>(m.num_inputs());
  // homogeneous: degree exactly D; otherwise all degrees 0..D = degree exactly D in n+1 variables.
  double lt = e.homogeneous ? log_multiset(n, deg) : log_multiset(n + 1, deg);
  e.terms = lt > 700 ? HUGE_VAL : std::exp(lt);
  // lgamma/exp are off in the last bits: an exact count of 20 can come out as
  // 20.000000000000004 and trip --max-terms 20. Counts below 2^50 are integers.
  if (e.terms < 0x1p50) e.terms = std::round(e.terms);
  // Far tighter where affordable: the monomials of the token-degree vectors
  // the network can produce (TokenDegreeRing), the largest over the outputs.
  const double refined = token_degree_terms(m);
  if (refined < e.terms) e.terms = refined;
  return e;
}

double expansion_memory_estimate(const Model& m) {
  auto e = estimate_expansion(m);
  // Per term: packed exponents (one word per 64/bits-per-exponent variables,
  // at least one) and a coefficient of a few words; about four polynomials of
  // the final size are alive at once during the last products. With the
  // token-degree term bound, this plus the resident set at the start is within
  // 2x of the measured peak on the bench ladder (bench/studies/memory.md).
  const double words = 1.0 + static_cast<double>(m.num_inputs()) / 8.0 + 3.0;
  return e.terms * words * 8.0 * 4.0;
}

namespace {

class ExpansionWatch final : public ProductWatch {
 public:
  ExpansionWatch(const AnalysisContext& run, std::string what, double est, double stop_after)
      : run_(run), what_(std::move(what)), est_(est), stop_after_(stop_after), t0_(std::chrono::steady_clock::now()) {
    run_.progress("expanding " + what_ + ": about " + format_fixed(est_, 0) + " s estimated");
  }
  void after_product(slong) const override {
    run_.check_cancelled();
    const auto now = std::chrono::steady_clock::now();
    const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - t0_).count();
    if (stop_after_ > 0 && static_cast<double>(ms) / 1000 > stop_after_) {
      throw LimitError("the default run gave up the expansion of " + what_ + " after " +
                       format_fixed(static_cast<double>(ms) / 1000, 0) + " s, beyond " + format_fixed(stop_after_, 0) +
                       " s (its estimate was about " + format_fixed(est_, 0) +
                       " s; --methods with a method that needs it, e.g. --methods support,modular, runs it to the end)");
    }
    long long next = next_ms_.load();
    if (ms < next || !next_ms_.compare_exchange_strong(next, ms + 500)) return;  // one thread, twice a second
    const double rss = run_.resident_bytes();
    const double limit = run_.max_memory_bytes;
    if (limit > 0 && rss > kExpansionMemoryFraction * limit)
      throw LimitError("the expansion of " + what_ + " stopped at " + format_bytes(rss) + " resident, " +
                       std::to_string(static_cast<int>(kExpansionMemoryFraction * 100)) + "% of " +
                       (run_.memory_default ? "the default memory limit (half the machine's memory) " : "--max-memory ") +
                       format_bytes(limit) + " (raise --max-memory)");
    run_.progress("expanding " + what_ + ": " + format_fixed(static_cast<double>(ms) / 1000, 0) + " s of about " +
                  format_fixed(est_, 0) + " s estimated, " + format_bytes(rss) + " resident");
  }

 private:
  const AnalysisContext& run_;
  std::string what_;
  double est_, stop_after_;
  std::chrono::steady_clock::time_point t0_;
  mutable std::atomic<long long> next_ms_{2000};  // nothing in the first two seconds
};

}  // namespace

std::shared_ptr<const ProductWatch> expansion_watch(const AnalysisContext& run, const std::string& what,
                                                    double estimated_seconds, double stop_after) {
  return std::make_shared<ExpansionWatch>(run, what, estimated_seconds, stop_after);
}

std::string format_degree(double degree) {
  char b[64];
  if (degree < 0x1p53) std::snprintf(b, sizeof b, "%.0f", degree);
  else return "about " + fmt_g(degree);
  return b;
}

void check_expansion_size(const Model& m, double max_terms) {
  auto e = estimate_expansion(m);
  if (!(e.degree < kMaxExpansionDegree)) {
    throw LimitError("refusing to expand: the degree bound " + fmt_g(e.degree) +
                     " reaches 2^63 (9.22e+18), beyond the largest exponent netpoly reads; no flag raises this "
                     "limit; use a method that needs no expansion (support, blackbox, grid)");
  }
  if (e.terms > max_terms) {
    throw LimitError("refusing to expand: up to " + fmt_g(e.terms) + " terms per output entry (degree " +
                     format_degree(e.degree) + " in " + std::to_string(m.num_inputs()) +
                     " variables) exceeds --max-terms " + fmt_g(max_terms) +
                     "; raise --max-terms to try anyway, or use a method that needs no expansion (support, blackbox, grid)");
  }
}

double value_bits_bound(const Model& m, const Entry& e, const std::vector<Fmpq>& point) {
  HeightRing H;
  std::vector<HeightRing::Elem> X;
  X.reserve(point.size());
  for (const auto& v : point) X.push_back(H.scalar(v));
  auto y = expand_in(H, m, {e}, std::move(X));
  return y.at(0).h == -HUGE_VAL ? 0 : std::max(0.0, y[0].h) + y[0].d;
}

double coefficient_height_log2(const Model& m, const Entry& e) {
  HeightRing H;
  // Each input variable: the polynomial x, ||x||_1 = 1, no denominator.
  auto y = expand_in(H, m, {e}, std::vector<HeightRing::Elem>(m.num_inputs(), HeightRing::Elem{0, 0}));
  return y.at(0).h == -HUGE_VAL ? 0 : std::max(0.0, y[0].h);
}

}  // namespace netpoly
