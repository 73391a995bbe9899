// Parameter counts of the preset families and the (depth, width) shapes that
// fit a parameter budget, for depth-to-width tables (NB §6.1, LV §5, AO §1.2).
#include <algorithm>

#include "netpoly/bounds.hpp"
#include "netpoly/error.hpp"

namespace netpoly {

namespace {

Fmpz fz(std::uint64_t x) {
  Fmpz r;
  fmpz_set_ui(r.get(), x);
  return r;
}

// Parameters of depth L and width d, with the other fields of p; counts are
// those of src/model/presets.cpp.
Fmpz count(const NetworkShape& p, std::uint64_t L, std::uint64_t d) {
  Fmpz dd = fz(d), r;
  fmpz_mul(dd.get(), dd.get(), dd.get());  // d^2
  switch (p.arch) {
    case Arch::attention: {
      // per layer and head Q, K, V: d_a x d and O: d x d_a, so L H 4 d d_a = 4 L d^2; a degree-k
      // block has floor(k/2) score pairs (2 d d_a each) and V, O (odd k: (k + 1) L d^2 in all) or
      // C, N x d per head (even k: k L d^2 + L H N d).
      const std::uint64_t k = p.block_degree();
      fmpz_mul_ui(r.get(), dd.get(), L * (k % 2 ? k + 1 : k));
      if (k % 2 == 0) fmpz_add_ui(r.get(), r.get(), L * p.heads * p.tokens * d);
      return r;
    }
    case Arch::mlp:      // one d x d channel matrix per layer
    case Arch::product:  // k d x d matrices per block
      fmpz_mul_ui(r.get(), dd.get(), L);
      if (p.arch == Arch::product) fmpz_mul_ui(r.get(), r.get(), p.block_degree());
      return r;
    case Arch::mixer: {  // layers 1, 3, 5, ... mix tokens (N x N), layers 2, 4, ... mix channels (d x d)
      Fmpz nn = fz(p.tokens);
      fmpz_mul(nn.get(), nn.get(), nn.get());
      fmpz_mul_ui(r.get(), nn.get(), (L + 1) / 2);
      fmpz_addmul_ui(r.get(), dd.get(), L / 2);
      return r;
    }
  }
  return r;
}

// Largest width w <= cap with count(p, L, w) <= budget and w a multiple of
// `step` (H for attention); 0 if none. count is nondecreasing in w.
std::uint64_t widest(const NetworkShape& p, std::uint64_t L, const Fmpz& budget, std::uint64_t cap,
                     std::uint64_t step) {
  std::uint64_t lo = 0, hi = cap / step;  // in units of step
  while (lo < hi) {
    std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (fmpz_cmp(count(p, L, mid * step).get(), budget.get()) <= 0) lo = mid;
    else hi = mid - 1;
  }
  return lo * step;
}

}  // namespace

Fmpz parameter_count(const NetworkShape& p) {
  validate_bound_params(p);
  return count(p, p.layers, p.width);
}

std::vector<DepthWidthPoint> depth_width_points(const NetworkShape& base, const Fmpz& budget,
                                                const DepthWidthOptions& o) {
  const std::uint64_t step = base.arch == Arch::attention ? base.heads : 1;
  NetworkShape shape = base;  // base's own depth and width do not matter, only its other fields
  shape.layers = 1;
  shape.width = step;
  validate_bound_params(shape);
  if (o.max_width < 1) throw InputError("bounds: the width cap must be at least 1");
  // Stay inside validate_bound_params's ranges (depth <= 10^6, width <= 10^9).
  const std::uint64_t max_depth = std::min<std::uint64_t>(o.max_depth, 1000000);
  const std::uint64_t max_width = std::min<std::uint64_t>(o.max_width, 1000000000);
  std::vector<DepthWidthPoint> out;
  for (std::uint64_t L = 1; L <= max_depth; ++L) {
    const std::uint64_t w = widest(base, L, budget, max_width, step);
    if (w == 0) break;  // counts grow with depth: no deeper shape fits either
    const std::uint64_t first = o.all_widths ? step : w;
    for (std::uint64_t d = first; d <= w; d += step) {
      if (out.size() >= o.max_points)
        throw LimitError("bounds: more than " + std::to_string(o.max_points) +
                         " (depth, width) shapes fit the budget; lower the budget or the caps");
      NetworkShape p = base;
      p.layers = L;
      p.width = d;
      DepthWidthPoint pt;
      pt.depth = L;
      pt.width = d;
      pt.params = count(base, L, d);
      pt.bounds = compute_bounds(p, o.bound_options);
      out.push_back(std::move(pt));
    }
  }
  return out;
}

}  // namespace netpoly
