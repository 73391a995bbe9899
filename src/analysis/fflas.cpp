// Loads the FFLAS-FFPACK library (src/fflas/) on first use, after checking
// the CPU: it is compiled for AVX2 and FMA, so on another CPU it is never
// loaded and the callers fall back to FLINT (include/netpoly/fflas.hpp).
#include "netpoly/fflas.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace netpoly::fflas {
namespace {

using RankFn = std::size_t (*)(const std::uint64_t*, std::size_t, std::size_t, std::size_t, std::uint64_t, int);

// The library's path in this build (CMakeLists.txt), then the plain name
// (the loader's search path); null when the CPU, the environment or the
// loader says no.
RankFn load() {
  static const RankFn fn = []() -> RankFn {
    const char* e = std::getenv("NETPOLY_DENSE_RANK");
    if (e && std::strcmp(e, "flint") == 0) return nullptr;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return nullptr;
    void* h = dlopen(NETPOLY_FFLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libnetpoly_fflas.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) return nullptr;
    return reinterpret_cast<RankFn>(dlsym(h, "netpoly_fflas_rank_modp"));
  }();
  return fn;
}

}  // namespace

bool available() { return load() != nullptr; }

std::size_t rank_modp(const std::uint64_t* a, std::size_t rows, std::size_t cols, std::size_t stride, std::uint64_t p,
                      int threads) {
  return load()(a, rows, cols, stride, p, threads);
}

}  // namespace netpoly::fflas
