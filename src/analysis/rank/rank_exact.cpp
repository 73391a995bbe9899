// The exact rank over Q with its certificate: a nonsingular r x r minor mod
// p, and C = C[:,J] C[I,J]^-1 C[I,:] checked modulo primes whose product
// exceeds twice a Hadamard-type entry bound (rank.hpp).
#include <Eigen/Core>
#include <immintrin.h>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <optional>

#include "netpoly/error.hpp"
#include "netpoly/parallel.hpp"
#include "runtime/random.hpp"
#include "analysis/rank/rank.hpp"
#include "netpoly/rings.hpp"
#include "analysis/rank/rank_shared.hpp"
#include "domains/batch_rings.hpp"

namespace netpoly {

using rank_detail::mod_small;
using rank_detail::row_starts;

namespace {

Fmpz ceil_sqrt(const Fmpz& x) {
  Fmpz s, rem;
  fmpz_sqrtrem(s.get(), rem.get(), x.get());
  if (!rem.is_zero()) fmpz_add_ui(s.get(), s.get(), 1);
  return s;
}

}  // namespace

// A bound on the entries of E = det(C[I,J]) C - C[:,J] adj(C[I,J]) C[I,:]
// (see rank.hpp), computed with exact integers (square roots rounded up):
//   |det C[I,J]|  <= H = prod_a ||C[I_a, J]||_2                  (Hadamard, rows)
//   |adj_kl|      <= A = H / min_a ||C[I_a, J]||_2               ((r-1)-minors)
//   |E_ij|        <= H c + (sum_k |C[i, J_k]|) A (sum_l |C[I_l, j]|)
//                 <= H c + S_J A S_I,
// with c = max |C_ij|, S_J = max_i sum_{j in J} |C_ij|, S_I = max_j sum_{i in I} |C_ij|.
// A^2 is the product of every ||C[I_a, J]||^2 but the smallest, exactly: when
// C[I,J] has a zero row (then it is singular) its cofactors are not bounded by 1.
// (Bounding E_ij as the (r+1)-minor det C[I+i, J+j] by Hadamard on its rows or
// columns saved 0.2-3% of the bits on the ladder and cost more than it saved.)
Fmpz entry_bound(const SparseIntMatrix& C, const std::vector<std::uint32_t>& I, const std::vector<std::uint32_t>& J) {
  const std::size_t r = I.size();
  std::vector<slong> rowpos(C.rows, -1), colpos(C.cols, -1);
  for (std::size_t a = 0; a < r; ++a) rowpos[I[a]] = static_cast<slong>(a);
  for (std::size_t b = 0; b < J.size(); ++b) colpos[J[b]] = static_cast<slong>(b);
  Fmpz c;
  std::vector<Fmpz> norm2(r), sJ(C.rows), sI(C.cols);
  Fmpz t;
  for (std::size_t k = 0; k < C.nnz(); ++k) {
    const fmpz* v = C.v[k].get();
    if (fmpz_cmpabs(v, c.get()) > 0) fmpz_abs(c.get(), v);
    fmpz_abs(t.get(), v);
    if (colpos[C.c[k]] >= 0) {
      fmpz_add(sJ[C.r[k]].get(), sJ[C.r[k]].get(), t.get());
      if (rowpos[C.r[k]] >= 0) fmpz_addmul(norm2[rowpos[C.r[k]]].get(), t.get(), t.get());
    }
    if (rowpos[C.r[k]] >= 0) fmpz_add(sI[C.c[k]].get(), sI[C.c[k]].get(), t.get());
  }
  Fmpz prod2(1), rest2(1);
  std::size_t smallest = 0;
  for (std::size_t a = 0; a < r; ++a) {
    fmpz_mul(prod2.get(), prod2.get(), norm2[a].get());
    if (fmpz_cmp(norm2[a].get(), norm2[smallest].get()) < 0) smallest = a;
  }
  for (std::size_t a = 0; a < r; ++a)
    if (a != smallest) fmpz_mul(rest2.get(), rest2.get(), norm2[a].get());
  Fmpz H = ceil_sqrt(prod2), A = ceil_sqrt(rest2);
  Fmpz SJ, SI;
  for (const auto& x : sJ)
    if (fmpz_cmp(x.get(), SJ.get()) > 0) SJ = x;
  for (const auto& x : sI)
    if (fmpz_cmp(x.get(), SI.get()) > 0) SI = x;
  Fmpz B;
  fmpz_mul(B.get(), H.get(), c.get());
  fmpz_mul(t.get(), SJ.get(), A.get());
  fmpz_addmul(B.get(), t.get(), SI.get());
  return B;
}

namespace {

// What the product of the check primes must exceed: 2B, or 1 (one prime, for
// the nonsingular minor) when r = min(rows, cols) bounds the rank already.
Fmpz required_product(const SparseIntMatrix& C, const std::vector<std::uint32_t>& I,
                      const std::vector<std::uint32_t>& J) {
  if (I.size() == std::min(C.rows, C.cols)) return Fmpz(1);
  Fmpz b = entry_bound(C, I, J);
  fmpz_mul_ui(b.get(), b.get(), 2);
  return b;
}

enum class Check { ok, singular, mismatch };

using Mx = Eigen::MatrixXd;

// rint(t) for |t| < 2^51 as (t + 1.5 2^52) - 1.5 2^52: the sum rounds t to
// the nearest integer, the difference is exact.
constexpr double kRoundMagic = 6755399441055744.0;

// A mod q for a matrix of integers below 2^52 in absolute value, with q < 2^26:
// floor(A / q) is off by at most one either way, and every product and
// difference is an integer below 2^53, so exact. (floor here measured faster
// than the rint of zero_mod_q: exact on attn(2,3,1,4) 4.5 vs 5.0 ms.)
// The same in AVX2 vector loops (one pass, four entries at a time): every
// step is exact (floor, an integer product below 2^53, fused or not), so the
// result is the same bit for bit.
__attribute__((target("avx2,fma"))) void reduced_mod_avx2(const double* a, double* r, std::size_t n, double dq,
                                                          double inv) {
  const __m256d q = _mm256_set1_pd(dq), vi = _mm256_set1_pd(inv), zero = _mm256_setzero_pd();
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d x = _mm256_loadu_pd(a + i);
    __m256d t = _mm256_fnmadd_pd(_mm256_floor_pd(_mm256_mul_pd(x, vi)), q, x);
    t = _mm256_add_pd(t, _mm256_and_pd(_mm256_cmp_pd(t, zero, _CMP_LT_OQ), q));
    t = _mm256_sub_pd(t, _mm256_and_pd(_mm256_cmp_pd(t, q, _CMP_GE_OQ), q));
    _mm256_storeu_pd(r + i, t);
  }
  for (; i < n; ++i) {
    double t = a[i] - std::floor(a[i] * inv) * dq;
    if (t < 0) t += dq;
    if (t >= dq) t -= dq;
    r[i] = t;
  }
}

Mx reduced_mod(const Mx& A, double dq, double inv, bool vector = BatchF64Ring::supported()) {
  if (vector) {
    Mx R(A.rows(), A.cols());
    reduced_mod_avx2(A.data(), R.data(), static_cast<std::size_t>(A.size()), dq, inv);
    return R;
  }
  Mx R = (A.array() - (A.array() * inv).floor() * dq).matrix();
  R = (R.array() < 0).select(R.array() + dq, R.array());
  R = (R.array() >= dq).select(R.array() - dq, R.array());
  return R;
}

// D = 0 mod q for an integer matrix D with |D| < 2^52 and 2^19 < q < 2^26:
// iff D - q rint(D / q) = 0. When q divides D, D/q is an integer below 2^33
// that D * (1/q) misses by less than 2^-18, so rint finds it; when q does not divide D, D minus any
// multiple of q is nonzero, and q rint(D / q) is an integer below 2^53, so
// the difference is computed exactly (rint as in reduced_mod: measured faster
// than Eigen's rint, exact on attn(3,2,1,4): 0.60 -> 0.53 s).
template <class M>
bool zero_mod_q(const M& D, double dq, double inv) {
  return ((D.array() - (((D.array() * inv) + kRoundMagic) - kRoundMagic) * dq) == 0.0).all();
}

// Inverse of C[I,J] mod q (nmod_mat_inv) as doubles; false when singular.
bool inverse_mod(const Mx& MI, ulong q, double dq, double inv, Mx& Mi) {
  const slong r = static_cast<slong>(MI.rows());
  NmodMat M(r, r, q), Minv(r, r, q);
  const Mx Mr = reduced_mod(MI, dq, inv);
  for (slong a = 0; a < r; ++a)
    for (slong b = 0; b < r; ++b) M.at(a, b) = static_cast<ulong>(Mr(a, b));
  if (!nmod_mat_inv(Minv.get(), M.get())) return false;
  Mi.resize(r, r);
  for (slong a = 0; a < r; ++a)
    for (slong b = 0; b < r; ++b) Mi(a, b) = static_cast<double>(Minv.at(a, b));
  return true;
}

// A block's entries as dense doubles, laid out once per block for every
// prime's check (the checks then only reduce, multiply and compare whole
// matrices; before, every prime scattered the sparse entries again, which
// was most of the check on small blocks). Built only when every |entry| <
// 2^51, r < 2048 and the block has at most kDenseLimit entries.
struct DenseBlock {
  Mx MI, RI, CJ, Crest;  // C[I,J], C[I,:], C[rest,J], C[rest,:] (raw integers)
  static constexpr double kDenseLimit = 0x1p22;  // 32 MiB of doubles
};

// The check mod q on a DenseBlock: X = C[I,J]^-1 C[I,:] mod q, then
// D = (C[rest,J] mod q) X - C[rest,:] must vanish mod q. Exact when
// r (q-1)^2 + max |C| < 2^52 (OrientedCheck::dense_ok): then |D| < 2^52, and
// so is every dot product of reduced entries. With q < 2^20 this always
// holds (r < 2048, |C| < 2^51); blocks of small rank and entries take
// larger primes, up to 2^26 (prime_bits), and need fewer of them.
Check check_dense(const DenseBlock& B, ulong q) {
  const double dq = static_cast<double>(q), inv = 1.0 / dq;
  Mx Xd(B.MI.rows(), B.RI.cols());
  if (B.MI.rows() > 0) {
    Mx Mi;
    if (!inverse_mod(B.MI, q, dq, inv, Mi)) return Check::singular;
    Xd.noalias() = Mi * reduced_mod(B.RI, dq, inv);
    Xd = reduced_mod(Xd, dq, inv);
  }
  const Mx Cj = reduced_mod(B.CJ, dq, inv);
  const Eigen::Index n = std::max<Eigen::Index>(1, B.Crest.cols());
  const Eigen::Index chunk = std::max<Eigen::Index>(1, (Eigen::Index(1) << 21) / n);
  for (Eigen::Index lo = 0; lo < B.Crest.rows(); lo += chunk) {
    const Eigen::Index h = std::min(chunk, B.Crest.rows() - lo);
    Mx D = -B.Crest.middleRows(lo, h);
    if (B.MI.rows() > 0) D.noalias() += Cj.middleRows(lo, h) * Xd;
    if (!zero_mod_q(D, dq, inv)) return Check::mismatch;
  }
  return Check::ok;
}

// Checks C = C[:,J] C[I,J]^{-1} C[I,:] mod q. `colpos[j]` is j's position in
// J (-1 outside J) and `rest` the rows outside I; they depend on the block
// only, not on q. `vd`, when given, holds the entries of C as doubles (all
// below 2^52 in absolute value), so the small-prime path reduces them without
// division.
Check check_mod(const SparseIntMatrix& C, const std::vector<std::size_t>& starts, const std::vector<std::uint32_t>& I,
                const std::vector<slong>& colpos, const std::vector<std::uint32_t>& rest, ulong q,
                const std::vector<double>* vd = nullptr) {
  const std::size_t r = I.size(), n = C.cols;
  nmod_t mod;
  nmod_init(&mod, q);
  NmodMat M(static_cast<slong>(r), static_cast<slong>(r), q);  // C[I,J] mod q
  if (q < kCheckPrimeLimit && r < 4096) {
    // Small prime: everything as dense double-precision products (Eigen GEMM).
    // Entries are < q < 2^20 and r < 2^12, so every dot product is an integer
    // below 2^52, exact in double precision; reduce_mod is exact too.
    const double dq = static_cast<double>(q), inv = 1.0 / dq;
    auto reduce_mod = [&](Mx& A) { A = reduced_mod(A, dq, inv); };
    const auto ri = static_cast<Eigen::Index>(r), ni = static_cast<Eigen::Index>(n);
    // Every entry of C mod q, vectorised when the entries are small.
    std::vector<double> cm(C.nnz());
    if (vd) {
      const auto nnz = static_cast<Eigen::Index>(cm.size());
      Eigen::Map<Mx>(cm.data(), nnz, 1) = reduced_mod(Eigen::Map<const Mx>(vd->data(), nnz, 1), dq, inv);
    } else {
      for (std::size_t e = 0; e < C.nnz(); ++e) cm[e] = static_cast<double>(mod_small(C.v[e].get(), q));
    }
    Mx Xd(ri, ni);
    if (r > 0) {
      Mx MI = Mx::Zero(ri, ri), Mi, Rd = Mx::Zero(ri, ni);
      for (std::size_t a = 0; a < r; ++a)
        for (std::size_t e = starts[I[a]]; e < starts[I[a] + 1]; ++e)
          if (colpos[C.c[e]] >= 0) MI(static_cast<Eigen::Index>(a), colpos[C.c[e]]) = cm[e];
      if (!inverse_mod(MI, q, dq, inv, Mi)) return Check::singular;
      for (std::size_t a = 0; a < r; ++a)
        for (std::size_t e = starts[I[a]]; e < starts[I[a] + 1]; ++e) Rd(static_cast<Eigen::Index>(a), C.c[e]) = cm[e];
      Xd.noalias() = Mi * Rd;  // X = C[I,J]^-1 C[I,:] mod q
      reduce_mod(Xd);
    }
    // D = C[i,J] X - C[i,:] for the rows i outside I: integers in (-q, r q^2),
    // exact (zero_mod_q).
    const std::size_t chunk = std::max<std::size_t>(1, (std::size_t(1) << 21) / std::max<std::size_t>(1, n));
    for (std::size_t lo = 0; lo < rest.size(); lo += chunk) {
      const std::size_t hi = std::min(rest.size(), lo + chunk);
      const auto h = static_cast<Eigen::Index>(hi - lo);
      Mx Cj = Mx::Zero(h, ri), D = Mx::Zero(h, ni);
      for (std::size_t t = lo; t < hi; ++t)
        for (std::size_t e = starts[rest[t]]; e < starts[rest[t] + 1]; ++e) {
          const double v = cm[e];
          D(static_cast<Eigen::Index>(t - lo), C.c[e]) = -v;
          if (colpos[C.c[e]] >= 0) Cj(static_cast<Eigen::Index>(t - lo), colpos[C.c[e]]) = v;
        }
      D.noalias() += Cj * Xd;
      if (!zero_mod_q(D, dq, inv)) return Check::mismatch;
    }
    return Check::ok;
  }
  NmodMat R(static_cast<slong>(r), static_cast<slong>(n), q);  // C[I,:] mod q
  for (std::size_t a = 0; a < r; ++a)
    for (std::size_t e = starts[I[a]]; e < starts[I[a] + 1]; ++e) {
      ulong v = mod_small(C.v[e].get(), q);
      R.at(static_cast<slong>(a), C.c[e]) = v;
      if (colpos[C.c[e]] >= 0) M.at(static_cast<slong>(a), colpos[C.c[e]]) = v;
    }
  NmodMat X(static_cast<slong>(r), static_cast<slong>(n), q);
  if (r > 0 && !nmod_mat_solve(X.get(), M.get(), R.get())) return Check::singular;
  std::vector<ulong> pred(n);
  for (std::uint32_t i : rest) {
    std::fill(pred.begin(), pred.end(), 0);
    for (std::size_t e = starts[i]; e < starts[i + 1]; ++e) {
      slong b = colpos[C.c[e]];
      if (b >= 0)
        _nmod_vec_scalar_addmul_nmod(pred.data(), X.get()->rows[b], static_cast<slong>(n), mod_small(C.v[e].get(), q), mod);
    }
    for (std::size_t e = starts[i]; e < starts[i + 1]; ++e)
      pred[C.c[e]] = nmod_sub(pred[C.c[e]], mod_small(C.v[e].get(), q), mod);
    for (std::size_t j = 0; j < n; ++j)
      if (pred[j]) return Check::mismatch;
  }
  return Check::ok;
}

SparseIntMatrix transpose(const SparseIntMatrix& C) {
  std::vector<std::tuple<std::uint32_t, std::uint32_t, Fmpz>> e;
  e.reserve(C.nnz());
  for (std::size_t k = 0; k < C.nnz(); ++k) e.emplace_back(C.c[k], C.r[k], C.v[k]);
  return make_sparse(C.cols, C.rows, std::move(e));
}

// The check C = C[:,J] C[I,J]^-1 C[I,:] is the transpose of the same check on
// C^T with I and J swapped; this runs it in the cheaper orientation. Cost of
// the row orientation: r^2 n (the solve) + sum over rows i not in I of
// nnz(C[i,J]) n; of the column orientation the same with rows and columns swapped.
struct OrientedCheck {
  const SparseIntMatrix* M = nullptr;
  SparseIntMatrix transposed;
  std::vector<std::size_t> starts;
  std::vector<std::uint32_t> I, J;
  std::vector<slong> colpos;       // position in J, -1 outside
  std::vector<std::uint32_t> rest;  // rows outside I

  OrientedCheck(const SparseIntMatrix& C, const std::vector<std::uint32_t>& I0, const std::vector<std::uint32_t>& J0) {
    const double r = static_cast<double>(I0.size());
    std::vector<char> in_I(C.rows, 0), in_J(C.cols, 0);
    for (auto i : I0) in_I[i] = 1;
    for (auto j : J0) in_J[j] = 1;
    double nnz_rows = 0, nnz_cols = 0;
    for (std::size_t k = 0; k < C.nnz(); ++k) {
      if (in_J[C.c[k]] && !in_I[C.r[k]]) ++nnz_rows;
      if (in_I[C.r[k]] && !in_J[C.c[k]]) ++nnz_cols;
    }
    const double n = static_cast<double>(C.cols), m = static_cast<double>(C.rows);
    if (r * r * m + nnz_cols * m < r * r * n + nnz_rows * n) {
      transposed = transpose(C);
      M = &transposed;
      I = J0;
      J = I0;
    } else {
      M = &C;
      I = I0;
      J = J0;
    }
    starts = row_starts(*M);
    colpos.assign(M->cols, -1);
    for (std::size_t b = 0; b < J.size(); ++b) colpos[J[b]] = static_cast<slong>(b);
    std::vector<char> in_rows(M->rows, 0);
    for (auto i : I) in_rows[i] = 1;
    for (std::uint32_t i = 0; i < M->rows; ++i)
      if (!in_rows[i]) rest.push_back(i);
    bool small = true, smaller = true;
    for (const auto& v : M->v) {
      small = small && fmpz_cmpabs(v.get(), kBig.get()) < 0;
      smaller = smaller && fmpz_cmpabs(v.get(), kDenseBig.get()) < 0;
    }
    if (small) {
      vd.reserve(M->nnz());
      for (const auto& v : M->v) vd.push_back(static_cast<double>(fmpz_get_si(v.get())));
    }
    const double r2 = static_cast<double>(I.size());
    if (smaller && I.size() < 2048 &&
        static_cast<double>(M->rows) * (static_cast<double>(M->cols) + r2) <= DenseBlock::kDenseLimit) {
      dense = make_dense();
      for (double v : vd) dense_cmax = std::max(dense_cmax, std::abs(v));
    }
  }
  // check_dense is exact while r (q-1)^2 + max|C| < 2^52 (|D| below 2^52).
  bool dense_ok(ulong q) const {
    if (!dense) return false;
    const double d = static_cast<double>(q - 1);
    return static_cast<double>(I.size()) * d * d + dense_cmax < 0x1p52;
  }
  // Bits of the check primes for this block: 20, or more while every prime
  // below 2^bits keeps check_dense exact.
  unsigned prime_bits() const {
    unsigned b = 20;
    while (b < kMaxCheckPrimeBits && dense_ok((UWORD(1) << (b + 1)) - 1)) ++b;
    return b;
  }
  Check run(ulong q) const {
    if (dense_ok(q)) return check_dense(*dense, q);
    return check_mod(*M, starts, I, colpos, rest, q, vd.empty() && M->nnz() ? nullptr : &vd);
  }
  std::vector<double> vd;
  std::optional<DenseBlock> dense;
  double dense_cmax = 0;  // max |entry| when dense
  static inline const Fmpz kBig = Fmpz(WORD(1) << 52), kDenseBig = Fmpz(WORD(1) << 51);

 private:
  DenseBlock make_dense() const {
    const auto r = static_cast<Eigen::Index>(I.size()), n = static_cast<Eigen::Index>(M->cols),
               h = static_cast<Eigen::Index>(rest.size());
    std::vector<slong> rowpos(M->rows, -1);  // >= 0: position in I; <= -2: -2 - position in rest
    for (std::size_t a = 0; a < I.size(); ++a) rowpos[I[a]] = static_cast<slong>(a);
    for (std::size_t t = 0; t < rest.size(); ++t) rowpos[rest[t]] = -2 - static_cast<slong>(t);
    DenseBlock B{Mx::Zero(r, r), Mx::Zero(r, n), Mx::Zero(h, r), Mx::Zero(h, n)};
    for (std::size_t k = 0; k < M->nnz(); ++k) {
      const slong i = rowpos[M->r[k]], b = colpos[M->c[k]];
      const double v = vd[k];
      if (i >= 0) {
        B.RI(i, M->c[k]) = v;
        if (b >= 0) B.MI(i, b) = v;
      } else {
        B.Crest(-2 - i, M->c[k]) = v;
        if (b >= 0) B.CJ(-2 - i, b) = v;
      }
    }
    return B;
  }
};

// A block's first attempt, set up before any prime is tried: the profile,
// the bound the primes' product must exceed, the check, and the first batch
// of primes (every prime the bound asks for, each above 2^(bits-1)).
struct FirstAttempt {
  RankProfile P;
  Fmpz need;
  std::optional<OrientedCheck> check;
  unsigned bits = 0;
  std::size_t batch = 0;
  std::vector<Check> res;  // the first batch's results, once run

  FirstAttempt(const SparseIntMatrix& B, RankProfile profile) : P(std::move(profile)) {
    need = required_product(B, P.rows, P.cols);
    check.emplace(B, P.rows, P.cols);
    bits = check->prime_bits();
    batch = std::max<std::size_t>({1, thread_count(), fmpz_bits(need.get()) / (bits - 1) + 1});
  }
};

// Certifies one block. Primes are checked in batches of thread_count() in
// parallel and used in index order, so the certificate does not depend on
// the thread count. `first` is the first attempt, its first batch possibly
// already run (rank_exact_blocks runs several blocks' at once).
BlockCertificate certify_block(const SparseIntMatrix& B, std::uint64_t seed, std::size_t& retries,
                               FirstAttempt& first) {
  ulong profile_modulus = nth_prime(0);
  for (std::size_t attempt = 0; attempt < 8; ++attempt) {
    std::optional<FirstAttempt> own;
    FirstAttempt* at = attempt == 0 ? &first : &own.emplace(B, rank_profile_modp(B, profile_modulus, seed + attempt));
    BlockCertificate cert;
    cert.rows = at->P.rows;
    cert.cols = at->P.cols;
    cert.bound_bits = fmpz_bits(at->need.get());
    Fmpz prod(1);
    bool restart = false;
    const OrientedCheck& check = *at->check;
    std::size_t qi = 0;
    while (!restart && fmpz_cmp(prod.get(), at->need.get()) <= 0) {
      if (qi > 100000) throw LimitError("exact rank: too many primes needed");
      std::vector<Check> res;
      std::size_t batch;
      if (qi == 0 && !at->res.empty()) {
        res = std::move(at->res);
        batch = res.size();
      } else {
        batch = std::max<std::size_t>({1, thread_count(), qi == 0 ? at->batch : 0});
        res.resize(batch);
        parallel_for(batch, [&](std::size_t k) { res[k] = check.run(nth_check_prime(qi + k, at->bits)); });
      }
      for (std::size_t k = 0; k < batch && fmpz_cmp(prod.get(), at->need.get()) <= 0; ++k) {
        const ulong q = nth_check_prime(qi + k, at->bits);
        if (res[k] == Check::singular) continue;  // det C[I,J] = 0 mod q: this prime says nothing
        if (res[k] == Check::mismatch) {  // rank mod q exceeds |I|: redo the profile mod q
          // (mod q the rank is larger, so the profile grows; the next large prime
          // could divide the same minors again)
          profile_modulus = q;
          restart = true;
          ++retries;
          break;
        }
        if (cert.lower_prime == 0) cert.lower_prime = q;
        cert.primes.push_back(q);
        fmpz_mul_ui(prod.get(), prod.get(), q);
      }
      qi += batch;
    }
    if (!restart) return cert;
  }
  throw LimitError("exact rank: the modular rank profile did not stabilise after 8 attempts");
}

}  // namespace

ExactRankResult rank_exact(const SparseIntMatrix& C, std::uint64_t seed) {
  return rank_exact_blocks(split_blocks(C), seed);
}

ExactRankResult rank_exact_blocks(const std::vector<SparseIntMatrix>& blocks, std::uint64_t seed,
                                  const std::vector<RankProfile>* profiles,
                                  const std::function<void(std::size_t done, std::size_t total)>& progress) {
  ExactRankResult res;
  res.blocks = blocks.size();
  if (profiles && profiles->size() != blocks.size()) profiles = nullptr;
  // The blocks' first batches of primes in one parallel_for (one start of
  // the threads, and no thread idle at the end of each small block's batch),
  // for blocks whose dense layouts together stay within DenseBlock's limit
  // (they are all alive at once); each later block is set up when its turn
  // comes, and certify_block runs its first batch.
  std::vector<std::optional<FirstAttempt>> first(blocks.size());
  auto set_up = [&](std::size_t k) {
    const bool reuse = profiles && (*profiles)[k].prime == nth_prime(0);
    first[k].emplace(blocks[k], reuse ? (*profiles)[k] : rank_profile_modp(blocks[k], nth_prime(0), seed));
  };
  std::vector<std::pair<std::size_t, std::size_t>> tasks;  // (block, prime index)
  double entries = 0;
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    entries += static_cast<double>(blocks[k].rows) * static_cast<double>(blocks[k].cols);
    if (entries > DenseBlock::kDenseLimit) break;
    set_up(k);
    first[k]->res.resize(first[k]->batch);
    for (std::size_t i = 0; i < first[k]->batch; ++i) tasks.emplace_back(k, i);
  }
  parallel_for(tasks.size(), [&](std::size_t t) {
    FirstAttempt& f = *first[tasks[t].first];
    f.res[tasks[t].second] = f.check->run(nth_check_prime(tasks[t].second, f.bits));
  });
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    if (!first[k]) set_up(k);
    auto cert = certify_block(blocks[k], seed, res.retries, *first[k]);
    first[k].reset();  // its dense matrices are not needed any more
    res.primes_used = std::max(res.primes_used, cert.primes.size());
    res.rank += cert.rows.size();
    res.certificate.blocks.push_back(std::move(cert));
    if (progress) progress(k + 1, blocks.size());
  }
  return res;
}

bool verify_rank_certificate(const SparseIntMatrix& C, const RankCertificate& cert, std::string* why) {
  auto fail = [&](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  auto blocks = split_blocks(C);
  if (blocks.size() != cert.blocks.size())
    return fail("certificate has " + std::to_string(cert.blocks.size()) + " blocks, the matrix " +
                std::to_string(blocks.size()));
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const auto& B = blocks[k];
    const auto& bc = cert.blocks[k];
    const std::string where = "block " + std::to_string(k) + ": ";
    if (bc.rows.size() != bc.cols.size()) return fail(where + "|I| != |J|");
    std::vector<char> seen_r(B.rows, 0), seen_c(B.cols, 0);
    for (auto i : bc.rows) {
      if (i >= B.rows || seen_r[i]) return fail(where + "row index out of range or repeated");
      seen_r[i] = 1;
    }
    for (auto j : bc.cols) {
      if (j >= B.cols || seen_c[j]) return fail(where + "column index out of range or repeated");
      seen_c[j] = 1;
    }
    const OrientedCheck check(B, bc.rows, bc.cols);
    // lower bound: C[I,J] nonsingular mod lower_prime
    if (bc.lower_prime < 2 || !n_is_prime(bc.lower_prime)) return fail(where + "lower-bound modulus is not a prime");
    if (check.run(bc.lower_prime) == Check::singular)
      return fail(where + "C[I,J] is singular mod " + std::to_string(bc.lower_prime));
    // upper bound: product of distinct primes exceeds 2B, and each check passes
    Fmpz need = required_product(B, bc.rows, bc.cols), prod(1);
    std::vector<ulong> ps = bc.primes;
    std::sort(ps.begin(), ps.end());
    if (std::adjacent_find(ps.begin(), ps.end()) != ps.end()) return fail(where + "a prime is repeated");
    for (ulong q : ps) {
      if (q < 2 || !n_is_prime(q)) return fail(where + std::to_string(q) + " is not a prime");
      if (check.run(q) != Check::ok)
        return fail(where + "C != C[:,J] C[I,J]^-1 C[I,:] mod " + std::to_string(q));
      fmpz_mul_ui(prod.get(), prod.get(), q);
    }
    if (fmpz_cmp(prod.get(), need.get()) <= 0)
      return fail(where + "the primes' product does not exceed the bound 2B (" + std::to_string(fmpz_bits(need.get())) +
                  " bits)");
  }
  return true;
}

double estimate_exact_seconds(const SparseIntMatrix& C, const std::vector<std::size_t>& block_ranks) {
  return estimate_exact_seconds(split_blocks(C), block_ranks);
}

double estimate_exact_seconds(const std::vector<SparseIntMatrix>& blocks, const std::vector<std::size_t>& block_ranks) {
  double total = 0;
  for (std::size_t k = 0; k < blocks.size() && k < block_ranks.size(); ++k) {
    const auto& b = blocks[k];
    const double r = static_cast<double>(block_ranks[k]);
    double m = static_cast<double>(b.rows), n = static_cast<double>(b.cols);
    if (block_ranks[k] == std::min(b.rows, b.cols)) continue;
    if (m * r * r + m * n * 0 < n * r * r) std::swap(m, n);  // the cheaper orientation, roughly
    double cbits = 1;
    for (const auto& v : b.v) cbits = std::max(cbits, static_cast<double>(fmpz_bits(v.get())));
    const double bits = r * (cbits + 0.5 * std::log2(std::max(2.0, r)) + 1) + 2 * cbits + 4 * std::log2(std::max(2.0, r));
    const double primes = bits / 19.0 + 1;
    const double per_prime = (2 * (m - r) * n * r + 2 * r * r * n + 16 * (m - r) * n) / 3e9 + static_cast<double>(b.nnz()) * 2e-9;
    total += primes * per_prime;
  }
  return total / std::max(1u, thread_count());
}

std::vector<double> reduce_doubles_mod(const std::vector<double>& x, ulong q, bool vector) {
  if (vector && !BatchF64Ring::supported()) throw InternalError("reduce_doubles_mod: no AVX2 on this CPU");
  const double dq = static_cast<double>(q);
  Mx A = Eigen::Map<const Mx>(x.data(), static_cast<Eigen::Index>(x.size()), 1);
  Mx R = reduced_mod(A, dq, 1.0 / dq, vector);
  return std::vector<double>(R.data(), R.data() + R.size());
}

}  // namespace netpoly
