#include "netpoly/parallel.hpp"

#include <flint/flint.h>

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace netpoly {

namespace {
std::atomic<unsigned> g_threads{1};
}

void set_thread_count(unsigned n) {
  if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
  g_threads = n;
  flint_set_num_threads(static_cast<int>(n));
}

unsigned thread_count() { return g_threads; }

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn) {
  const unsigned t = static_cast<unsigned>(std::min<std::size_t>(thread_count(), n));
  if (t <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr err;
  std::mutex mu;
  auto work = [&]() {
    for (std::size_t i; (i = next++) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!err) err = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  // flint_cleanup frees the caches FLINT keeps per thread (primes, fmpz pages);
  // without it every call leaked them once per worker.
  for (unsigned k = 1; k < t; ++k)
    pool.emplace_back([&work]() {
      work();
      flint_cleanup();
    });
  work();
  for (auto& th : pool) th.join();
  if (err) std::rethrow_exception(err);
}

}  // namespace netpoly
