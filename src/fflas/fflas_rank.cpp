// netpoly_fflas: the one translation unit that includes FFLAS-FFPACK
// (include/netpoly/fflas.hpp). Built with -mavx2 -mfma and hidden
// visibility into its own shared library (CMakeLists.txt), so its inline
// code is never merged into the portable objects.
#include "netpoly/fflas.hpp"

#include <fflas-ffpack/fflas-ffpack.h>
#include <givaro/modular-balanced.h>

#include <cstdlib>
#include <cstring>

extern "C" void openblas_set_num_threads(int);

namespace netpoly::fflas {

__attribute__((visibility("default"))) bool available() {
  static const bool ok = [] {
    const char* e = std::getenv("NETPOLY_DENSE_RANK");
    if (e && std::strcmp(e, "flint") == 0) return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return ok;
}

__attribute__((visibility("default"))) std::size_t rank_modp(const std::uint64_t* a, std::size_t rows,
                                                             std::size_t cols, std::size_t stride, std::uint64_t p,
                                                             int threads) {
  if (rows == 0 || cols == 0) return 0;
  using Field = Givaro::ModularBalanced<double>;
  const Field F(static_cast<double>(p));
  double* A = FFLAS::fflas_new<double>(rows * cols);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) F.init(A[i * cols + j], static_cast<std::uint64_t>(a[i * stride + j]));
  openblas_set_num_threads(threads < 1 ? 1 : threads);
  const std::size_t r = FFPACK::Rank(F, rows, cols, A, cols);
  FFLAS::fflas_delete(A);
  return r;
}

}  // namespace netpoly::fflas
