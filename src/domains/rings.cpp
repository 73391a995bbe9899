#include "netpoly/rings.hpp"

#include <algorithm>

namespace netpoly {

ModpRing::Scalar ModpRing::scalar(const Fmpq& w) const {
  ulong den = fmpz_fdiv_ui(w.den(), mod.n);
  if (den == 0)
    throw DomainError("weight " + w.str() + " has a denominator divisible by the modulus " +
                      std::to_string(mod.n) + "; choose another prime");
  ulong num = fmpz_fdiv_ui(w.num(), mod.n);
  return nmod_mul(num, n_invmod(den, mod.n), mod);
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
