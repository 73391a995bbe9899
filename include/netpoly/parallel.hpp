// A process-wide thread count (set by --threads) and a deterministic parallel loop.
#pragma once
#include <cstddef>
#include <functional>

namespace netpoly {

// Threads netpoly's own parallel loops and FLINT's multiplication may use.
void set_thread_count(unsigned n);  // 0 = all cores
unsigned thread_count();

// Runs fn(i) for i in [0, n) on up to thread_count() threads. fn must write
// only to its own slot i, so results do not depend on the thread count.
// The first exception thrown by any fn is rethrown.
void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn);

}  // namespace netpoly
