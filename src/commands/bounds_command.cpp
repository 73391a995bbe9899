// netpoly bounds --arch A --layers L --width d …: every seed bound that applies
// to one shape, as an aligned table or JSON.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "commands/commands.hpp"
#include "netpoly/bounds.hpp"
#include "netpoly/error.hpp"

namespace netpoly::cli {

namespace {


void print_text(std::ostream& os, const NetworkShape& p, const Fmpz& params, const std::vector<Bound>& bs) {
  os << arch_name(p.arch) << ": L=" << p.layers << " d=" << p.width;
  if (p.arch == Arch::attention) os << " H=" << p.heads << " (d_a=" << p.width / p.heads << ")";
  if (p.arch == Arch::mixer || p.arch == Arch::mlp) os << " H=" << p.heads;
  if (p.arch != Arch::mlp) os << " N=" << p.tokens;
  const bool blocks = p.arch == Arch::attention && p.block_degree() != 3;  // AO eq. (2)'s degree-k blocks
  if (p.arch == Arch::product || blocks) os << " k=" << p.block_degree();
  if (p.arch == Arch::attention && !blocks)
    os << " C(L)=" << (p.layers <= 40 ? lv_C(p.layers).str() : "(3^L-1)/2");
  os << (p.residual ? ", residual" : "") << "; " << params.str() << " parameters\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"id", "kind", "value", "log3", "condition", "regime"});
  for (const Bound& b : bs)
    rows.push_back({b.id, bound_kind_name(b.kind), format_value(b), format_log3(b), b.condition,
                    b.in_regime ? "holds" : "NOT in regime"});
  std::vector<std::size_t> w(rows[0].size(), 0);
  for (const auto& r : rows)
    for (std::size_t j = 0; j < r.size(); ++j) w[j] = std::max(w[j], r[j].size());
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t j = 0; j < r.size(); ++j) {
      line += r[j];
      if (j + 1 < r.size()) line += std::string(w[j] - r[j].size() + 2, ' ');
    }
    os << line << "\n";
  }
  os << "log3 = base-3 logarithm of the formula; upper/lower bounds are on sep w.r.t. any partition of the tokens;\n"
        "lower bounds hold for almost all weights; \"asymptotic order\" is an estimate, not a bound.\n";
}

}  // namespace

void run_bounds(const BoundsOptions& o) {
  if (o.json) {
    std::cout << bounds_json_for(o);
    return;
  }
  const NetworkShape p = bounds_shape(o);
  BoundOptions bo;
  bo.max_exact_digits = o.max_exact_digits;
  print_text(std::cout, p, parameter_count(p), compute_bounds(p, bo));
}

}  // namespace netpoly::cli
