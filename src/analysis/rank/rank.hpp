// Ranks of sparse integer matrices: modular (a certified lower bound on the
// rank over Q) and exact (certified both ways).
//
// Algorithm variants sit side by side behind dispatchers:
//   rank_profile_dense_modp / rank_profile_projected_modp  behind rank_profile_modp
//   rank_exact (certificate below) and verify_rank_certificate.
//
// The certificate of rank_Q(C) = r (per connected block of C):
//  * lower: row indices I and column indices J, |I| = |J| = r, with
//    det C[I,J] != 0 mod a prime p0. Then det C[I,J] != 0 over Z: rank >= r.
//  * upper: E = det(C[I,J]) C - C[:,J] adj(C[I,J]) C[I,:] is an integer matrix
//    with |E_ij| <= B (entry_bound: Hadamard bounds on the r x r and
//    (r-1) x (r-1) minors). For primes q_1..q_t with det C[I,J] invertible
//    mod q_i, check C = C[:,J] (C[I,J]^{-1} C[I,:]) mod q_i, which is E = 0
//    mod q_i. Once q_1 ... q_t > 2B, E = 0 over Z, so
//    C = C[:,J] C[I,J]^{-1} C[I,:] has rank <= r.
//  * a block with r = min(rows, cols) needs no upper certificate: its size bounds it.
// The checks use primes below 2^20 (nth_check_prime), or up to 2^26 for blocks
// of small rank and entries, so each check is a few exact double-precision
// matrix products.
#pragma once
#include <functional>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/rank/coeff_matrix.hpp"

namespace netpoly {

// Independent rows and columns mod p: C[rows, cols] is nonsingular mod p.
struct RankProfile {
  std::size_t rank = 0;
  std::vector<std::uint32_t> rows, cols;
  ulong prime = 0;
  std::string algorithm;  // "dense" or "projected(k=...)"
};

// Dense elimination; use for blocks with rows*cols below the dense limit.
RankProfile rank_profile_dense_modp(const SparseIntMatrix& C, ulong p);
// Randomised projection T = C S (S random n x k), doubling k until rank(T) < k.
// rank(T) <= rank_p(C) always, so the result is still a certified lower bound.
RankProfile rank_profile_projected_modp(const SparseIntMatrix& C, ulong p, std::uint64_t seed);
// Dispatcher.
RankProfile rank_profile_modp(const SparseIntMatrix& C, ulong p, std::uint64_t seed);

struct BlockCertificate {
  std::vector<std::uint32_t> rows, cols;  // I, J
  ulong lower_prime = 0;                  // det C[I,J] != 0 mod this prime
  std::vector<ulong> primes;              // C = C[:,J] C[I,J]^-1 C[I,:] checked mod each
  ulong bound_bits = 0;                   // bits of 2B (for the report)
};

struct RankCertificate {
  std::vector<BlockCertificate> blocks;  // one per connected block, in split_blocks order
  std::size_t rank() const;
};

struct ExactRankResult {
  std::size_t rank = 0;
  RankCertificate certificate;
  std::size_t blocks = 0, primes_used = 0, retries = 0;
};

// Exact rank over Q with a certificate (see the top of this file).
ExactRankResult rank_exact(const SparseIntMatrix& C, std::uint64_t seed = 1);
// The same on C's blocks (split_blocks(C), in that order). `profiles`, when
// given, are the blocks' rank profiles mod nth_prime(0) with this seed (as
// rank_modp_blocks returns them): the first attempt reuses them instead of
// recomputing the same elimination.
ExactRankResult rank_exact_blocks(const std::vector<SparseIntMatrix>& blocks, std::uint64_t seed,
                                  const std::vector<RankProfile>* profiles = nullptr,
                                  const std::function<void(std::size_t done, std::size_t total)>& progress = {});

// Modular rank (certified lower bound on rank_Q): sum over blocks of rank_p.
struct ModRankResult {
  std::size_t rank = 0;
  ulong prime = 0;
  std::size_t blocks = 0;
  std::vector<std::size_t> block_ranks;  // in split_blocks order
  std::string algorithm;
};
ModRankResult rank_modp(const SparseIntMatrix& C, ulong p, std::uint64_t seed = 1);
// The same on C's blocks; the blocks' profiles go to *profiles when given.
ModRankResult rank_modp_blocks(const std::vector<SparseIntMatrix>& blocks, ulong p, std::uint64_t seed,
                               std::vector<RankProfile>* profiles = nullptr);

// Seconds rank_exact is expected to take, given the blocks' ranks (e.g. from
// rank_modp): primes needed by the entry bound times the dense products of
// each check, on thread_count() threads. Blocks of full rank need no primes.
double estimate_exact_seconds(const SparseIntMatrix& C, const std::vector<std::size_t>& block_ranks);
double estimate_exact_seconds(const std::vector<SparseIntMatrix>& blocks, const std::vector<std::size_t>& block_ranks);

// A bound B >= |E_ij| for E = det(C[I,J]) C - C[:,J] adj(C[I,J]) C[I,:]
// (I, J: r rows and r columns of C), from Hadamard's inequality; the
// certificate's primes must multiply to more than 2B.
Fmpz entry_bound(const SparseIntMatrix& C, const std::vector<std::uint32_t>& I, const std::vector<std::uint32_t>& J);

// Re-checks a certificate from scratch against C. Returns true iff it proves
// rank_Q(C) = certificate.rank(); otherwise false with the reason in *why.
bool verify_rank_certificate(const SparseIntMatrix& C, const RankCertificate& cert, std::string* why = nullptr);

// Rank of a dense integer matrix over Q (FLINT fmpz_mat_rank) and mod p (the
// grid's and the black-box's matrices). Mod p, matrices of at least
// kFflasMinCells entries mod a prime below fflas::kMaxPrime go to FFLAS-FFPACK
// when fflas::available() (with `threads` BLAS threads), the rest to FLINT's
// nmod_mat_rank; both are exact ranks mod p.
inline constexpr long kFflasMinCells = 256 * 256;
std::size_t rank_dense_exact(const FmpzMat& M);
std::size_t rank_dense_modp(const NmodMat& M, int threads = 1);

// The primes netpoly uses, in order: the word primes just above 2^62
// (rank profiles, modular ranks, black-box and grid ranks).
ulong nth_prime(std::size_t i);

// The primes of the exact-rank check, in order: the primes above 2^(bits-1)
// and below 2^bits, small enough for exact double-precision products. bits
// is 20 (below kCheckPrimeLimit), or up to 26 for blocks whose rank and
// entries leave room (each prime then carries more bits: fewer checks).
inline constexpr ulong kCheckPrimeLimit = UWORD(1) << 20;
inline constexpr unsigned kMaxCheckPrimeBits = 26;
ulong nth_check_prime(std::size_t i, unsigned bits = 20);

// x mod q (in [0, q)) for doubles holding integers below 2^52 in absolute
// value, q < 2^26: how the check reduces its matrices. `vector` picks the
// AVX2 loop (only where BatchF64Ring::supported()), else the portable one;
// both are exact, so they agree bit for bit.
std::vector<double> reduce_doubles_mod(const std::vector<double>& x, ulong q, bool vector);

}  // namespace netpoly
