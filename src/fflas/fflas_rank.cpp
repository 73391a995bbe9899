// netpoly_fflas: the one translation unit that includes FFLAS-FFPACK
// (src/analysis/rank/fflas.hpp). Built with -mavx2 -mfma and hidden
// visibility into its own shared library (CMakeLists.txt), which nothing
// links: src/analysis/rank/fflas.cpp loads it with dlopen only on a CPU with AVX2
// and FMA, so none of its code (static initializers included) runs elsewhere.
#include <fflas-ffpack/fflas-ffpack.h>
#include <givaro/modular-balanced.h>

#include <cstddef>
#include <cstdint>

// The one exported symbol, looked up with dlsym by src/analysis/rank/fflas.cpp
// after its CPU check; see src/analysis/rank/fflas.hpp for the contract. OpenBLAS's
// thread count is set by the caller (rank/fflas.cpp: rank_modp), never here.
extern "C" __attribute__((visibility("default"))) std::size_t netpoly_fflas_rank_modp(
    const std::uint64_t* a, std::size_t rows, std::size_t cols, std::size_t stride, std::uint64_t p) {
  if (rows == 0 || cols == 0) return 0;
  using Field = Givaro::ModularBalanced<double>;
  const Field F(static_cast<double>(p));
  double* A = FFLAS::fflas_new<double>(rows * cols);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) F.init(A[i * cols + j], static_cast<std::uint64_t>(a[i * stride + j]));
  const std::size_t r = FFPACK::Rank(F, rows, cols, A, cols);
  FFLAS::fflas_delete(A);
  return r;
}
