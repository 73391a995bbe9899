// The seeds' bounds by id: bound, log3bound, regime.
#include "function.hpp"
#include "netpoly/bounds.hpp"
#include "claims/eval/claim_bounds.hpp"

namespace netpoly::claims_detail {
namespace {

Value bound_like(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const auto& pos = a.pos;
  const std::string& f = e.str;
  BoundCall bc;
  bc.id = pos[0]->value->str;
  if (pos.size() > 1) {
    Value n = a.arg(1);
    const NetVal& nv = need_net(n, pos[1]->loc, f + "(id, net)");
    if (!nv.fam.known)
      fail(pos[1]->loc, "the architecture of " + nv.desc + " is not known" +
                            (nv.fam.why_unknown.empty() ? "" : " (" + nv.fam.why_unknown + ")") +
                            "; give arch = ... and the shape instead");
    bc.shape = nv.fam.shape;
  }
  for (const auto& a : e.args) {
    if (a.name.empty()) continue;
    if (a.name == "arch")
      bc.words["arch"] = a.value->str;
    else
      bc.numbers[a.name] = need_number(ev.eval(*a.value, env), a.loc, a.name);
  }
  Quantity q;
  BoundUse use;
  try {
    q = claim_bound(bc, f == "bound" ? BoundWant::value : f == "log3bound" ? BoundWant::log3 : BoundWant::regime, &use);
  } catch (const InputError& x) {
    fail(e.loc, x.what());
  }
  if (f != "regime") {
    auto& u = ev.bounds_used[use.id];
    ++u.first;
    u.second += use.vacuous;
  }
  return Value::number(q);
}

}  // namespace

std::vector<FunctionInfo> bound_functions() {
  using P = FunctionInfo::Part;
  const auto& bound_named = bound_option_names();
  return {
      {"bound", 1, 2, P::none, bound_named, {"arch"}, "a bound of the seeds by id (bounds library), exact", bound_like},
      {"log3bound", 1, 2, P::none, bound_named, {"arch"}, "log3 of a bound of the seeds (enclosure)", bound_like},
      {"regime", 1, 2, P::none, bound_named, {"arch"}, "1 when the bound's stated condition holds, else 0", bound_like},
  };
}

}  // namespace netpoly::claims_detail
