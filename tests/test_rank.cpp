// Ranks of sparse integer matrices (rank.hpp): hand-worked matrices
// (including ones whose rank drops mod the primes netpoly uses), random
// matrices of known rank built as U V and checked against FLINT's dense
// fmpz_mat_rank, block-diagonal matrices, the projected vs dense rank
// profiles, and the certificate checker accepting genuine certificates and
// rejecting corrupted ones.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/rank/coeff_matrix.hpp"
#include "analysis/rank/fflas.hpp"
#include "netpoly/presets.hpp"
#include "analysis/rank/rank.hpp"
#include "netpoly/rings.hpp"
#include "runtime/random.hpp"
#include "domains/batch_rings.hpp"

using namespace netpoly;

namespace {

using Entries = std::vector<std::tuple<std::uint32_t, std::uint32_t, Fmpz>>;

// A random integer of magnitude < 2^bits with a random sign.
Fmpz rand_int(SplitMix64& g, unsigned bits) {
  Fmpz z;
  for (unsigned done = 0; done < bits; done += 64) {
    unsigned take = std::min(64u, bits - done);
    std::uint64_t w = g.next();
    if (take < 64) w &= (UINT64_C(1) << take) - 1;
    fmpz_mul_2exp(z.get(), z.get(), take);
    fmpz_add_ui(z.get(), z.get(), w);
  }
  if (g.next() & 1) fmpz_neg(z.get(), z.get());
  return z;
}

// m x n with each entry nonzero with probability `density`.
FmpzMat rand_mat(SplitMix64& g, slong m, slong n, unsigned bits, double density) {
  FmpzMat A(m, n);
  for (slong i = 0; i < m; ++i)
    for (slong j = 0; j < n; ++j)
      if (static_cast<double>(g.next() >> 11) * 0x1.0p-53 < density) fmpz_set(A.at(i, j), rand_int(g, bits).get());
  return A;
}

FmpzMat mul(const FmpzMat& A, const FmpzMat& B) {
  FmpzMat C(A.rows(), B.cols());
  fmpz_mat_mul(C.get(), A.get(), B.get());
  return C;
}

SparseIntMatrix to_sparse(const FmpzMat& A) {
  Entries e;
  for (slong i = 0; i < A.rows(); ++i)
    for (slong j = 0; j < A.cols(); ++j) {
      Fmpz v;
      fmpz_set(v.get(), A.at(i, j));
      e.emplace_back(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), std::move(v));
    }
  return make_sparse(static_cast<std::size_t>(A.rows()), static_cast<std::size_t>(A.cols()), std::move(e));
}

SparseIntMatrix sparse(std::size_t m, std::size_t n, const std::vector<std::vector<slong>>& rows) {
  Entries e;
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j)
      e.emplace_back(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), Fmpz(rows[i][j]));
  return make_sparse(m, n, std::move(e));
}

FmpzMat to_dense(const SparseIntMatrix& C) {
  FmpzMat A(static_cast<slong>(C.rows), static_cast<slong>(C.cols));
  for (std::size_t k = 0; k < C.nnz(); ++k) fmpz_add(A.at(C.r[k], C.c[k]), A.at(C.r[k], C.c[k]), C.v[k].get());
  return A;
}

// The independent reference: FLINT's dense fraction-free rank.
std::size_t dense_rank(const FmpzMat& A) {
  if (A.rows() == 0 || A.cols() == 0) return 0;
  return static_cast<std::size_t>(fmpz_mat_rank(A.get()));
}

// det C[I, J] mod p, from the dense matrix.
ulong minor_mod(const FmpzMat& A, const std::vector<std::uint32_t>& I, const std::vector<std::uint32_t>& J, ulong p) {
  NmodMat M(static_cast<slong>(I.size()), static_cast<slong>(J.size()), p);
  for (std::size_t a = 0; a < I.size(); ++a)
    for (std::size_t b = 0; b < J.size(); ++b) M.at(a, b) = fmpz_fdiv_ui(A.at(I[a], J[b]), p);
  return I.empty() ? 1 : nmod_mat_det(M.get());
}

std::size_t dense_rank_mod(const FmpzMat& A, ulong p) {
  NmodMat M(A.rows(), A.cols(), p);
  for (slong i = 0; i < A.rows(); ++i)
    for (slong j = 0; j < A.cols(); ++j) M.at(i, j) = fmpz_fdiv_ui(A.at(i, j), p);
  return A.rows() && A.cols() ? static_cast<std::size_t>(nmod_mat_rank(M.get())) : 0;
}

// rank_exact, its certificate re-checked, and the modular rank below it.
std::size_t checked_exact(const SparseIntMatrix& C, std::uint64_t seed = 1) {
  auto ex = rank_exact(C, seed);
  CHECK(ex.certificate.rank() == ex.rank);
  CHECK(ex.certificate.blocks.size() == ex.blocks);
  std::string why;
  CHECK(verify_rank_certificate(C, ex.certificate, &why));
  INFO(why);
  for (std::size_t k = 0; k < 3; ++k) CHECK(rank_modp(C, nth_prime(k), seed).rank <= ex.rank);
  return ex.rank;
}

const ulong p0 = n_nextprime(UWORD(1) << 62, 1);

}  // namespace

TEST_CASE("nth_prime: the word primes just above 2^62, in order", "[rank]") {
  CHECK(nth_prime(0) == p0);
  CHECK(nth_prime(0) > (UWORD(1) << 62));
  for (std::size_t i = 1; i < 20; ++i) {
    CHECK(nth_prime(i) > nth_prime(i - 1));
    CHECK(n_is_prime(nth_prime(i)));
    CHECK(nth_prime(i) == n_nextprime(nth_prime(i - 1), 1));
  }
}

TEST_CASE("nth_check_prime: the primes from 2^19 up, in order, as FLINT's n_nextprime finds them", "[rank]") {
  // netpoly finds them by trial division (rank.cpp); FLINT's sieve is the second method.
  ulong p = UWORD(1) << 19;
  for (std::size_t i = 0; i < 300; ++i) {
    p = n_nextprime(p, 1);
    REQUIRE(nth_check_prime(i) == p);
  }
  CHECK(nth_check_prime(299) < kCheckPrimeLimit);
}

TEST_CASE("nth_check_prime with more bits; blocks of small rank and entries are certified with them", "[rank]") {
  for (unsigned bits : {20u, 23u, 26u}) {
    INFO(bits << " bits");
    ulong p = UWORD(1) << (bits - 1);
    for (std::size_t i = 0; i < 100; ++i) {
      p = n_nextprime(p, 1);
      REQUIRE(nth_check_prime(i, bits) == p);
    }
    CHECK(nth_check_prime(99, bits) < (UWORD(1) << bits));
  }
  CHECK_THROWS(nth_check_prime(0, 19));
  CHECK_THROWS(nth_check_prime(0, 27));
  // The block's primes have the most bits b <= 26 for which every q < 2^b
  // keeps the dense check exact: r (q-1)^2 + max|C| < 2^52.
  //  * rank 1, entries below 2^10: 1 * (2^26 - 2)^2 + 2^10 < 2^52, so b = 26;
  //  * rank 5, entries below 2^12: 5 (2^25 - 2)^2 > 2^52 but 5 (2^24 - 2)^2
  //    + 2^12 < 2^52, so b = 24;
  //  * an entry of 2^51: no dense layout at all, the 20-bit primes.
  // Every certificate re-checks.
  SplitMix64 g(31);
  struct Case {
    slong r;
    unsigned ubits;
    bool huge;
    unsigned want;
  };
  for (const Case c : {Case{1, 5, false, 26}, Case{5, 4, false, 24}, Case{5, 4, true, 20}}) {
    INFO("rank " << c.r << (c.huge ? ", an entry of 2^51" : ""));
    FmpzMat A0 = mul(rand_mat(g, 30, c.r, c.ubits, 1.0), rand_mat(g, c.r, 20, 4, 1.0));
    // with huge: one more row, 2^51 times the first (same rank, entries of 2^51 and more)
    FmpzMat A(c.huge ? 31 : 30, 20);
    for (slong i = 0; i < 30; ++i)
      for (slong j = 0; j < 20; ++j) fmpz_set(A.at(i, j), A0.at(i, j));
    if (c.huge)
      for (slong j = 0; j < 20; ++j) fmpz_mul_2exp(A.at(30, j), A0.at(0, j), 51);
    auto C = to_sparse(A);
    auto ex = rank_exact(C);
    CHECK(ex.rank == dense_rank(A));
    CHECK(ex.rank == static_cast<std::size_t>(c.r));
    CHECK(verify_rank_certificate(C, ex.certificate));
    REQUIRE(ex.certificate.blocks.size() == 1);
    const auto& ps = ex.certificate.blocks[0].primes;
    REQUIRE(!ps.empty());
    for (ulong q : ps) {
      CHECK(q > (UWORD(1) << (c.want - 1)));
      CHECK(q < (UWORD(1) << c.want));
    }
  }
}

TEST_CASE("rank_exact: hand-worked matrices", "[rank]") {
  // row 2 = 2 * row 1: rank 1
  CHECK(checked_exact(sparse(2, 2, {{1, 2}, {2, 4}})) == 1);
  // det = 4 - 6 = -2: rank 2
  CHECK(checked_exact(sparse(2, 2, {{1, 2}, {3, 4}})) == 2);
  // row 3 = 2 row 2 - row 1: rank 2
  CHECK(checked_exact(sparse(3, 3, {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})) == 2);
  // identity 4 x 4: four 1 x 1 blocks
  {
    auto I4 = sparse(4, 4, {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}});
    CHECK(split_blocks(I4).size() == 4);
    CHECK(checked_exact(I4) == 4);
  }
  // empty rows and columns do not count: entries at (0,1) and (3,4) only
  {
    Entries e;
    e.emplace_back(0, 1, Fmpz(5));
    e.emplace_back(3, 4, Fmpz(-7));
    auto C = make_sparse(4, 5, std::move(e));
    CHECK(split_blocks(C).size() == 2);
    CHECK(checked_exact(C) == 2);
  }
  // the zero matrix (and one with explicit zeros, dropped by make_sparse)
  {
    auto Z = sparse(3, 3, {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}});
    CHECK(Z.nnz() == 0);
    auto ex = rank_exact(Z);
    CHECK(ex.rank == 0);
    CHECK(ex.certificate.blocks.empty());
    CHECK(verify_rank_certificate(Z, ex.certificate));
    CHECK(rank_modp(Z, p0).rank == 0);
  }
}

TEST_CASE("rank_exact: matrices whose rank drops mod netpoly's primes", "[rank]") {
  // [[2, 1], [1, (q+1)/2]] has det 2 (q+1)/2 - 1 = q: rank 2 over Q, 1 mod q.
  auto det_is = [](const Fmpz& q) {
    Fmpz h;
    fmpz_add_ui(h.get(), q.get(), 1);
    fmpz_fdiv_q_2exp(h.get(), h.get(), 1);
    Entries e;
    e.emplace_back(0, 0, Fmpz(2));
    e.emplace_back(0, 1, Fmpz(1));
    e.emplace_back(1, 0, Fmpz(1));
    e.emplace_back(1, 1, h);
    return make_sparse(2, 2, std::move(e));
  };
  Fmpz q0;
  fmpz_set_ui(q0.get(), nth_prime(0));
  auto C = det_is(q0);
  CHECK(rank_modp(C, nth_prime(0)).rank == 1);
  CHECK(rank_modp(C, nth_prime(1)).rank == 2);
  auto ex = rank_exact(C);
  CHECK(ex.rank == 2);
  CHECK(ex.retries >= 1);
  CHECK(verify_rank_certificate(C, ex.certificate));
  // a certificate that checks the identity mod the prime dividing det C[I,J] proves nothing
  {
    auto bad = ex.certificate;
    bad.blocks[0].primes.push_back(nth_prime(0));
    CHECK_FALSE(verify_rank_certificate(C, bad));
  }

  // det = q0 q1: rank 1 mod both of the first two primes
  Fmpz q01;
  fmpz_mul_ui(q01.get(), q0.get(), nth_prime(1));
  auto D = det_is(q01);
  CHECK(rank_modp(D, nth_prime(0)).rank == 1);
  CHECK(rank_modp(D, nth_prime(1)).rank == 1);
  CHECK(checked_exact(D) == 2);

  // det = q0 q1 ... q9: rank 1 mod each of the first ten word primes; a retry
  // must move to a prime that shows the larger rank, not just the next one
  Fmpz q010(1);
  for (std::size_t i = 0; i < 10; ++i) fmpz_mul_ui(q010.get(), q010.get(), nth_prime(i));
  auto D10 = det_is(q010);
  for (std::size_t i = 0; i < 10; ++i) CHECK(rank_modp(D10, nth_prime(i)).rank == 1);
  CHECK(rank_modp(D10, nth_prime(10)).rank == 2);
  CHECK(checked_exact(D10) == 2);

  // a single entry equal to the first prime: rank 0 mod it, 1 over Q
  Entries e;
  e.emplace_back(0, 0, q0);
  auto P = make_sparse(1, 1, std::move(e));
  CHECK(rank_modp(P, nth_prime(0)).rank == 0);
  CHECK(checked_exact(P) == 1);
}

TEST_CASE("rank_exact: a rank drop mod the profile prime is caught on every small-prime check path", "[rank]") {
  // p0 = nth_prime(0) = 2^62 + 135 and p0 + 1 = 2^3 5 7 98714381 166848103, so
  //   [[3948575240, 1], [1, 1167936721]]   (3948575240 = 2^3 5 98714381, 1167936721 = 7 166848103)
  // has det 3948575240 * 1167936721 - 1 = p0, and
  //   [[2^51, -5], [27, 2048]]
  // has det 2^62 - (-5)(27) = 2^62 + 135 = p0 as well: rank 1 mod p0 (the
  // profile prime), 2 over Q. The first one's entries are below 2^51 (the
  // checks run on the dense block built once), the second has an entry of
  // 2^51 (the checks scatter the sparse entries per prime). Either way the
  // first check prime must find C != C[:,J] C[I,J]^-1 C[I,:] and force a retry.
  REQUIRE(nth_prime(0) == UWORD(4611686018427388039));
  auto two_by_two = [](slong a, slong b, slong c, slong d) {
    Entries e;
    e.emplace_back(0, 0, Fmpz(a));
    e.emplace_back(0, 1, Fmpz(b));
    e.emplace_back(1, 0, Fmpz(c));
    e.emplace_back(1, 1, Fmpz(d));
    return make_sparse(2, 2, std::move(e));
  };
  const slong big = WORD(1) << 51;
  for (const auto& C : {two_by_two(3948575240, 1, 1, 1167936721), two_by_two(big, -5, 27, 2048)}) {
    CHECK(dense_rank(to_dense(C)) == 2);
    CHECK(rank_modp(C, nth_prime(0)).rank == 1);
    auto ex = rank_exact(C);
    CHECK(ex.rank == 2);
    CHECK(ex.retries >= 1);
    CHECK(verify_rank_certificate(C, ex.certificate));
  }
  // The same rank drop inside a larger block (a 2 x 2 block next to identity
  // rows and columns): both paths still report rank 2 + 3.
  for (const slong a : {slong(3948575240), big}) {
    const bool first = a != big;
    Entries e;
    e.emplace_back(0, 0, Fmpz(a));
    e.emplace_back(0, 1, Fmpz(first ? 1 : -5));
    e.emplace_back(1, 0, Fmpz(first ? 1 : 27));
    e.emplace_back(1, 1, Fmpz(first ? 1167936721 : 2048));
    for (std::uint32_t k = 0; k < 3; ++k) {
      e.emplace_back(2 + k, 2 + k, Fmpz(5 + k));
      e.emplace_back(2 + k, 0, Fmpz(1));  // joins the rows to the 2 x 2 block
      e.emplace_back(0, 2 + k, Fmpz(3));
    }
    auto C = make_sparse(5, 5, std::move(e));
    const std::size_t want = dense_rank(to_dense(C));
    CHECK(split_blocks(C).size() == 1);
    CHECK(checked_exact(C) == want);
  }
}

namespace {

// adj(A) from cofactors: adj_kl = (-1)^(k+l) det(A without row l and column k).
FmpzMat adjugate(const FmpzMat& A) {
  const slong r = A.rows();
  FmpzMat adj(r, r);
  if (r == 1) fmpz_one(adj.at(0, 0));
  for (slong k = 0; k < r && r > 1; ++k)
    for (slong l = 0; l < r; ++l) {
      FmpzMat M(r - 1, r - 1);
      for (slong i = 0, mi = 0; i < r; ++i) {
        if (i == l) continue;
        for (slong j = 0, mj = 0; j < r; ++j)
          if (j != k) fmpz_set(M.at(mi, mj++), A.at(i, j));
        ++mi;
      }
      fmpz_mat_det(adj.at(k, l), M.get());
      if ((k + l) % 2) fmpz_neg(adj.at(k, l), adj.at(k, l));
    }
  return adj;
}

// max |E_ij| for E = det(C[I,J]) C - C[:,J] adj(C[I,J]) C[I,:], computed
// from that definition; E vanishes on the rows I and the columns J.
Fmpz max_abs_E(const FmpzMat& C, const std::vector<std::uint32_t>& I, const std::vector<std::uint32_t>& J) {
  const slong r = static_cast<slong>(I.size()), m = C.rows(), n = C.cols();
  FmpzMat CIJ(r, r), CJ(m, r), CI(r, n), E(m, n);
  for (slong a = 0; a < r; ++a)
    for (slong b = 0; b < r; ++b) fmpz_set(CIJ.at(a, b), C.at(I[a], J[b]));
  for (slong i = 0; i < m; ++i)
    for (slong b = 0; b < r; ++b) fmpz_set(CJ.at(i, b), C.at(i, J[b]));
  for (slong a = 0; a < r; ++a)
    for (slong j = 0; j < n; ++j) fmpz_set(CI.at(a, j), C.at(I[a], j));
  Fmpz det;
  fmpz_mat_det(det.get(), CIJ.get());
  FmpzMat T = mul(mul(CJ, adjugate(CIJ)), CI);
  fmpz_mat_scalar_mul_fmpz(E.get(), C.get(), det.get());
  fmpz_mat_sub(E.get(), E.get(), T.get());
  Fmpz big;
  for (slong i = 0; i < m; ++i)
    for (slong j = 0; j < n; ++j) {
      const bool inside = std::find(I.begin(), I.end(), i) != I.end() || std::find(J.begin(), J.end(), j) != J.end();
      if (inside) CHECK(fmpz_is_zero(E.at(i, j)));
      if (fmpz_cmpabs(E.at(i, j), big.get()) > 0) fmpz_abs(big.get(), E.at(i, j));
    }
  return big;
}

std::vector<std::uint32_t> first(std::uint32_t r) {
  std::vector<std::uint32_t> v(r);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

}  // namespace

TEST_CASE("entry_bound: hand-worked, a singular C[I,J] with a zero row, and above |E| on random matrices", "[rank]") {
  // B = H c + S_J A S_I (rank.cpp). C = [1 2; 3 4], I = J = {0}: E_11 = 1*4 - 3*1*2 = -2;
  // H = |1| = 1, A = 1 (empty product), c = 4, S_J = max(1, 3) = 3, S_I = max(1, 2) = 2: B = 4 + 3*1*2 = 10.
  CHECK(entry_bound(sparse(2, 2, {{1, 2}, {3, 4}}), {0}, {0}) == Fmpz(10));
  CHECK(max_abs_E(to_dense(sparse(2, 2, {{1, 2}, {3, 4}})), {0}, {0}) == Fmpz(2));

  // Sylvester's 8 x 8 Hadamard matrix (entries (-1)^popcount(i & j), orthogonal
  // rows of norm^2 8), I = J = {0..6}: E_77 = +-det = +-8^4 = 4096. H =
  // ceil(sqrt(7^7)) = 908, A = ceil(sqrt(7^6)) = 343, c = 1, S_J = S_I = 7:
  // B = 908 + 7 * 343 * 7 = 17715.
  {
    std::vector<std::vector<slong>> h(8, std::vector<slong>(8));
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) h[i][j] = __builtin_popcount(i & j) % 2 ? -1 : 1;
    auto C = sparse(8, 8, h);
    CHECK(max_abs_E(to_dense(C), first(7), first(7)) == Fmpz(4096));
    CHECK(entry_bound(C, first(7), first(7)) == Fmpz(17715));
  }
  // C[I,J] = diag(0, 2, 2, 2) (I = J = {0..3}, singular with a zero row), C_40
  // = C_04 = 1, C_44 = 0: det = 0 and adj(C[I,J])_00 = 2^3, the other
  // cofactors met by C[4,J] and C[J,4] vanish, so E_44 = -1 * 8 * 1 = -8.
  // Bounding the cofactors by 1 there would give S_J * S_I = 2 * 2 = 4 < 8;
  // with A = ceil(sqrt(4 * 4 * 4)) = 8 (every row norm^2 but the zero one):
  // B = 0 * 2 + 2 * 8 * 2 = 32.
  {
    auto C = sparse(5, 5, {{0, 0, 0, 0, 1}, {0, 2, 0, 0, 0}, {0, 0, 2, 0, 0}, {0, 0, 0, 2, 0}, {1, 0, 0, 0, 0}});
    CHECK(max_abs_E(to_dense(C), first(4), first(4)) == Fmpz(8));
    CHECK(entry_bound(C, first(4), first(4)) == Fmpz(32));
  }
  // Random matrices, dense and sparse (C[I,J] often singular), small and large
  // entries, one huge entry outside C[I,J], every r from 0 to min(m,n) - 1.
  SplitMix64 g(31);
  struct Case {
    slong m, n;
    unsigned bits;
    double density;
    bool huge;
  };
  const Case cases[] = {{6, 5, 3, 1.0, false}, {7, 9, 20, 0.6, false}, {9, 6, 2, 0.4, false}, {6, 6, 4, 1.0, true}};
  for (const auto& c : cases)
    for (int rep = 0; rep < 3; ++rep) {
      FmpzMat A = rand_mat(g, c.m, c.n, c.bits, c.density);
      if (c.huge) fmpz_set_si(A.at(c.m - 1, c.n - 1), WORD(1) << 40);
      auto C = to_sparse(A);
      for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(std::min(c.m, c.n)); ++r) {
        INFO(c.m << " x " << c.n << ", " << c.bits << " bits, r = " << r);
        CHECK(fmpz_cmp(max_abs_E(A, first(r), first(r)).get(), entry_bound(C, first(r), first(r)).get()) <= 0);
      }
    }
}

TEST_CASE("rank_exact: random U V of known rank vs dense fmpz_mat_rank", "[rank]") {
  struct Case {
    slong m, n, r;
    unsigned bits;
    double density;
  };
  const Case cases[] = {{12, 9, 4, 8, 1.0},    {30, 25, 7, 3, 0.3},   {20, 20, 20, 4, 0.6},
                        {15, 10, 5, 110, 0.5}, {40, 30, 12, 130, 0.2}, {25, 40, 9, 2, 0.15},
                        {9, 9, 3, 200, 1.0}};
  SplitMix64 g(2024);
  for (const auto& c : cases)
    for (int rep = 0; rep < 3; ++rep) {
      INFO(c.m << " x " << c.n << " rank <= " << c.r << ", " << c.bits << " bits, density " << c.density);
      FmpzMat A = mul(rand_mat(g, c.m, c.r, c.bits, c.density), rand_mat(g, c.r, c.n, c.bits, c.density));
      const std::size_t want = dense_rank(A);
      CHECK(want <= static_cast<std::size_t>(c.r));
      auto C = to_sparse(A);
      CHECK(checked_exact(C, static_cast<std::uint64_t>(rep + 1)) == want);
      // the blocks' ranks add up (each block ranked densely)
      std::size_t sum = 0;
      for (const auto& b : split_blocks(C)) sum += dense_rank(to_dense(b));
      CHECK(sum == want);
    }
}

TEST_CASE("rank_exact: block-diagonal matrices, rows and columns permuted", "[rank]") {
  SplitMix64 g(77);
  for (int rep = 0; rep < 4; ++rep) {
    // blocks (rows, cols, rank): dense products, so each block is connected
    const std::vector<std::tuple<slong, slong, slong>> shapes = {{5, 4, 2}, {3, 6, 3}, {7, 7, 1}, {4, 3, 3}, {1, 1, 1}};
    slong M = 0, N = 0;
    for (auto [m, n, r] : shapes) M += m, N += n;
    std::vector<std::uint32_t> pr(M), pc(N);
    std::iota(pr.begin(), pr.end(), 0);
    std::iota(pc.begin(), pc.end(), 0);
    for (slong i = M - 1; i > 0; --i) std::swap(pr[i], pr[g.below(i + 1)]);
    for (slong j = N - 1; j > 0; --j) std::swap(pc[j], pc[g.below(j + 1)]);
    Entries e;
    std::size_t want = 0;
    slong r0 = 0, c0 = 0;
    for (auto [m, n, r] : shapes) {
      FmpzMat B = mul(rand_mat(g, m, r, 40, 1.0), rand_mat(g, r, n, 40, 1.0));
      want += dense_rank(B);
      for (slong i = 0; i < m; ++i)
        for (slong j = 0; j < n; ++j) {
          REQUIRE(!fmpz_is_zero(B.at(i, j)));  // keeps the block connected
          Fmpz v;
          fmpz_set(v.get(), B.at(i, j));
          e.emplace_back(pr[r0 + i], pc[c0 + j], std::move(v));
        }
      r0 += m;
      c0 += n;
    }
    CHECK(want == 2 + 3 + 1 + 3 + 1);
    auto C = make_sparse(static_cast<std::size_t>(M), static_cast<std::size_t>(N), std::move(e));
    CHECK(split_blocks(C).size() == shapes.size());
    CHECK(dense_rank(to_dense(C)) == want);
    auto ex = rank_exact(C, rep + 1);
    CHECK(ex.blocks == shapes.size());
    CHECK(ex.rank == want);
    CHECK(verify_rank_certificate(C, ex.certificate));
  }
}

TEST_CASE("rank profiles: projected agrees with dense mod p", "[rank]") {
  struct Case {
    slong m, n, r;
    double density;
  };
  // ranks below, at and above the first projection width (32), and full rank
  const Case cases[] = {{40, 30, 12, 0.5}, {64, 64, 32, 0.3}, {80, 70, 50, 0.2},
                        {100, 60, 60, 0.1}, {50, 90, 33, 0.05}, {70, 70, 1, 1.0}};
  SplitMix64 g(99);
  const ulong p = nth_prime(0);
  for (const auto& c : cases) {
    INFO(c.m << " x " << c.n << " rank <= " << c.r);
    FmpzMat A = mul(rand_mat(g, c.m, c.r, 20, c.density), rand_mat(g, c.r, c.n, 20, c.density));
    auto C = to_sparse(A);
    const std::size_t want = dense_rank_mod(A, p);
    auto D = rank_profile_dense_modp(C, p);
    auto P = rank_profile_projected_modp(C, p, 5);
    CHECK(D.algorithm == "dense");
    CHECK(P.algorithm.rfind("projected", 0) == 0);
    CHECK(D.rank == want);
    CHECK(P.rank == want);
    for (const auto* R : {&D, &P}) {
      CHECK(R->prime == p);
      REQUIRE(R->rows.size() == R->rank);
      REQUIRE(R->cols.size() == R->rank);
      CHECK(std::is_sorted(R->rows.begin(), R->rows.end()));
      CHECK(minor_mod(A, R->rows, R->cols, p) != 0);  // C[I, J] nonsingular mod p
    }
    CHECK(rank_profile_modp(C, p, 5).rank == want);
  }
}

TEST_CASE("rank_exact: a large sparse matrix goes through the projection", "[rank]") {
  // 600 x 500 (above the dense limit of 250000 cells), rank 40
  SplitMix64 g(5);
  FmpzMat A = mul(rand_mat(g, 600, 40, 6, 0.08), rand_mat(g, 40, 500, 6, 0.08));
  auto C = to_sparse(A);
  const std::size_t want = dense_rank(A);
  auto blocks = split_blocks(C);
  std::size_t projected = 0;
  for (const auto& b : blocks)
    if (static_cast<double>(b.rows) * static_cast<double>(b.cols) > 250000.0) {
      ++projected;
      CHECK(rank_profile_modp(b, nth_prime(0), 1).algorithm.rfind("projected", 0) == 0);
    }
  CHECK(projected >= 1);
  auto mr = rank_modp(C, nth_prime(0));
  CHECK(mr.algorithm == "blocks + projection");
  CHECK(mr.rank == want);
  CHECK(checked_exact(C) == want);
}

TEST_CASE("verify_rank_certificate: rejects corrupted certificates", "[rank]") {
  // 10 x 8, rank 5, entries of 200+ bits (several primes needed), column 1 = 2 column 0.
  SplitMix64 g(31);
  FmpzMat U = rand_mat(g, 10, 5, 110, 1.0), V = rand_mat(g, 5, 8, 110, 1.0);
  for (slong i = 0; i < 5; ++i) fmpz_mul_ui(V.at(i, 1), V.at(i, 0), 2);
  FmpzMat A = mul(U, V);
  REQUIRE(dense_rank(A) == 5);
  auto C = to_sparse(A);
  REQUIRE(split_blocks(C).size() == 1);
  auto ex = rank_exact(C);
  REQUIRE(ex.rank == 5);
  const RankCertificate good = ex.certificate;
  const auto& gb = good.blocks[0];
  REQUIRE(gb.primes.size() >= 2);
  std::string why;
  REQUIRE(verify_rank_certificate(C, good, &why));

  auto rejects = [&](const RankCertificate& c, const std::string& reason) {
    std::string w;
    bool ok = verify_rank_certificate(C, c, &w);
    INFO("expected rejection: " << reason << "; got: " << w);
    CHECK_FALSE(ok);
    if (!reason.empty()) CHECK(w.find(reason) != std::string::npos);
  };
  SECTION("a prime dropped: the product no longer exceeds 2B") {
    auto c = good;
    c.blocks[0].primes.pop_back();
    rejects(c, "does not exceed");
    c.blocks[0].primes.clear();
    rejects(c, "does not exceed");
  }
  SECTION("J replaced by a dependent set") {
    auto c = good;
    std::vector<std::uint32_t> J = {0, 1};  // column 1 = 2 column 0
    for (auto j : gb.cols)
      if (J.size() < gb.cols.size() && j != 0 && j != 1) J.push_back(j);
    c.blocks[0].cols = J;
    rejects(c, "singular");
  }
  SECTION("the rank changed") {
    auto c = good;
    c.blocks[0].rows.pop_back();  // |I| = 4, |J| = 5
    rejects(c, "|I| != |J|");
    c.blocks[0].cols.pop_back();  // claims rank 4: C[I,J] singular, or the identity fails
    rejects(c, "");
    auto d = good;  // claims rank 6: any 6 x 6 minor is singular
    for (std::uint32_t i = 0; i < 10; ++i)
      if (std::find(gb.rows.begin(), gb.rows.end(), i) == gb.rows.end()) {
        d.blocks[0].rows.push_back(i);
        break;
      }
    for (std::uint32_t j = 2; j < 8; ++j)
      if (std::find(gb.cols.begin(), gb.cols.end(), j) == gb.cols.end()) {
        d.blocks[0].cols.push_back(j);
        break;
      }
    rejects(d, "singular");
  }
  SECTION("a composite modulus") {
    const ulong composite = (UWORD(1) << 62) + 1;  // 4^31 + 1 = 0 mod 5
    REQUIRE(composite % 5 == 0);
    auto c = good;
    c.blocks[0].primes[0] = composite;
    rejects(c, "is not a prime");
    auto d = good;
    d.blocks[0].lower_prime = composite;
    rejects(d, "not a prime");
    auto e = good;
    e.blocks[0].primes.push_back(e.blocks[0].primes[0]);
    rejects(e, "repeated");
  }
  SECTION("indices out of range, blocks that do not match") {
    auto c = good;
    c.blocks[0].rows[0] = 10;
    rejects(c, "out of range");
    auto d = good;
    d.blocks.push_back(gb);
    rejects(d, "blocks");
    // the good certificate does not fit a matrix of larger rank
    auto A2 = mul(U, V);
    fmpz_add_ui(A2.at(0, 1), A2.at(0, 1), 1);  // breaks column 1 = 2 column 0: rank 6
    REQUIRE(dense_rank(A2) == 6);
    CHECK_FALSE(verify_rank_certificate(to_sparse(A2), good));
  }
}

TEST_CASE("rank_dense_exact and rank_dense_modp", "[rank]") {
  SplitMix64 g(3);
  for (int rep = 0; rep < 5; ++rep) {
    FmpzMat A = mul(rand_mat(g, 9, 4, 30, 0.7), rand_mat(g, 4, 11, 30, 0.7));
    CHECK(rank_dense_exact(A) == dense_rank(A));
    NmodMat M(9, 11, p0);
    for (slong i = 0; i < 9; ++i)
      for (slong j = 0; j < 11; ++j) M.at(i, j) = fmpz_fdiv_ui(A.at(i, j), p0);
    CHECK(rank_dense_modp(M) == dense_rank_mod(A, p0));
    CHECK(rank_dense_modp(M) <= rank_dense_exact(A));
  }
  CHECK(rank_dense_exact(FmpzMat(0, 3)) == 0);
  CHECK(rank_dense_modp(NmodMat(4, 0, p0)) == 0);
}

TEST_CASE("make_sparse orders the entries by (row, column), ties in their given order", "[rank]") {
  // Reference: std::stable_sort of the (row, column, value) triples; the
  // library sorts by counting rows, then each row by column.
  SplitMix64 g(8);
  for (int rep = 0; rep < 20; ++rep) {
    const std::size_t rows = 1 + g.below(40), cols = 1 + g.below(40), n = g.below(300);
    Entries e;
    std::vector<std::tuple<std::uint32_t, std::uint32_t, slong>> ref;
    for (std::size_t k = 0; k < n; ++k) {
      const auto r = static_cast<std::uint32_t>(g.below(rows)), c = static_cast<std::uint32_t>(g.below(cols));
      const slong v = 1 + static_cast<slong>(k);  // distinct, so ties show their order
      e.emplace_back(r, c, Fmpz(v));
      ref.emplace_back(r, c, v);
    }
    std::stable_sort(ref.begin(), ref.end(), [](const auto& a, const auto& b) {
      return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b) : std::get<1>(a) < std::get<1>(b);
    });
    const auto M = make_sparse(rows, cols, std::move(e));
    REQUIRE(M.nnz() == ref.size());
    for (std::size_t k = 0; k < ref.size(); ++k) {
      CHECK(M.r[k] == std::get<0>(ref[k]));
      CHECK(M.c[k] == std::get<1>(ref[k]));
      CHECK(fmpz_get_si(M.v[k].get()) == std::get<2>(ref[k]));
    }
  }
}

TEST_CASE("reduce_doubles_mod: both loops give x mod q exactly, at the edges too", "[rank]") {
  // Against integer arithmetic (x mod q in [0, q)) on multiples of q, one
  // either side, and the largest magnitudes the check allows (below 2^52),
  // for primes from 3 to just below 2^26. For 528,559 (check prime 325 of
  // 20 bits) and 33,602,369 (2,769 of 26 bits) the double 1/q is below the
  // true 1/q, so q * (1/q) < 1, floor(x / q) comes out one short at x = q and
  // the correction t >= q -> t - q is needed (found by a search over the check
  // primes; t < 0 would need an error of 1/q, beyond doubles below 2^52).
  CHECK(nth_check_prime(325, 20) == 528559);
  CHECK(nth_check_prime(2769, 26) == 33602369);
  SplitMix64 g(11);
  for (ulong q : {ulong(3), ulong(1048583), nth_check_prime(0, 23), nth_check_prime(5, 26), (UWORD(1) << 26) - 5,
                  ulong(528559), ulong(33602369)}) {
    std::vector<double> x;
    std::vector<slong> xi;
    auto add = [&](slong v) {
      x.push_back(static_cast<double>(v));
      xi.push_back(v);
    };
    const slong Q = static_cast<slong>(q), top = (WORD(1) << 52) - 1;
    for (slong k : {WORD(0), WORD(1), WORD(7), top / Q - 1, top / Q})
      for (slong d : {WORD(-1), WORD(0), WORD(1)}) {
        add(k * Q + d);
        add(-(k * Q + d));
      }
    add(top);
    add(-top);
    for (int i = 0; i < 2000; ++i) add(static_cast<slong>(g.next() % static_cast<std::uint64_t>(top)) * (i % 2 ? 1 : -1));
    for (bool vector : {false, true}) {
      if (vector && !BatchF64Ring::supported()) continue;
      INFO("q = " << q << (vector ? ", AVX2" : ", portable"));
      const auto r = reduce_doubles_mod(x, q, vector);
      REQUIRE(r.size() == x.size());
      std::size_t wrong = 0;
      for (std::size_t k = 0; k < x.size(); ++k) {
        slong want = xi[k] % Q;
        if (want < 0) want += Q;
        wrong += r[k] != static_cast<double>(want);
      }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("rank_dense_modp through FFLAS-FFPACK agrees with FLINT's nmod_mat_rank", "[rank][fflas]") {
  // Second method: FLINT's nmod_mat_rank on a copy (nmod_mat_rank is the
  // fallback of the dispatcher, called here directly). The matrices are
  // U V mod p with U (m x r), V (r x n) random, so their rank is at most r
  // and, mod a prime this large, almost always exactly r; shapes straddle the
  // dispatcher's kFflasMinCells and the FFLAS block sizes, primes are random
  // of 3 to 26 bits.
  if (!fflas::available()) {
    WARN("FFLAS-FFPACK unavailable on this CPU (or NETPOLY_DENSE_RANK=flint): nothing to compare");
    return;
  }
  SplitMix64 g(19);
  auto flint_rank = [](const NmodMat& M) {
    NmodMat A(M);
    return static_cast<std::size_t>(nmod_mat_rank(A.get()));
  };
  const std::vector<std::tuple<slong, slong, slong>> shapes = {
      {256, 256, 256}, {300, 260, 200}, {260, 400, 259}, {512, 512, 511}, {700, 300, 150}, {257, 1024, 256}};
  for (const auto& [m, n, r] : shapes)
    for (unsigned bits : {3u, 12u, 22u, 25u, 26u}) {
      ulong p = n_nextprime((UWORD(1) << (bits - 1)) + g.below(UWORD(1) << (bits - 1)), 1);
      while (p >= fflas::kMaxPrime || !n_is_prime(p)) --p;
      NmodMat U(m, r, p), V(r, n, p), M(m, n, p);
      for (slong i = 0; i < m; ++i)
        for (slong k = 0; k < r; ++k) U.at(i, k) = g.below(p);
      for (slong k = 0; k < r; ++k)
        for (slong j = 0; j < n; ++j) V.at(k, j) = g.below(p);
      nmod_mat_mul(M.get(), U.get(), V.get());
      INFO("m=" << m << " n=" << n << " r=" << r << " p=" << p);
      const std::size_t want = flint_rank(M);
      CHECK(rank_dense_modp(M) == want);
      CHECK(rank_dense_modp(M, 2) == want);
      CHECK(fflas::rank_modp(M.get()->entries, m, n, n, p, 1) == want);
      if (bits >= 22) CHECK(want == static_cast<std::size_t>(std::min({m, n, r})));
    }
  // A hand-made drop: row 299 = row 0 + 2 row 1 mod p, on a full-rank square.
  const ulong p = n_nextprime(UWORD(1) << 24, 1);
  NmodMat M(300, 300, p);
  for (slong i = 0; i < 300; ++i)
    for (slong j = 0; j < 300; ++j) M.at(i, j) = g.below(p);
  nmod_t mod;
  nmod_init(&mod, p);
  for (slong j = 0; j < 300; ++j) M.at(299, j) = nmod_add(M.at(0, j), nmod_mul(2, M.at(1, j), mod), mod);
  CHECK(rank_dense_modp(M) == flint_rank(M));
  CHECK(rank_dense_modp(M) <= 299);
  // Sub-matrix through the stride: the left 300 x 150 has rank 150.
  CHECK(fflas::rank_modp(M.get()->entries, 300, 150, 300, p, 1) == 150);
}
