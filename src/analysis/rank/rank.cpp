#include "analysis/rank/rank.hpp"

#include "analysis/rank/fflas.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <optional>

#include "netpoly/error.hpp"
#include "netpoly/parallel.hpp"
#include "runtime/random.hpp"
#include "netpoly/rings.hpp"
#include "analysis/rank/rank_shared.hpp"

namespace netpoly {

ulong nth_prime(std::size_t i) {
  static std::mutex mu;
  static std::vector<ulong> primes;
  std::lock_guard<std::mutex> lock(mu);
  while (primes.size() <= i) primes.push_back(n_nextprime(primes.empty() ? (UWORD(1) << 62) : primes.back(), 1));
  return primes[i];
}

ulong nth_check_prime(std::size_t i, unsigned bits) {
  if (bits < 20 || bits > kMaxCheckPrimeBits) throw InternalError("nth_check_prime: bits must be in [20, 26]");
  static std::mutex mu;
  static std::vector<ulong> primes[kMaxCheckPrimeBits + 1];
  std::lock_guard<std::mutex> lock(mu);
  auto& ps = primes[bits];
  while (ps.size() <= i) {
    // Trial division (odd divisors up to sqrt(2^26) = 8192), not FLINT's
    // n_nextprime or n_is_prime: below 2^20 both sieve a table of all primes
    // up to p into a per-thread cache, and the checks ask for primes from
    // worker threads that each rebuilt it (a third of the `perf` samples of
    // the whole analysis of attention (2,3,1,4)).
    auto is_prime = [](ulong n) {
      for (ulong f = 3; f * f <= n; f += 2)
        if (n % f == 0) return false;
      return true;
    };
    ulong p = ps.empty() ? (UWORD(1) << (bits - 1)) + 1 : ps.back() + 2;
    while (!is_prime(p)) p += 2;
    if (p >= (UWORD(1) << bits))
      throw LimitError("exact rank: ran out of check primes below 2^" + std::to_string(bits));
    ps.push_back(p);
  }
  return ps[i];
}

std::size_t RankCertificate::rank() const {
  std::size_t r = 0;
  for (const auto& b : blocks) r += b.rows.size();
  return r;
}

namespace {

std::vector<ulong> reduce(const SparseIntMatrix& C, ulong p) {
  std::vector<ulong> v(C.nnz());
  for (std::size_t k = 0; k < C.nnz(); ++k) v[k] = fmpz_fdiv_ui(C.v[k].get(), p);
  return v;
}

// Pivot columns of a matrix in reduced row echelon form.
std::vector<std::uint32_t> pivots(const NmodMat& A, std::size_t rank) {
  std::vector<std::uint32_t> p;
  slong j = 0;
  for (std::size_t i = 0; i < rank; ++i) {
    while (j < A.cols() && A.at(static_cast<slong>(i), j) == 0) ++j;
    p.push_back(static_cast<std::uint32_t>(j));
  }
  return p;
}

// Given independent rows I (mod p), finds r independent columns among C[I,:].
void complete_profile(const SparseIntMatrix& C, const std::vector<ulong>& vals, RankProfile& P) {
  const ulong p = P.prime;
  std::vector<slong> pos(C.rows, -1);
  for (std::size_t a = 0; a < P.rows.size(); ++a) pos[P.rows[a]] = static_cast<slong>(a);
  NmodMat sub(static_cast<slong>(P.rows.size()), static_cast<slong>(C.cols), p);
  for (std::size_t k = 0; k < C.nnz(); ++k)
    if (pos[C.r[k]] >= 0) sub.at(pos[C.r[k]], C.c[k]) = vals[k];
  std::size_t r = static_cast<std::size_t>(nmod_mat_rref(sub.get()));
  P.cols = pivots(sub, r);
  if (r < P.rows.size()) P.rows.resize(r);  // cannot happen for truly independent rows; stay consistent
  P.rank = r;
}

}  // namespace

RankProfile rank_profile_dense_modp(const SparseIntMatrix& C, ulong p) {
  RankProfile P;
  P.prime = p;
  P.algorithm = "dense";
  if (C.nnz() == 0) return P;
  auto vals = reduce(C, p);
  NmodMat At(static_cast<slong>(C.cols), static_cast<slong>(C.rows), p);  // transpose
  for (std::size_t k = 0; k < C.nnz(); ++k) At.at(C.c[k], C.r[k]) = vals[k];
  std::size_t r = static_cast<std::size_t>(nmod_mat_rref(At.get()));
  P.rows = pivots(At, r);  // pivot columns of C^T = independent rows of C
  complete_profile(C, vals, P);
  return P;
}

RankProfile rank_profile_projected_modp(const SparseIntMatrix& C, ulong p, std::uint64_t seed) {
  RankProfile P;
  P.prime = p;
  if (C.nnz() == 0) {
    P.algorithm = "projected";
    return P;
  }
  auto vals = reduce(C, p);
  nmod_t mod;
  nmod_init(&mod, p);
  const std::size_t full = std::min(C.rows, C.cols);
  std::size_t k = std::min<std::size_t>(32, full);
  SplitMix64 g(seed);
  while (true) {
    // T^T = (C S)^T, k x m, with S a random n x k matrix: row j of S is S[j][0..k).
    std::vector<ulong> S(C.cols * k);
    for (auto& s : S) s = g.below(p);
    NmodMat Tt(static_cast<slong>(k), static_cast<slong>(C.rows), p);
    std::vector<ulong> acc(k);
    std::size_t e = 0;
    while (e < C.nnz()) {
      const std::uint32_t row = C.r[e];
      std::fill(acc.begin(), acc.end(), 0);
      for (; e < C.nnz() && C.r[e] == row; ++e)
        _nmod_vec_scalar_addmul_nmod(acc.data(), S.data() + C.c[e] * k, static_cast<slong>(k), vals[e], mod);
      for (std::size_t j = 0; j < k; ++j) Tt.at(static_cast<slong>(j), row) = acc[j];
    }
    std::size_t r = static_cast<std::size_t>(nmod_mat_rref(Tt.get()));
    if (r == k && k < full) {
      k = std::min(2 * k, full);
      continue;
    }
    P.rows = pivots(Tt, r);  // rows of C S independent => rows of C independent
    P.algorithm = "projected(k=" + std::to_string(k) + ")";
    break;
  }
  complete_profile(C, vals, P);
  return P;
}

RankProfile rank_profile_modp(const SparseIntMatrix& C, ulong p, std::uint64_t seed) {
  // Dense elimination costs about rows*cols*rank; the projection about
  // nnz*k + rows*k*rank. Dense wins for small blocks.
  const double dense_cells = static_cast<double>(C.rows) * static_cast<double>(C.cols);
  if (dense_cells <= 250000.0) return rank_profile_dense_modp(C, p);
  return rank_profile_projected_modp(C, p, seed);
}

ModRankResult rank_modp(const SparseIntMatrix& C, ulong p, std::uint64_t seed) {
  return rank_modp_blocks(split_blocks(C), p, seed);
}

ModRankResult rank_modp_blocks(const std::vector<SparseIntMatrix>& blocks, ulong p, std::uint64_t seed,
                               std::vector<RankProfile>* profiles) {
  ModRankResult res;
  res.prime = p;
  res.blocks = blocks.size();
  bool projected = false;
  // The blocks are independent: eliminated on thread_count() threads, the
  // largest first (parallel_for hands out indices in order), each into its slot.
  std::vector<RankProfile> P(blocks.size());
  std::vector<std::size_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return blocks[a].nnz() > blocks[b].nnz(); });
  parallel_for(blocks.size(), [&](std::size_t k) { P[order[k]] = rank_profile_modp(blocks[order[k]], p, seed); });
  for (const auto& x : P) {
    res.rank += x.rank;
    res.block_ranks.push_back(x.rank);
    projected = projected || x.algorithm != "dense";
  }
  if (profiles) *profiles = std::move(P);
  res.algorithm = projected ? "blocks + projection" : "blocks + dense";
  return res;
}

std::size_t rank_dense_exact(const FmpzMat& M) {
  if (M.rows() == 0 || M.cols() == 0) return 0;
  return static_cast<std::size_t>(fmpz_mat_rank(M.get()));
}

std::size_t rank_dense_modp(const NmodMat& M, int threads) {
  if (M.rows() == 0 || M.cols() == 0) return 0;
  const ulong p = M.modulus();
  // FFLAS-FFPACK where the prime fits doubles and the matrix is large enough
  // for BLAS to pay (the two agree: tests/test_rank.cpp); FLINT otherwise.
  if (p > 2 && p < fflas::kMaxPrime && M.rows() * M.cols() >= kFflasMinCells && fflas::available())
    return fflas::rank_modp(M.get()->entries, static_cast<std::size_t>(M.rows()), static_cast<std::size_t>(M.cols()),
                            static_cast<std::size_t>(M.cols()), p, threads);
  NmodMat A(M);
  return static_cast<std::size_t>(nmod_mat_rank(A.get()));
}

}  // namespace netpoly
