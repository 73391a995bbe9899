// The compiled forward pass's kernels for AVX2 and FMA (compiled with
// -mavx2 -mfma, outside unity batches: CMakeLists.txt). Called only where
// the CPU has both (BatchF64Ring::supported()).
#include <immintrin.h>

#include "analysis/blackbox/tape_ops.hpp"

namespace netpoly::methods::tape {
namespace {

struct V {
  using T = __m256d;
  static constexpr std::size_t U = 4;  // vectors per step (16 registers: four sums and their operands)
  static constexpr std::size_t W = 4;
  static T load(const double* x) { return _mm256_loadu_pd(x); }
  static void store(double* x, T v) { _mm256_storeu_pd(x, v); }
  static T set1(double c) { return _mm256_set1_pd(c); }
  static T zero() { return _mm256_setzero_pd(); }
  static T add(T a, T b) { return _mm256_add_pd(a, b); }
  static T mul(T a, T b) { return _mm256_mul_pd(a, b); }
  static T fma(T a, T b, T c) { return _mm256_fmadd_pd(a, b, c); }
  static T fmsub(T a, T b, T c) { return _mm256_fmsub_pd(a, b, c); }
  static T fnmadd(T a, T b, T c) { return _mm256_fnmadd_pd(a, b, c); }
  static T round(T x) { return _mm256_round_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
};

#include "analysis/blackbox/tape_kernels.hpp"

}  // namespace

void run_avx2(const Op* ops, std::size_t n, const std::uint32_t* src, const double* coef, double* const* slot, const Arith& a) {
  run_any<V>(ops, n, src, coef, slot, a);
}

}  // namespace netpoly::methods::tape
