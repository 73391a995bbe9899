// A sweep's request made into its spec (netpoly/table.hpp): every front end's
// lists and options checked here, once.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "netpoly/error.hpp"
#include "netpoly/options.hpp"
#include "netpoly/table.hpp"
#include "runtime/number_text.hpp"

namespace netpoly {

namespace {

// A list option without repeats, in the order given (--width 2,2,2 is one width).
std::vector<std::uint64_t> parse_unique_list(const std::string& s, const std::string& flag) {
  std::vector<std::uint64_t> r;
  for (auto v : parse_list(s, flag))
    if (std::find(r.begin(), r.end(), v) == r.end()) r.push_back(v);
  return r;
}

}  // namespace

// --bounds: ids of the registry that apply to some shape of the table;
// --columns: columns a sweep table of these shapes has (equal-budget tables
// have fixed columns).
TableView table_view(const std::string& bounds, const std::string& columns, const std::vector<NetworkShape>& shapes,
                     bool equal_budgets) {
  TableView v;
  if (!columns.empty()) {
    if (equal_budgets)
      throw InputError("--columns applies to sweep tables; an equal-budget table's columns are fixed (--bounds "
                       "chooses its bound columns)");
    if (columns == "all") v.all_columns = true;
    else v.columns = parse_table_columns(columns, shapes);
  }
  if (bounds.empty()) return v;
  if (bounds == "all") {
    v.all_bounds = true;
    return v;
  }
  v.bounds = parse_bound_ids(bounds);
  check_bound_ids_apply(v.bounds, shapes);
  return v;
}


SweepSpec sweep_spec(const SweepRequest& o, const SepOptions& sep) {
  SweepSpec s;
  s.sep = sep;
  if (!o.param_budget.empty()) {
    // Equal-budget comparison: --arch is a list, --param-budget a list of budgets.
    std::stringstream as(o.arch);
    for (std::string a; std::getline(as, a, ',');) {
      const Arch x = parse_arch(a);
      if (std::find(s.archs.begin(), s.archs.end(), x) == s.archs.end()) s.archs.push_back(x);
    }
    if (s.archs.empty()) throw InputError("--arch: expected a list like attention,mixer,mlp,product");
    s.arch = s.archs[0];
    std::stringstream bs(o.param_budget);
    for (std::string b; std::getline(bs, b, ',');) {
      if (!is_param_budget(b))
        throw InputError("--param-budget: expected positive integers below 2^62 separated by commas, got \"" +
                         o.param_budget + "\"");
      if (std::find(s.budgets.begin(), s.budgets.end(), b) == s.budgets.end()) s.budgets.push_back(b);
    }
    if (s.budgets.empty()) throw InputError("--param-budget: expected at least one budget");
    if (o.max_depth < 1 || o.max_depth > kMaxSweepDepth)
      throw InputError("--max-depth: must be in [1, " + std::to_string(kMaxSweepDepth) + "]");
    if (o.max_width < 1 || o.max_width > kMaxSweepWidth)
      throw InputError("--max-width: must be in [1, " + std::to_string(kMaxSweepWidth) + "]");
    s.max_depth = o.max_depth;
    s.max_width = o.max_width;
    if (!o.param_count.empty()) s.param_count = parse_param_count(o.param_count);
  } else {
    if (!o.param_count.empty()) throw InputError("--param-count applies to equal budgets (--param-budget) only");
    if (o.arch.find(',') != std::string::npos)
      throw InputError("--arch " + o.arch + ": several architectures only with --param-budget (equal budgets)");
    s.arch = parse_arch(o.arch);
  }
  s.layers = parse_unique_list(o.layers, "--layers");
  s.widths = parse_unique_list(o.width, "--width");
  s.heads = parse_unique_list(o.heads, "--heads");
  s.tokens = parse_unique_list(o.tokens.empty() ? (s.arch == Arch::product ? "1" : "2") : o.tokens, "--tokens");
  if (!o.degree.empty()) s.degrees = parse_unique_list(o.degree, "--degree");
  if (!o.degree.empty() && s.arch != Arch::product && s.arch != Arch::attention && s.budgets.empty())
    throw InputError("--degree applies to product and attention blocks only");
  s.residual = o.residual;
  s.seeds = o.seeds;
  s.range = o.range;
  if (o.range < 0 || o.range > kMaxWeightRange) throw InputError("--range: must be in [1, 2^40]");
  s.weights = parse_weight_dist(o.weights);
  s.partition = o.partition;
  if (!o.methods.empty()) s.sep.methods = parse_methods(o.methods);
  set_options_from_text(s.sep, o.options);
  // Equal-budget rows never run unbounded: 30 s a method unless --budget says otherwise.
  if (!std::isfinite(s.sep.budget) && !s.budgets.empty()) s.sep.budget = 30;
  if (s.seeds == 0 || s.seeds > kMaxSweepSeeds)
    throw InputError("--seeds: expected 1.." + std::to_string(kMaxSweepSeeds));
  return s;
}

}  // namespace netpoly
