// Loads the FFLAS-FFPACK library (src/fflas/) on first use, after checking
// the CPU: it is compiled for AVX2 and FMA, so on another CPU it is never
// loaded and the callers fall back to FLINT (src/analysis/rank/fflas.hpp).
#include "analysis/rank/fflas.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string>

namespace netpoly::fflas {
namespace {

using RankFn = std::size_t (*)(const std::uint64_t*, std::size_t, std::size_t, std::size_t, std::uint64_t);
using ThreadsFn = void (*)(int);

struct Loaded {
  RankFn rank = nullptr;
  ThreadsFn threads = nullptr;  // OpenBLAS's openblas_set_num_threads
};

constexpr const char* kName = "libnetpoly_fflas.so";

// The directory of the file this code runs from, with a trailing '/': the
// shared object's path as the loader opened it (the Python module), or
// /proc/self/exe in the executable (whose link map has no name). Resolved to
// an absolute path once, when this object is loaded, so that a relative
// path is read against the directory it was opened from. Empty if unknown.
std::string own_directory() {
  std::string path;
  Dl_info info;
  link_map* map = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&own_directory), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) &&
      map && map->l_name && map->l_name[0]) {
    path = map->l_name;
  } else {
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf);
    if (n > 0 && static_cast<std::size_t>(n) < sizeof buf) path.assign(buf, static_cast<std::size_t>(n));
  }
  if (path.empty()) return {};
  char* real = realpath(path.c_str(), nullptr);
  if (!real) return {};
  path = real;
  std::free(real);
  return path.substr(0, path.rfind('/') + 1);
}
const std::string own_dir = own_directory();

// OpenBLAS 0.3.21 (Debian 12) picks its kernels from the CPU model at load
// time and falls back to its SSE3 "Prescott" kernels on models it does not
// know (e.g. Xeons newer than Sapphire Rapids), which makes the dense ranks'
// dgemm about 2x slower on a CPU with AVX-512. When it says Prescott on a CPU
// with AVX2 and FMA (no real Prescott has them) and the user did not choose a
// core (OPENBLAS_CORETYPE), it is re-initialised, through its own dynamic
// initialiser, with the kernels for the CPU's features: SkylakeX (AVX-512
// F/DQ/BW/VL) or Haswell (AVX2). The kernels only change the speed: the
// products FFLAS reduces are exact in doubles either way.
void fix_openblas_core(void* h) {
  if (std::getenv("OPENBLAS_CORETYPE")) return;
  using NameFn = char* (*)();
  using InitFn = void (*)();
  const auto name = reinterpret_cast<NameFn>(dlsym(h, "openblas_get_corename"));
  const auto quit = reinterpret_cast<InitFn>(dlsym(h, "gotoblas_dynamic_quit"));
  const auto init = reinterpret_cast<InitFn>(dlsym(h, "gotoblas_dynamic_init"));
  if (!name || !quit || !init || std::strcmp(name(), "Prescott") != 0) return;
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  setenv("OPENBLAS_CORETYPE", avx512 ? "SkylakeX" : "Haswell", 0);
  quit();
  init();
}

// The library next to this object (an installed wheel: netpoly/ holds the
// executable, the Python module and the library; the build tree: build/
// holds the executable and the library, build/python/netpoly a link to it),
// then its path in the build tree where this was compiled (CMakeLists.txt,
// unless NETPOLY_FFLAS_BUILD_PATH=OFF), then the plain name (the loader's
// search path); null when the CPU, the environment or the loader says no.
const Loaded& load() {
  static const Loaded fn = []() -> Loaded {
    const char* e = std::getenv("NETPOLY_DENSE_RANK");
    if (e && std::strcmp(e, "flint") == 0) return {};
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return {};
    void* h = own_dir.empty() ? nullptr : dlopen((own_dir + kName).c_str(), RTLD_NOW | RTLD_LOCAL);
#ifdef NETPOLY_FFLAS_LIBRARY
    if (!h) h = dlopen(NETPOLY_FFLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
#endif
    if (!h) h = dlopen(kName, RTLD_NOW | RTLD_LOCAL);
    if (!h) return {};
    fix_openblas_core(h);
    Loaded l{reinterpret_cast<RankFn>(dlsym(h, "netpoly_fflas_rank_modp")),
             reinterpret_cast<ThreadsFn>(dlsym(h, "openblas_set_num_threads"))};
    if (!l.rank || !l.threads) return {};
    l.threads(1);  // the setting between calls (see rank_modp)
    return l;
  }();
  return fn;
}

// OpenBLAS's thread count is one global setting. Ranks run side by side
// (several blocks, or several claims of `check --jobs`) with one thread each
// and share the lock; a call with more threads holds it alone, sets the
// count, and puts it back to 1, so the count never changes under a
// running product.
std::shared_mutex& threads_lock() {
  static std::shared_mutex mu;
  return mu;
}

}  // namespace

bool available() { return load().rank != nullptr; }

std::size_t rank_modp(const std::uint64_t* a, std::size_t rows, std::size_t cols, std::size_t stride, std::uint64_t p,
                      int threads) {
  const Loaded& l = load();
  if (threads <= 1) {
    std::shared_lock lock(threads_lock());
    return l.rank(a, rows, cols, stride, p);
  }
  std::unique_lock lock(threads_lock());
  struct Back {
    ThreadsFn set;
    ~Back() { set(1); }
  } back{l.threads};
  l.threads(threads);
  return l.rank(a, rows, cols, stride, p);
}

}  // namespace netpoly::fflas
