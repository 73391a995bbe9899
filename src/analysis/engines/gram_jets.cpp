// Codimensions for the gram bound (gram.hpp; docs/math.md §4.2, "Points of
// the kernel", "The points" and the two shortcuts): where the first layer's
// map M -> T_1(M) has a kernel W of dimension 1 or 2, the points U of W of
// rank <= r (r tokens on a side) are exact algebraic points (roots of the gcd
// of the (r+1)-minors of the pencil, over Z_p). Jets of order < e at such
// points, along the Gram variety, vanish on every polynomial with e factors
// from the first layer's forms and on the relations of the Gram matrices;
// their rank modulo p is a lower bound on their rank over Q_p, hence on the
// codimension of the space the bound counts.
#include <flint/fmpz_poly.h>
#include <flint/fmpz_poly_mat.h>
#include <flint/nmod_poly.h>
#include <flint/nmod_poly_factor.h>
#include <flint/nmod_vec.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "analysis/engines/gram.hpp"
#include "runtime/random.hpp"
#include "analysis/rank/rank.hpp"

namespace netpoly::gram {
namespace {

using Sym = std::vector<ulong>;  // a d x d matrix mod p, row-major

// Truncated power series in n variables mod p: the monomials of degree < e.
class Jets {
 public:
  Jets(std::size_t n, std::size_t e, nmod_t mod) : n_(n), e_(e), mod_(mod) {
    std::map<std::vector<std::size_t>, std::size_t> index;
    std::vector<std::vector<std::size_t>> level{{}};
    monos_.push_back({});
    index[{}] = 0;
    for (std::size_t deg = 1; deg < e; ++deg) {
      std::vector<std::vector<std::size_t>> next;
      for (const auto& m : level)
        for (std::size_t v = m.empty() ? 0 : m.back(); v < n; ++v) {
          auto x = m;
          x.push_back(v);
          index[x] = monos_.size();
          monos_.push_back(x);
          next.push_back(std::move(x));
        }
      level = std::move(next);
    }
    for (std::size_t i = 0; i < monos_.size(); ++i)
      for (std::size_t j = 0; j < monos_.size(); ++j) {
        if (monos_[i].size() + monos_[j].size() >= e) continue;
        std::vector<std::size_t> x = monos_[i];
        x.insert(x.end(), monos_[j].begin(), monos_[j].end());
        std::sort(x.begin(), x.end());
        table_.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j),
                          static_cast<std::uint32_t>(index.at(x))});
      }
  }
  std::size_t size() const { return monos_.size(); }
  std::vector<ulong> constant(ulong c) const {
    std::vector<ulong> r(size(), 0);
    r[0] = c;
    return r;
  }
  // c + x_v (x_v dropped when e = 1).
  std::vector<ulong> shifted(ulong c, std::size_t v) const {
    auto r = constant(c);
    if (e_ > 1) r[1 + v] = 1;
    return r;
  }
  std::vector<ulong> mul(const std::vector<ulong>& a, const std::vector<ulong>& b) const {
    std::vector<ulong> r(size(), 0);
    for (const auto& [i, j, k] : table_)
      if (a[i] && b[j]) r[k] = nmod_add(r[k], nmod_mul(a[i], b[j], mod_), mod_);
    return r;
  }
  void add(std::vector<ulong>& r, const std::vector<ulong>& a) const {
    for (std::size_t k = 0; k < r.size(); ++k) r[k] = nmod_add(r[k], a[k], mod_);
  }

 private:
  std::size_t n_, e_;
  nmod_t mod_;
  std::vector<std::vector<std::size_t>> monos_;
  std::vector<std::array<std::uint32_t, 3>> table_;
};

std::vector<std::vector<std::size_t>> subsets(std::size_t n, std::size_t k) {
  std::vector<std::vector<std::size_t>> out;
  std::vector<std::size_t> c(k);
  for (std::size_t i = 0; i < k; ++i) c[i] = i;
  if (k > n) return out;
  while (true) {
    out.push_back(c);
    std::size_t i = k;
    while (i > 0 && c[i - 1] == n - k + i - 1) --i;
    if (i == 0) return out;
    ++c[i - 1];
    for (std::size_t j = i; j < k; ++j) c[j] = c[j - 1] + 1;
  }
}

std::size_t rank_of(const FmpzMat& M) { return static_cast<std::size_t>(fmpz_mat_rank(M.get())); }

// The points of the kernel W (dimension 1 or 2) of rank <= r, as exact data:
// rational points, and the squarefree polynomial whose roots t give K0 + t K1.
struct PointSet {
  std::vector<const FmpzMat*> rational;
  std::optional<std::vector<Fmpz>> poly;  // coefficients, low first; nullopt: none
  std::string why;                        // why none when empty
};

PointSet exact_points(const std::vector<FmpzMat>& W, std::size_t r, std::size_t d) {
  PointSet ps;
  if (W.size() == 1 || W.size() == 2) {
    if (rank_of(W.back()) <= r) ps.rational.push_back(&W.back());  // K0 (w = 1) or t = infinity
  }
  if (W.size() != 2) return ps;
  const auto rows = subsets(d, r + 1);
  if (static_cast<double>(rows.size()) * static_cast<double>(rows.size()) > 4e5) {
    ps.why = "too many minors";
    return ps;
  }
  fmpz_poly_t g, m;
  fmpz_poly_init(g);
  fmpz_poly_init(m);
  fmpz_poly_mat_t A;
  fmpz_poly_mat_init(A, static_cast<slong>(r + 1), static_cast<slong>(r + 1));
  for (std::size_t a = 0; a < rows.size() && !fmpz_poly_is_one(g); ++a)
    for (std::size_t b = a; b < rows.size() && !fmpz_poly_is_one(g); ++b) {
      for (std::size_t x = 0; x <= r; ++x)
        for (std::size_t y = 0; y <= r; ++y) {
          fmpz_poly_struct* e = fmpz_poly_mat_entry(A, static_cast<slong>(x), static_cast<slong>(y));
          fmpz_poly_zero(e);
          fmpz_poly_set_coeff_fmpz(e, 0, W[0].at(static_cast<slong>(rows[a][x]), static_cast<slong>(rows[b][y])));
          fmpz_poly_set_coeff_fmpz(e, 1, W[1].at(static_cast<slong>(rows[a][x]), static_cast<slong>(rows[b][y])));
        }
      fmpz_poly_mat_det(m, A);
      fmpz_poly_gcd(g, g, m);
    }
  fmpz_poly_mat_clear(A);
  if (fmpz_poly_is_zero(g)) {
    ps.why = "every member of the pencil has rank <= " + std::to_string(r);
  } else if (fmpz_poly_degree(g) > 0) {
    // Squarefree part: g / gcd(g, g').
    fmpz_poly_derivative(m, g);
    fmpz_poly_gcd(m, g, m);
    fmpz_poly_div(g, g, m);
    std::vector<Fmpz> c(static_cast<std::size_t>(fmpz_poly_length(g)));
    for (std::size_t k = 0; k < c.size(); ++k) fmpz_poly_get_coeff_fmpz(c[k].get(), g, static_cast<slong>(k));
    ps.poly = std::move(c);
  }
  fmpz_poly_clear(g);
  fmpz_poly_clear(m);
  return ps;
}

ulong reduce(const fmpz* x, ulong p) { return fmpz_fdiv_ui(x, p); }

// The points mod p: rational ones reduced, and K0 + t K1 at the roots of the
// polynomial in F_p (each simple, so the reduction of a root in Z_p by
// Hensel's lemma: docs/math.md §4.2, "The points"). Only the rational ones
// when the polynomial's degree drops mod p or it is not squarefree there.
std::vector<Sym> points_mod(const PointSet& ps, const std::vector<FmpzMat>& W, std::size_t d, ulong p) {
  std::vector<Sym> out;
  nmod_t mod;
  nmod_init(&mod, p);
  auto red = [&](const FmpzMat& K) {
    Sym U(d * d);
    for (std::size_t i = 0; i < d * d; ++i) U[i] = reduce(K.at(static_cast<slong>(i / d), static_cast<slong>(i % d)), p);
    return U;
  };
  for (const FmpzMat* K : ps.rational) out.push_back(red(*K));
  if (!ps.poly) return out;
  nmod_poly_t f, df, g;
  nmod_poly_init(f, p);
  nmod_poly_init(df, p);
  nmod_poly_init(g, p);
  for (std::size_t k = 0; k < ps.poly->size(); ++k) nmod_poly_set_coeff_ui(f, static_cast<slong>(k), reduce((*ps.poly)[k].get(), p));
  nmod_poly_derivative(df, f);
  nmod_poly_gcd(g, f, df);
  if (nmod_poly_degree(f) + 1 == static_cast<slong>(ps.poly->size()) && nmod_poly_degree(g) == 0) {
    nmod_poly_factor_t roots;
    nmod_poly_factor_init(roots);
    nmod_poly_roots(roots, f, 0);
    const Sym K0 = red(W[0]), K1 = red(W[1]);
    for (slong i = 0; i < roots->num; ++i) {
      // Factor x + c (monic): the root is -c.
      const ulong t = nmod_neg(nmod_poly_get_coeff_ui(roots->p + i, 0), mod);
      Sym U(d * d);
      for (std::size_t x = 0; x < d * d; ++x) U[x] = nmod_add(K0[x], nmod_mul(t, K1[x], mod), mod);
      out.push_back(std::move(U));
    }
    nmod_poly_factor_clear(roots);
  }
  nmod_poly_clear(f);
  nmod_poly_clear(df);
  nmod_poly_clear(g);
  return out;
}

// Inverse of a small matrix mod p by Gauss-Jordan; false when singular.
bool invert(std::vector<ulong> a, std::size_t n, std::vector<ulong>& inv, nmod_t mod) {
  inv.assign(n * n, 0);
  for (std::size_t i = 0; i < n; ++i) inv[i * n + i] = 1;
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t piv = c;
    while (piv < n && a[piv * n + c] == 0) ++piv;
    if (piv == n) return false;
    for (std::size_t k = 0; k < n; ++k) {
      std::swap(a[c * n + k], a[piv * n + k]);
      std::swap(inv[c * n + k], inv[piv * n + k]);
    }
    const ulong s = nmod_inv(a[c * n + c], mod);
    for (std::size_t k = 0; k < n; ++k) {
      a[c * n + k] = nmod_mul(a[c * n + k], s, mod);
      inv[c * n + k] = nmod_mul(inv[c * n + k], s, mod);
    }
    for (std::size_t r = 0; r < n; ++r) {
      if (r == c || a[r * n + c] == 0) continue;
      const ulong f = a[r * n + c];
      for (std::size_t k = 0; k < n; ++k) {
        a[r * n + k] = nmod_sub(a[r * n + k], nmod_mul(f, a[c * n + k], mod), mod);
        inv[r * n + k] = nmod_sub(inv[r * n + k], nmod_mul(f, inv[c * n + k], mod), mod);
      }
    }
  }
  return true;
}

// The chart of rank-r symmetric matrices at U: U = L^T S L with L = [I | G]
// on the columns (I, J); I an r-subset with U[I,I] invertible mod p.
struct Chart {
  std::vector<std::size_t> I, J;
  std::vector<ulong> S, G;  // r x r, r x (d - r)
};
std::optional<Chart> chart_at(const Sym& U, std::size_t d, std::size_t r, nmod_t mod) {
  for (const auto& I : subsets(d, r)) {
    std::vector<ulong> S(r * r), Sinv;
    for (std::size_t a = 0; a < r; ++a)
      for (std::size_t b = 0; b < r; ++b) S[a * r + b] = U[I[a] * d + I[b]];
    if (!invert(S, r, Sinv, mod)) continue;
    Chart c;
    c.I = I;
    for (std::size_t x = 0; x < d; ++x)
      if (!std::binary_search(I.begin(), I.end(), x)) c.J.push_back(x);
    c.S = S;
    c.G.assign(r * c.J.size(), 0);
    for (std::size_t a = 0; a < r; ++a)
      for (std::size_t b = 0; b < c.J.size(); ++b)
        for (std::size_t q = 0; q < r; ++q)
          c.G[a * c.J.size() + b] =
              nmod_add(c.G[a * c.J.size() + b], nmod_mul(Sinv[a * r + q], U[I[q] * d + c.J[b]], mod), mod);
    return c;
  }
  return std::nullopt;
}



// The primes tried for the points, in order (deterministic), in [2^24, 2^25).
constexpr ulong kFirstPrime = (UWORD(1) << 24) + 1234567;

std::size_t expected_points(const PointSet& ps) {
  return ps.rational.size() + (ps.poly ? ps.poly->size() - 1 : 0);
}

// The series of one point's U entries (row-major d x d) in its jets.
using Series = std::vector<std::vector<ulong>>;

// Side without the output (r tokens): the Gram variety of rank <= r at U,
// through its chart (jets of order < e), or U alone (order 0) without one.
std::pair<Jets, Series> gram_series(const Sym& U, std::size_t d, std::size_t r, std::size_t e, nmod_t mod) {
  const auto ch = chart_at(U, d, r, mod);
  if (!ch) {
    Jets J(0, 1, mod);
    Series s(d * d);
    for (std::size_t x = 0; x < d * d; ++x) s[x] = J.constant(U[x]);
    return {std::move(J), std::move(s)};
  }
  const std::size_t m = d - r, nv = r * (r + 1) / 2 + r * m;
  Jets J(nv, e, mod);
  std::vector<std::vector<ulong>> S(r * r), G(r * m);
  std::size_t v = 0;
  for (std::size_t a = 0; a < r; ++a)
    for (std::size_t b = a; b < r; ++b, ++v) S[a * r + b] = S[b * r + a] = J.shifted(ch->S[a * r + b], v);
  for (std::size_t a = 0; a < r; ++a)
    for (std::size_t b = 0; b < m; ++b, ++v) G[a * m + b] = J.shifted(ch->G[a * m + b], v);
  // Column x of L (r entries): e_q for x = I_q, G[:, q] for x = J_q.
  std::vector<std::vector<std::vector<ulong>>> L(d, std::vector<std::vector<ulong>>(r, J.constant(0)));
  for (std::size_t q = 0; q < r; ++q) L[ch->I[q]][q] = J.constant(1);
  for (std::size_t q = 0; q < m; ++q)
    for (std::size_t a = 0; a < r; ++a) L[ch->J[q]][a] = G[a * m + q];
  Series s(d * d);
  for (std::size_t x = 0; x < d; ++x)
    for (std::size_t y = x; y < d; ++y) {
      auto acc = J.constant(0);
      for (std::size_t a = 0; a < r; ++a) {
        auto left = J.constant(0);  // sum_b S[a][b] L[y][b]
        for (std::size_t b = 0; b < r; ++b) J.add(left, J.mul(S[a * r + b], L[y][b]));
        J.add(acc, J.mul(L[x][a], left));
      }
      s[x * d + y] = acc;
      s[y * d + x] = std::move(acc);
    }
  return {std::move(J), std::move(s)};
}

// Output side (n tokens): points X with X^T X = U, orbit points g X for
// rational orthogonal g (Cayley), jets of order < e in all n d entries.
// Empty when U has no chart or a pivot has no square root mod p.
std::vector<std::vector<ulong>> factor_points(const Sym& U, std::size_t d, std::size_t n, nmod_t mod, SplitMix64& g) {
  const auto ch = chart_at(U, d, n, mod);
  if (!ch) return {};
  // S = N^T D N (N unit upper triangular), X1 = sqrt(D) N L.
  std::vector<ulong> S = ch->S, N(n * n, 0), D(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (S[i * n + i] == 0) return {};
    D[i] = S[i * n + i];
    const ulong inv = nmod_inv(D[i], mod);
    N[i * n + i] = 1;
    for (std::size_t j = i + 1; j < n; ++j) N[i * n + j] = nmod_mul(S[i * n + j], inv, mod);
    for (std::size_t a = i + 1; a < n; ++a)
      for (std::size_t b = i + 1; b < n; ++b)
        S[a * n + b] = nmod_sub(S[a * n + b], nmod_mul(N[i * n + a], S[i * n + b], mod), mod);
  }
  const std::size_t m = d - n;
  std::vector<ulong> L(n * d, 0), X1(n * d, 0);
  for (std::size_t q = 0; q < n; ++q) L[q * d + ch->I[q]] = 1;
  for (std::size_t q = 0; q < m; ++q)
    for (std::size_t a = 0; a < n; ++a) L[a * d + ch->J[q]] = ch->G[a * m + q];
  for (std::size_t i = 0; i < n; ++i) {
    const ulong s = n_sqrtmod(D[i], mod.n);
    if (s == 0) return {};
    for (std::size_t x = 0; x < d; ++x) {
      ulong acc = 0;
      for (std::size_t k = 0; k < n; ++k) acc = nmod_add(acc, nmod_mul(N[i * n + k], L[k * d + x], mod), mod);
      X1[i * d + x] = nmod_mul(s, acc, mod);
    }
  }
  std::vector<std::vector<ulong>> out;
  for (int tries = 0; out.size() < n + 1 && tries < 20 * static_cast<int>(n + 1); ++tries) {
    // g = (I - K)(I + K)^{-1}, K skew with entries in [-50, 50]: orthogonal over Q.
    std::vector<ulong> Ip(n * n, 0), Im(n * n, 0), inv;
    for (std::size_t i = 0; i < n; ++i) Ip[i * n + i] = Im[i * n + i] = 1;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) {
        const slong k = static_cast<slong>(g.below(101)) - 50;
        const ulong kp = k >= 0 ? static_cast<ulong>(k) : mod.n - static_cast<ulong>(-k), km = nmod_neg(kp, mod);
        Ip[i * n + j] = kp; Ip[j * n + i] = km;
        Im[i * n + j] = km; Im[j * n + i] = kp;
      }
    if (!invert(Ip, n, inv, mod)) continue;
    std::vector<ulong> X(n * d, 0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < n; ++k) {
        ulong gik = 0;
        for (std::size_t q = 0; q < n; ++q) gik = nmod_add(gik, nmod_mul(Im[i * n + q], inv[q * n + k], mod), mod);
        for (std::size_t x = 0; x < d; ++x) X[i * d + x] = nmod_add(X[i * d + x], nmod_mul(gik, X1[k * d + x], mod), mod);
      }
    out.push_back(std::move(X));
  }
  return out;
}

// The rank of a functional matrix built column by column: `col(c)` gives
// every row's value on column c.
std::size_t functional_rank(std::size_t rows, std::size_t cols, ulong p,
                            const std::function<std::vector<ulong>(std::size_t)>& col) {
  if (rows == 0 || cols == 0) return 0;
  NmodMat M(static_cast<slong>(rows), static_cast<slong>(cols), p);
  for (std::size_t c = 0; c < cols; ++c) {
    const auto v = col(c);
    for (std::size_t r = 0; r < rows; ++r) M.at(static_cast<slong>(r), static_cast<slong>(c)) = v[r];
  }
  return rank_dense_modp(M);
}

// The largest order < e whose jets over `pts` points in nv variables stay
// within `max_rows`.
std::size_t fit_order(std::size_t e, std::size_t nv, std::size_t pts, double max_rows) {
  while (e > 1 && static_cast<double>(pts) * fmpz_get_d(monomials(nv + 1, e - 1).get()) > max_rows) --e;
  return e;
}

}  // namespace

// Uniform over the monomials: a degree-k monomial in s coordinates is a
// choice of s - 1 bar positions among k + s - 1 slots (stars and bars), so a
// uniform (s - 1)-subset of the slots (a partial Fisher-Yates shuffle) gives
// a uniform monomial. With more than 2 * want monomials every draw is new
// with probability above 1/2, so the loop ends after about 2 * want draws in
// expectation; with fewer, they are enumerated and a uniform subset kept.
// (Sorting s independent uniform indices is not uniform: x_0^k has
// probability s^-k, and drawing until nearly every monomial was seen did not
// end on a 4-layer, width-2 network.)
std::vector<std::vector<std::size_t>> monomial_sample(std::size_t s, std::size_t k, std::size_t want,
                                                      SplitMix64& g) {
  std::vector<std::vector<std::size_t>> out;
  if (s == 0 || want == 0) return out;
  const Fmpz all = monomials(s, k);
  if (fmpz_cmp_ui(all.get(), 2 * want) <= 0) {
    std::vector<std::size_t> c(k, 0);
    while (true) {
      out.push_back(c);
      std::size_t i = k;
      while (i > 0 && c[i - 1] == s - 1) --i;
      if (i == 0) break;
      const std::size_t v = c[i - 1] + 1;
      for (std::size_t j = i - 1; j < k; ++j) c[j] = v;
    }
    if (out.size() <= want) return out;
    for (std::size_t i = 0; i < want; ++i) std::swap(out[i], out[i + g.below(out.size() - i)]);
    out.resize(want);
    std::sort(out.begin(), out.end());
    return out;
  }
  const std::size_t slots = k + s - 1;
  std::vector<std::size_t> perm(slots);
  std::set<std::vector<std::size_t>> seen;
  while (seen.size() < want) {
    std::iota(perm.begin(), perm.end(), 0);
    for (std::size_t i = 0; i + 1 < s; ++i) std::swap(perm[i], perm[i + g.below(slots - i)]);
    std::vector<std::size_t> bars(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(s - 1));
    std::sort(bars.begin(), bars.end());
    std::vector<std::size_t> c;
    c.reserve(k);
    std::size_t prev = 0;  // the first slot after the last bar
    for (std::size_t v = 0; v < s; ++v) {
      const std::size_t end = v + 1 < s ? bars[v] : slots;
      c.insert(c.end(), end - prev, v);  // the stars between two bars: this coordinate's exponent
      prev = end + 1;
    }
    seen.insert(std::move(c));
  }
  return {seen.begin(), seen.end()};
}

Codims pencil_codims(const Contraction& c, const Shape& s, const std::vector<std::size_t>& out_degrees,
                     const std::vector<std::size_t>& other_degrees, double max_cells, double total_cells) {
  Codims out;
  const std::size_t d = s.d, sd = d * (d + 1) / 2;
  if (c.kernel.empty() || c.kernel.size() > 2) {
    out.note = c.kernel.empty() ? "the first layer's map is injective on symmetric matrices"
                                : "its kernel has dimension " + std::to_string(c.kernel.size()) + " (> 2: not computed)";
    return out;
  }
  std::vector<std::pair<std::size_t, std::size_t>> coords;  // the s coordinates U_ab, a <= b
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = a; b < d; ++b) coords.emplace_back(a, b);
  const double max_rows = std::min(2000.0, std::sqrt(max_cells / 3));
  SplitMix64 g(0x6a3e5ULL);
  // The side without the output: columns U^nu (degree k), rows the jets.
  if (s.n_other > 0 && s.n_other < d) {
    const std::size_t r = s.n_other;
    const PointSet ps = exact_points(c.kernel, r, d);
    std::vector<Sym> best;
    ulong p = kFirstPrime;
    for (std::size_t t = 0; t < 200 && best.size() < expected_points(ps); ++t) {
      p = n_nextprime(p, 1);
      auto pts = points_mod(ps, c.kernel, d, p);
      if (pts.size() > best.size()) {
        best = std::move(pts);
        out.prime_other = p;
      }
    }
    out.points_other = best.size();
    if (!ps.why.empty()) out.note = ps.why;
    nmod_t mod;
    if (!best.empty()) nmod_init(&mod, out.prime_other);
    for (std::size_t k : other_degrees) {
      if (best.empty() || k <= s.full) continue;
      const std::size_t e = fit_order(k - s.full, r * (r + 1) / 2 + r * (d - r), best.size(), max_rows);
      std::vector<std::pair<Jets, Series>> at;
      std::size_t rows = 0;
      for (const auto& U : best) {
        at.push_back(gram_series(U, d, r, e, mod));
        rows += at.back().first.size();
      }
      const auto cols = monomial_sample(sd, k, std::max<std::size_t>(3 * rows, 256), g);
      total_cells -= static_cast<double>(rows) * static_cast<double>(cols.size()) * static_cast<double>(k);
      if (total_cells < 0) break;
      out.other[k] = functional_rank(rows, cols.size(), out.prime_other, [&](std::size_t ci) {
        std::vector<ulong> v;
        for (const auto& [J, ser] : at) {
          auto acc = J.constant(1);
          for (std::size_t x : cols[ci]) acc = J.mul(acc, ser[coords[x].first * d + coords[x].second]);
          v.insert(v.end(), acc.begin(), acc.end());
        }
        return v;
      });
    }
  }
  // The output's side: columns x_{o,e} U^nu (degree j), rows the jets at orbit points.
  if (s.n_out > 0 && s.n_out < d) {
    const std::size_t n = s.n_out;
    const PointSet ps = exact_points(c.kernel, n, d);
    std::vector<std::vector<ulong>> best;
    std::size_t best_pts = 0;
    ulong p = kFirstPrime;
    for (std::size_t t = 0; t < 300 && best_pts < expected_points(ps); ++t) {
      p = n_nextprime(p, 1);
      nmod_t mod;
      nmod_init(&mod, p);
      std::vector<std::vector<ulong>> xs;
      std::size_t pts = 0;
      for (const auto& U : points_mod(ps, c.kernel, d, p)) {
        auto f = factor_points(U, d, n, mod, g);
        pts += !f.empty();
        for (auto& x : f) xs.push_back(std::move(x));
      }
      if (pts > best_pts) {
        best_pts = pts;
        best = std::move(xs);
        out.prime_out = p;
      }
    }
    out.points_out = best_pts;
    nmod_t mod;
    if (!best.empty()) nmod_init(&mod, out.prime_out);
    for (std::size_t j : out_degrees) {
      if (best.empty() || j <= s.full) continue;
      const std::size_t e = fit_order(j - s.full, n * d, best.size(), max_rows);
      Jets J(n * d, e, mod);
      std::vector<Series> ser;  // per point: x (n d entries) then U (d x d)
      for (const auto& X : best) {
        Series xs(n * d + d * d);
        for (std::size_t v = 0; v < n * d; ++v) xs[v] = J.shifted(X[v], v);
        for (std::size_t a = 0; a < d; ++a)
          for (std::size_t b = a; b < d; ++b) {
            auto acc = J.constant(0);
            for (std::size_t q = 0; q < n; ++q) J.add(acc, J.mul(xs[q * d + a], xs[q * d + b]));
            xs[n * d + a * d + b] = xs[n * d + b * d + a] = std::move(acc);
          }
        ser.push_back(std::move(xs));
      }
      const std::size_t rows = best.size() * J.size();
      const std::size_t per = std::max<std::size_t>(3 * rows / d + 1, 64);
      const auto mons = monomial_sample(sd, j, per, g);
      total_cells -= static_cast<double>(rows) * static_cast<double>(mons.size() * d) * static_cast<double>(j + 1);
      if (total_cells < 0) break;
      out.out[j] = functional_rank(rows, mons.size() * d, out.prime_out, [&](std::size_t ci) {
        const std::size_t ch = ci % d, mi = ci / d;
        std::vector<ulong> v;
        for (const auto& xs : ser) {
          auto acc = xs[ch];  // x_{o,ch}: the output token is row 0
          for (std::size_t x : mons[mi]) acc = J.mul(acc, xs[n * d + coords[x].first * d + coords[x].second]);
          v.insert(v.end(), acc.begin(), acc.end());
        }
        return v;
      });
    }
  }
  return out;
}

}  // namespace netpoly::gram
