#include "netpoly/context.hpp"

#include "netpoly/error.hpp"
#include "runtime/limits.hpp"
#include "netpoly/parallel.hpp"

namespace netpoly {

void AnalysisContext::check_cancelled() const {
  if (cancelled && cancelled()) throw Interrupted("interrupted");
}

void AnalysisContext::check_memory(double bytes, const std::string& what) const {
  check_memory_estimate(resident_bytes() + bytes, max_memory_bytes, memory_default, what);
}

AnalysisContext AnalysisContext::process() {
  AnalysisContext c;
  c.budget_left = [] { return netpoly::budget_left(); };
  c.max_memory_bytes = current_limits().max_memory_bytes;
  c.memory_default = current_limits().memory_default;
  c.resident_bytes = [] { return netpoly::resident_bytes(); };
  c.threads = thread_count();
  return c;
}

}  // namespace netpoly
