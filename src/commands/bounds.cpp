// netpoly bounds --arch A --layers L --width d …: every seed bound that applies
// to one shape, as an aligned table or JSON.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "netpoly/commands.hpp"
#include "netpoly/bounds.hpp"
#include "netpoly/error.hpp"

namespace netpoly::cli {

namespace {


std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o + "\"";
}

// A JSON number for log3: null when undefined or infinite (JSON has no inf).
std::string json_log3(const Bound& b) {
  if (!b.defined || b.log3_text == "nan" || b.log3_text == "inf" || b.log3_text == "-inf") return "null";
  return b.log3_text;
}

void print_json(std::ostream& os, const NetworkShape& p, const Fmpz& params, const std::vector<Bound>& bs) {
  os << "{\"params\":{\"arch\":\"" << arch_name(p.arch) << "\",\"layers\":" << p.layers << ",\"width\":" << p.width
     << ",\"heads\":" << p.heads << ",\"tokens\":" << (p.arch == Arch::mlp ? 1 : p.tokens);
  if (p.arch == Arch::product || (p.arch == Arch::attention && p.block_degree() != 3))
    os << ",\"degree\":" << p.block_degree();
  os << ",\"residual\":" << (p.residual ? "true" : "false") << ",\"parameters\":" << params.str() << "},\"bounds\":[";
  for (std::size_t i = 0; i < bs.size(); ++i) {
    const Bound& b = bs[i];
    os << (i ? "," : "") << "\n{\"id\":" << json_string(b.id) << ",\"source\":" << json_string(b.source)
       << ",\"applies_to\":" << json_string(b.applies_to) << ",\"kind\":" << json_string(bound_kind_name(b.kind))
       << ",\"formula\":" << json_string(b.formula) << ",\"value\":"
       << (b.defined && b.exact ? json_string(b.exact->str()) : "null")
       << ",\"value_kind\":" << json_string(value_kind_name(b.value_kind))
       << ",\"floored\":" << (b.floored ? "true" : "false") << ",\"log3\":" << json_log3(b)
       << ",\"defined\":" << (b.defined ? "true" : "false") << ",\"condition\":" << json_string(b.condition)
       << ",\"in_regime\":" << (b.in_regime ? "true" : "false") << ",\"note\":" << json_string(b.note) << "}";
  }
  os << "\n]}\n";
}

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

void run_bounds(const BoundsOptions& options) {
  BoundsOptions o = options;
  o.params.arch = parse_arch(o.arch);
  const Arch a = o.params.arch;
  const std::string an = arch_name(a);
  if ((a == Arch::attention || a == Arch::mixer) && !o.tokens_given)
    throw InputError("bounds: --tokens is required for --arch " + an);
  if (a == Arch::mlp && o.tokens_given && o.params.tokens != 1)
    throw InputError("bounds: an mlp has one token (NB Def. 3.1); drop --tokens");
  if (a == Arch::product && !o.tokens_given) o.params.tokens = 1;
  if (a != Arch::product && a != Arch::attention && o.degree_given)
    throw InputError("bounds: --degree applies to --arch product and attention only");
  if (a == Arch::product && o.heads_given) throw InputError("bounds: --heads does not apply to --arch product");
  if (a == Arch::product && o.params.residual)
    throw InputError("bounds: --residual does not apply to --arch product (AO has no residual form)");
  BoundOptions bo;
  bo.max_exact_digits = o.max_exact_digits;
  std::vector<Bound> bs = compute_bounds(o.params, bo);
  Fmpz params = parameter_count(o.params);
  if (o.json) print_json(std::cout, o.params, params, bs);
  else print_text(std::cout, o.params, params, bs);
}

}  // namespace netpoly::cli
