// The compiled forward pass's kernels for AVX-512 (compiled with -mavx512f,
// outside unity batches: CMakeLists.txt). Called only where the CPU and the
// OS support it (__builtin_cpu_supports("avx512f"), blackbox/tape.cpp).
#include <immintrin.h>

#include "analysis/blackbox/tape_ops.hpp"

namespace netpoly::methods::tape {
namespace {

struct V {
  using T = __m512d;
  static constexpr std::size_t U = 8;  // vectors per step: all 64 lanes at once
  static constexpr std::size_t W = 8;
  static T load(const double* x) { return _mm512_loadu_pd(x); }
  static void store(double* x, T v) { _mm512_storeu_pd(x, v); }
  static T set1(double c) { return _mm512_set1_pd(c); }
  static T zero() { return _mm512_setzero_pd(); }
  static T add(T a, T b) { return _mm512_add_pd(a, b); }
  static T mul(T a, T b) { return _mm512_mul_pd(a, b); }
  static T fma(T a, T b, T c) { return _mm512_fmadd_pd(a, b, c); }
  static T fmsub(T a, T b, T c) { return _mm512_fmsub_pd(a, b, c); }
  static T fnmadd(T a, T b, T c) { return _mm512_fnmadd_pd(a, b, c); }
  // (the masked form: the unmasked one reads an undefined vector, which GCC 12 warns of)
  static T round(T x) { return _mm512_maskz_roundscale_pd(0xFF, x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
};

#include "analysis/blackbox/tape_kernels.hpp"

}  // namespace

void run_avx512(const Op* ops, std::size_t n, const std::uint32_t* src, const double* coef, double* const* slot,
                const Arith& a) {
  run_any<V>(ops, n, src, coef, slot, a);
}

}  // namespace netpoly::methods::tape
