// The table of the claim language's functions: every section, in order.
#include "function.hpp"

namespace netpoly {

const std::vector<std::string>& claim_sep_options() {
  static const std::vector<std::string> o = {"methods",    "seed",   "prime",    "templates",
                                             "max_points", "budget", "max_terms"};
  return o;
}

const std::vector<FunctionInfo>& claim_functions() {
  using namespace claims_detail;
  static const std::vector<FunctionInfo> table = [] {
    std::vector<FunctionInfo> t;
    for (auto section : {network_constructors, polynomial_constructors, partition_functions, network_transforms,
                         sep_functions, polynomial_measures, bound_functions, network_measures, arithmetic_functions})
      for (auto& f : section()) t.push_back(std::move(f));
    return t;
  }();
  return table;
}

const FunctionInfo* find_claim_function(const std::string& name) {
  for (const auto& f : claim_functions())
    if (f.name == name) return &f;
  return nullptr;
}

namespace claims_detail {

const std::vector<std::string>& bound_option_names() {
  static const std::vector<std::string> n = {"arch", "layers", "width", "heads", "tokens", "degree", "residual", "L",
                                             "p",    "d",      "m",     "H",     "N",      "n",      "k",        "K"};
  return n;
}

}  // namespace claims_detail
}  // namespace netpoly
