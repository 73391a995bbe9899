#pragma once
// Dense rank mod a small prime with FFLAS-FFPACK (PLUQ over
// Givaro::ModularBalanced<double>, its products through OpenBLAS's dgemm).
// It lives in its own shared library (src/fflas/), compiled for AVX2 and FMA
// with hidden symbols and loaded with dlopen only after a runtime CPU check
// (src/analysis/rank/fflas.cpp), so none of its code can reach a CPU without
// them. Callers ask available() first and fall back to FLINT (rank.cpp:
// rank_dense_modp is the one dispatcher).
#include <cstddef>
#include <cstdint>

namespace netpoly::fflas {

// Primes below this bound fit ModularBalanced<double> (Givaro's limit is
// about 2^26.5); larger primes go to FLINT.
inline constexpr std::uint64_t kMaxPrime = std::uint64_t(1) << 26;

// True when this CPU has AVX2 and FMA, the library loaded, and the
// environment does not say NETPOLY_DENSE_RANK=flint (how bench/ times the
// FLINT baseline in the same run).
bool available();

// Rank mod p (2 < p < kMaxPrime; only when available()) of the rows x cols matrix whose entry (i, j)
// is a[i * stride + j], each in [0, p). `threads` is OpenBLAS's thread count
// for this call (1 when several ranks run side by side). OpenBLAS's count is
// global: calls with one thread run side by side, a call with more runs
// alone (rank/fflas.cpp), so no call sees the count change under it.
std::size_t rank_modp(const std::uint64_t* a, std::size_t rows, std::size_t cols, std::size_t stride,
                      std::uint64_t p, int threads);

}  // namespace netpoly::fflas
