// Separation-rank quantities: sep, grid, max_sep, min_sep, sup_sep, inf_sep.
#include "function.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"

namespace netpoly::claims_detail {
namespace {

Value sep_like(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const auto& pos = a.pos;
  const std::string& f = e.str;
  Value target = a.arg(0);
  PartVal P = ev.partition(e, target, env);
  SepOptions so = ev.sep_options(e, env);
  std::string status;
  Quantity q;
  if (f == "sep") {
    q = ev.sep_quantity(e, target, P, so, &status);
  } else if (f == "grid") {
    const NetVal& n = need_net(target, pos[0]->loc, "grid(...)");
    const Entry en = target.kind == Value::Kind::output ? target.entry : default_output(n.model);
    so.methods = {Method::grid};
    auto rs = analyse_network(n.model, {en}, {P.P}, so);
    const MethodRun* run = nullptr;
    for (const auto& r : rs.at(0).runs)
      if (r.method == Method::grid && r.value) run = &r;
    if (!run) throw LimitError("grid(...): the grid rank was not computed");
    q = Quantity::exact(XRat(static_cast<slong>(*run->value)));
    status = "exact";
  } else {
    std::vector<Quantity> qs;
    if (target.kind == Value::Kind::net) {
      std::vector<Entry> zeros;
      qs = network_seps(target.net->model, resolve_outputs(target.net->model, std::nullopt, true), {P.P}, so, &zeros);
      note_zero_outputs(ev, *target.net, zeros);
    } else {
      qs.push_back(ev.sep_quantity(e, target, P, so, &status));
    }
    q = extreme_of(qs, f == "max_sep");
    status = q.status();
  }
  ev.record(e, status);
  return Value::number(q);
}

Value sup_inf(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const auto& pos = a.pos;
  const std::string& f = e.str;
  Value target = a.arg(0);
  const NetVal& n = need_net(target, pos[0]->loc, f + "(...)");
  SepOptions so = ev.sep_options(e, env);
  std::vector<Entry> outs = target.kind == Value::Kind::output ? std::vector<Entry>{target.entry}
                                                               : resolve_outputs(n.model, std::nullopt, true);
  std::vector<Partition> parts;
  try {
    parts = all_balanced(n.model.tokens, n.model.width);
  } catch (const InputError& x) {
    fail(e.loc, x.what());
  }
  std::vector<Entry> zeros;
  auto qs = network_seps(n.model, outs, parts, so, &zeros);
  note_zero_outputs(ev, n, zeros);
  const Quantity q = extreme_of(qs, f == "sup_sep");
  ev.record(e, q.status());
  return Value::number(q);
}

}  // namespace

std::vector<FunctionInfo> sep_functions() {
  using P = FunctionInfo::Part;
  const auto& sep_opts = claim_sep_options();
  return {
      {"sep", 1, 1, P::required, sep_opts, {"methods"}, "separation rank of an output or polynomial", sep_like},
      {"grid",
       1,
       1,
       P::required,
       {"templates", "seed", "prime"},
       {},
       "grid-tensor rank (LV Claim 1), a certified lower bound on sep", sep_like},
      {"max_sep", 1, 1, P::required, sep_opts, {"methods"}, "max of sep over a network's output entries", sep_like},
      {"min_sep", 1, 1, P::required, sep_opts, {"methods"}, "min of sep over a network's output entries", sep_like},
      {"sup_sep",
       1,
       1,
       P::none,
       sep_opts,
       {"methods"},
       "NB 4.2 sup-sep: max over output entries and balanced partitions", sup_inf},
      {"inf_sep",
       1,
       1,
       P::none,
       sep_opts,
       {"methods"},
       "NB 4.2 inf-sep: min over output entries and balanced partitions", sup_inf},
  };
}

}  // namespace netpoly::claims_detail
