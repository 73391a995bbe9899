// Parameter counts of the preset families and the (depth, width) shapes that
// fit a parameter budget, for depth-to-width tables (NB §6.1, LV §5, AO §1.2).
#include <algorithm>
#include <string>

#include "netpoly/bounds.hpp"
#include "netpoly/error.hpp"

namespace netpoly {

namespace {

Fmpz fz(std::uint64_t x) {
  Fmpz r;
  fmpz_set_ui(r.get(), x);
  return r;
}

// Parameters of depth L and width d, with the other fields of p, under a
// counting model (bounds.hpp); netpoly's counts are those of
// src/model/presets.cpp.
Fmpz count(const NetworkShape& p, std::uint64_t L, std::uint64_t d, ParamCount model) {
  Fmpz dd = fz(d), r;
  fmpz_mul(dd.get(), dd.get(), dd.get());  // d^2
  const std::uint64_t k = p.block_degree();
  // Matrices of d x d a degree-k block (attention, product) under the model.
  auto block = [&](std::uint64_t netpoly_matrices) -> std::uint64_t {
    switch (model) {
      case ParamCount::netpoly: return netpoly_matrices;
      case ParamCount::ao_eq4: return k;
      case ParamCount::ao_eq2: return k - 1;
      case ParamCount::lv: return 12;
    }
    return netpoly_matrices;
  };
  switch (p.arch) {
    case Arch::attention: {
      // per layer and head Q, K, V: d_a x d and O: d x d_a, so L H 4 d d_a = 4 L d^2; a degree-k
      // block has floor(k/2) score pairs (2 d d_a each) and V, O (odd k: (k + 1) L d^2 in all) or
      // C, N x d per head (even k: k L d^2 + L H N d).
      fmpz_mul_ui(r.get(), dd.get(), L * block(k % 2 ? k + 1 : k));
      if (model == ParamCount::netpoly && k % 2 == 0) fmpz_add_ui(r.get(), r.get(), L * p.heads * p.tokens * d);
      return r;
    }
    case Arch::mlp:      // one d x d channel matrix per layer
    case Arch::product:  // k d x d matrices per block
      fmpz_mul_ui(r.get(), dd.get(), L);
      if (p.arch == Arch::product) fmpz_mul_ui(r.get(), r.get(), block(k));
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

}  // namespace

void check_param_count(const NetworkShape& p, ParamCount model) {
  const bool block = p.arch == Arch::attention || p.arch == Arch::product;
  if (model == ParamCount::lv && block && !(p.arch == Arch::attention && p.block_degree() == 3))
    throw InputError(std::string("--param-count lv: LV eq. (2) counts degree-3 attention layers (12 d^2 each), not ") +
                     (p.arch == Arch::product ? "product blocks" : "attention blocks of degree " + std::to_string(p.block_degree())));
  if (model == ParamCount::ao_eq2 && block && p.block_degree() < 2)
    throw InputError("--param-count ao-eq2: a degree-1 block has k - 1 = 0 matrices");
}

namespace {

// Largest width w <= cap with count(p, L, w) <= budget and w a multiple of
// `step` (H for attention); 0 if none. count is nondecreasing in w.
std::uint64_t widest(const NetworkShape& p, std::uint64_t L, const Fmpz& budget, std::uint64_t cap,
                     std::uint64_t step, ParamCount model) {
  std::uint64_t lo = 0, hi = cap / step;  // in units of step
  while (lo < hi) {
    std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (fmpz_cmp(count(p, L, mid * step, model).get(), budget.get()) <= 0) lo = mid;
    else hi = mid - 1;
  }
  return lo * step;
}

}  // namespace

ParamCount parse_param_count(const std::string& s, const std::string& flag) {
  std::string t = s;
  std::replace(t.begin(), t.end(), '_', '-');
  for (ParamCount m : {ParamCount::netpoly, ParamCount::ao_eq4, ParamCount::ao_eq2, ParamCount::lv})
    if (t == param_count_name(m)) return m;
  throw InputError(flag + ": expected netpoly, ao-eq4, ao-eq2 or lv, got \"" + s + "\"");
}

const char* param_count_name(ParamCount m) {
  switch (m) {
    case ParamCount::netpoly: return "netpoly";
    case ParamCount::ao_eq4: return "ao-eq4";
    case ParamCount::ao_eq2: return "ao-eq2";
    case ParamCount::lv: return "lv";
  }
  return "netpoly";
}

Fmpz parameter_count(const NetworkShape& p, ParamCount model) {
  validate_bound_params(p);
  check_param_count(p, model);
  return count(p, p.layers, p.width, model);
}

std::string parameter_count_text(const NetworkShape& p, ParamCount model) {
  const Fmpz total = parameter_count(p, model);
  const std::string L = std::to_string(p.layers), d = std::to_string(p.width), k = std::to_string(p.block_degree());
  const std::uint64_t kk = p.block_degree();
  std::string f, v;  // the formula and its numbers
  switch (p.arch) {
    case Arch::attention:
      if (model == ParamCount::lv) {
        f = "12 L d^2";
        v = "12 * " + L + " * " + d + "^2";
      } else if (model == ParamCount::ao_eq4 || model == ParamCount::ao_eq2) {
        const bool eq4 = model == ParamCount::ao_eq4;
        f = eq4 ? "k L d^2" : "(k - 1) L d^2";
        v = std::to_string(eq4 ? kk : kk - 1) + " * " + L + " * " + d + "^2";
      } else if (kk % 2) {
        f = "(k + 1) L d^2";
        v = std::to_string(kk + 1) + " * " + L + " * " + d + "^2";
      } else {
        f = "k L d^2 + L H N d";
        v = k + " * " + L + " * " + d + "^2 + " + L + " * " + std::to_string(p.heads) + " * " +
            std::to_string(p.tokens) + " * " + d;
      }
      break;
    case Arch::product:
      f = model == ParamCount::ao_eq2 ? "(k - 1) L d^2" : "k L d^2";
      v = std::to_string(model == ParamCount::ao_eq2 ? kk - 1 : kk) + " * " + L + " * " + d + "^2";
      break;
    case Arch::mlp:
      f = "L d^2";
      v = L + " * " + d + "^2";
      break;
    case Arch::mixer:
      f = "ceil(L/2) N^2 + floor(L/2) d^2";
      v = std::to_string((p.layers + 1) / 2) + " * " + std::to_string(p.tokens) + "^2 + " +
          std::to_string(p.layers / 2) + " * " + d + "^2";
      break;
  }
  return f + " = " + v + " = " + total.str();
}

std::vector<DepthWidthPoint> depth_width_points(const NetworkShape& base, const Fmpz& budget,
                                                const DepthWidthOptions& o) {
  const std::uint64_t step = base.arch == Arch::attention ? base.heads : 1;
  NetworkShape shape = base;  // base's own depth and width do not matter, only its other fields
  shape.layers = 1;
  shape.width = step;
  validate_bound_params(shape);
  check_param_count(shape, o.count);
  if (o.max_width < 1) throw InputError("bounds: the width cap must be at least 1");
  // Stay inside validate_bound_params's ranges (depth <= 10^6, width <= 10^9).
  const std::uint64_t max_depth = std::min<std::uint64_t>(o.max_depth, 1000000);
  const std::uint64_t max_width = std::min<std::uint64_t>(o.max_width, 1000000000);
  std::vector<DepthWidthPoint> out;
  for (std::uint64_t L = 1; L <= max_depth; ++L) {
    const std::uint64_t w = widest(base, L, budget, max_width, step, o.count);
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
      pt.params = count(base, L, d, o.count);
      pt.bounds = compute_bounds(p, o.bound_options);
      out.push_back(std::move(pt));
    }
  }
  return out;
}

}  // namespace netpoly
