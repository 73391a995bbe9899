// The table of the claim language's functions (every section, in order),
// the arguments of a call, and the dispatch of a call to its entry.
#include "function.hpp"
#include "netpoly/options.hpp"

namespace netpoly {

// The analysis options the claims take: the option table's (options.hpp).
const std::vector<std::string>& claim_sep_options() {
  static const std::vector<std::string> o = [] {
    std::vector<std::string> r;
    for (const auto& x : analysis_options())
      if (x.scope & kClaims) r.push_back(x.name);
    return r;
  }();
  return o;
}

const std::vector<FunctionInfo>& claim_functions() {
  using namespace claims_detail;
  static const std::vector<FunctionInfo> table = [] {
    std::vector<FunctionInfo> t;
    for (auto section : {network_constructors, polynomial_constructors, partition_functions, network_transforms,
                         sep_functions, polynomial_measures, bound_functions, network_measures, arithmetic_functions,
                         matrix_functions, linalg_functions, grid_functions})
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

// ------------------------------------------------------------------ calls
const Arg* named(const Expr& e, const std::string& n) {
  for (const auto& a : e.args)
    if (a.name == n) return &a;
  return nullptr;
}

std::vector<const Arg*> positional(const Expr& e) {
  std::vector<const Arg*> r;
  for (const auto& a : e.args)
    if (a.name.empty()) r.push_back(&a);
  return r;
}

std::string word(const Arg* a, const std::string& dflt) { return a ? a->value->str : dflt; }

CallArgs::CallArgs(Evaluator& ev, const Expr& e, const Env& env) : ev(ev), e(e), env(env), pos(positional(e)) {}
Value CallArgs::arg(std::size_t k) const { return ev.eval(*pos[k]->value, env); }
Quantity CallArgs::num(std::size_t k) const { return need_number(arg(k), pos[k]->loc, e.str + "(...)"); }

Quantity extreme_of(const std::vector<Quantity>& qs, bool max) {
  Quantity q = qs.at(0);
  for (std::size_t k = 1; k < qs.size(); ++k) q = max ? q_max(q, qs[k]) : q_min(q, qs[k]);
  return q;
}

// A call's entry in the function table: the parser's lookup (a call built
// elsewhere is looked up by name).
const FunctionInfo* function_of(const Expr& e) {
  const FunctionInfo* f = e.fn ? e.fn : find_claim_function(e.str);
  if (!f) fail(e.loc, "unknown function " + e.str);
  return f;
}

// A call: its function's handler (a generator must give exactly one value here).
Value Evaluator::call_handler(const Expr& e, const Env& env) {
  const FunctionInfo* f = function_of(e);
  if (f->generate) {
    auto vs = f->generate(*this, e, env);
    if (vs.size() != 1)
      fail(e.loc, e.str + "(...) gives " + std::to_string(vs.size()) +
                      " values here; iterate over them with `for NAME in " + e.str + "(...)`");
    return vs[0];
  }
  return f->call(*this, e, env);
}

const std::vector<std::string>& bound_option_names() {
  static const std::vector<std::string> n = {"arch", "layers", "width", "heads", "tokens", "degree", "residual", "L",
                                             "p",    "d",      "m",     "H",     "N",      "n",      "k",        "K"};
  return n;
}

}  // namespace claims_detail
}  // namespace netpoly
