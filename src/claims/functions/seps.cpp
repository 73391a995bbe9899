// Separation-rank quantities: sep, grid, max_sep, min_sep, sup_sep, inf_sep.
#include "claims/eval/work_limits.hpp"
#include "function.hpp"
#include "netpoly/lv_witness.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/request.hpp"
#include "runtime/number_text.hpp"

namespace netpoly::claims_detail {
namespace {

// The grid rank of a grid run: exact when its rank over Q (Q(i)) was computed
// (or the rank mod p is full, which the run records as rank_Q too); else the
// rank mod p is a certified lower bound only, and the grid's smaller side the
// upper end. A rank mod p is never exact.
Quantity grid_quantity(const MethodRun& run) {
  const XRat rp(static_cast<slong>(*run.value));
  if (run.details.contains("rank_Q")) return Quantity::exact(rp);
  XRat side = XRat::inf(1);
  if (run.details.contains("grid") && run.details["grid"].size() == 2)
    side = XRat(static_cast<slong>(
        std::min(run.details["grid"][0].get<std::size_t>(), run.details["grid"][1].get<std::size_t>())));
  return Quantity::bracket(rp, side);
}

// A quantity over many (output, partition) pairs analyses each: at most
// max_pairs of them (the CLI's --max-pairs, 1e5), as seprank and table.
// The decision and its message are the request's (netpoly/request.hpp).
void check_claim_pairs(const Expr& e, std::size_t outputs, std::size_t partitions, const SepOptions& so) {
  try {
    check_pairs(outputs, partitions, so, Spelling::claims);
  } catch (const LimitError& x) {
    limit_reached(e, x.what(), "or a smaller network");
  }
}

Value sep_like(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const auto& pos = a.pos;
  const std::string& f = e.str;
  Value target = a.arg(0);
  PartVal P = ev.partition(e, target, env);
  SepOptions so = ev.sep_options(e, env);
  std::string status;
  Quantity q;
  if (ev.weights() != WeightQuantifier::drawn && ev.view() != Evaluator::View::draw && f != "grid") {
    if (target.kind != Value::Kind::net && target.kind != Value::Kind::output)
      fail(e.loc, f + "(...) of a " + kind_name(target.kind) +
                      " under a weight quantifier: only a network's output has weights to quantify over");
    const std::vector<Entry> outs =
        target.kind == Value::Kind::output ? std::vector<Entry>{target.entry}
        : f == "sep"                       ? std::vector<Entry>{default_output(target.net->model)}
                                           : resolve_outputs(target.net->model, std::nullopt, true);
    check_claim_pairs(e, outs.size(), 1, so);
    q = extreme_of(ev.quantified_seps(e, target.net, outs, {P.P}, so), f != "min_sep");
    return Value::number(q);  // quantified_seps records gsep's status
  }
  if (f == "sep") {
    q = ev.sep_quantity(e, target, P, so, &status);
  } else if (f == "grid") {
    const NetVal& n = need_net(target, pos[0]->loc, "grid(...)");
    ev.drawn_weights(e.loc, "grid(...)");
    const Entry en = target.kind == Value::Kind::output ? target.entry : default_output(n.model);
    so.methods = {Method::grid};
    const WorkClock clock(ev, e, so.budget);  // nominal costs, the wall clock a safety net
    auto rs = analyse_network(n.model, {en}, {P.P}, so, {}, clock.context());
    const MethodRun* run = nullptr;
    for (const auto& r : rs.at(0).runs)
      if (r.method == Method::grid && r.value) run = &r;
    if (!run) throw LimitError("grid(...): the grid rank was not computed");
    q = grid_quantity(*run);
    status = q.status();
    if (!q.is_exact()) {
      const std::string n = "grid(...) (line " + std::to_string(e.loc.line) +
                            "): the rank over Q did not fit --budget, so the grid rank is bracketed by its rank mod " +
                            "p (a certified lower bound) and the grid's smaller side";
      if (std::find(ev.notes.begin(), ev.notes.end(), n) == ev.notes.end()) ev.notes.push_back(n);
    }
  } else {
    std::vector<Quantity> qs;
    if (target.kind == Value::Kind::net) {
      std::vector<Entry> zeros;
      const std::vector<Entry> outs = resolve_outputs(target.net->model, std::nullopt, true);
      check_claim_pairs(e, outs.size(), 1, so);
      const WorkClock clock(ev, e, so.budget);  // over the whole call: every output's pair
      std::string stopped;
      qs = network_seps(target.net->model, outs, {P.P}, so, &zeros, clock.context(), &stopped);
      note_zero_outputs(ev, *target.net, zeros);
      if (!stopped.empty()) note_stopped_call(ev, e, clock, stopped);
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
  // entries = true: over the balanced partitions of the N x d entries (NB §4.2's sup/inf over entries)
  const Arg* ent = named(e, "entries");
  const bool entries = ent && need_int(ev.eval(*ent->value, env), ent->value->loc, "entries = true or false") != 0;
  {  // the balanced partitions, counted before they are made: binom(items, items / 2), each pair once
    const std::size_t items =
        entries ? n.model.tokens * n.model.width : n.model.tokens == 1 ? n.model.width : n.model.tokens;
    double count = 1;
    for (std::size_t i = 1; i <= items / 2; ++i)
      count = count * static_cast<double>(items - items / 2 + i) / static_cast<double>(i);
    if (items % 2 == 0) count /= 2;
    if (items >= 2 && items <= 24) check_claim_pairs(e, outs.size(), static_cast<std::size_t>(count + 0.5), so);
  }
  std::vector<Partition> parts;
  try {
    parts = entries ? all_balanced_entries(n.model.tokens, n.model.width) : all_balanced(n.model.tokens, n.model.width);
  } catch (const InputError& x) {
    fail(e.loc, x.what());
  }
  if (ev.weights() != WeightQuantifier::drawn && ev.view() != Evaluator::View::draw) {
    return Value::number(extreme_of(ev.quantified_seps(e, target.net, outs, parts, so), f == "sup_sep"));
  }
  std::vector<Entry> zeros;
  const WorkClock clock(ev, e, so.budget);  // over the whole call: every (output, partition) pair
  std::string stopped;
  auto qs = network_seps(n.model, outs, parts, so, &zeros, clock.context(), &stopped);
  note_zero_outputs(ev, n, zeros);
  if (!stopped.empty()) note_stopped_call(ev, e, clock, stopped);
  const Quantity q = extreme_of(qs, f == "sup_sep");
  ev.record(e, q.status());
  return Value::number(q);
}

// lv_witness_rank(layers = L, width = d, heads = H, tokens = N[, omega = Ω]):
// the rank of LV Lemma 6's grid sub-matrix on its own weights and templates
// (lv_witness.hpp), certified from below by a reduction mod p; at most
// ((d' λ)), the sub-matrix's size, so a full rank is exact.
Value lv_witness_fn(Evaluator& ev, const Expr& e, const Env& env) {
  LvWitnessShape s;
  bool given[4] = {false, false, false, false};
  for (const auto& a : e.args) {
    if (a.name == "last") {
      s.printed_last = a.value->str == "printed";
      continue;
    }
    if (a.name == "v") {
      s.rational_v = a.value->str == "rational";
      continue;
    }
    const slong v = need_int(ev.eval(*a.value, env), a.loc, "lv_witness_rank: " + a.name);
    if (v < 0) fail(a.loc, "lv_witness_rank: " + a.name + " must be non-negative");
    const auto u = static_cast<std::size_t>(v);
    if (a.name == "layers") s.layers = u, given[0] = true;
    if (a.name == "width") s.width = u, given[1] = true;
    if (a.name == "heads") s.heads = u, given[2] = true;
    if (a.name == "tokens") s.tokens = u, given[3] = true;
    if (a.name == "omega") s.omega = u;
  }
  for (bool g : given)
    if (!g) fail(e.loc, "lv_witness_rank: give layers, width, heads and tokens");
  LvWitnessRank r;
  try {
    r = lv_witness_rank(s);
  } catch (const InputError& x) {
    fail(e.loc, x.what());
  }
  const Quantity q = r.exact || r.rank_modp == r.dims.R
                         ? Quantity::exact(XRat(static_cast<slong>(r.rank_modp)))
                         : Quantity::bracket(XRat(static_cast<slong>(r.rank_modp)), XRat(static_cast<slong>(r.dims.R)));
  ev.record(e, q.status());
  const std::string note = "lv-witness L=" + std::to_string(s.layers) + " d=" + std::to_string(s.width) +
                           " H=" + std::to_string(s.heads) + " N=" + std::to_string(s.tokens) +
                           (s.printed_last ? " last=printed" : "") + (s.rational_v ? " V=rational" : "") + ": " +
                           r.how();
  if (std::find(ev.notes.begin(), ev.notes.end(), note) == ev.notes.end()) ev.notes.push_back(note);
  return Value::number(q);
}

}  // namespace

std::vector<FunctionInfo> sep_functions() {
  using P = FunctionInfo::Part;
  const auto& sep_opts = claim_sep_options();
  std::vector<std::string> sup_opts = sep_opts;
  sup_opts.push_back("entries");  // over the balanced partitions of the entries
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
       sup_opts,
       {"methods"},
       "NB 4.2 sup-sep: max over output entries and balanced partitions (entries = true: of the N x d entries)",
       sup_inf},
      {"inf_sep",
       1,
       1,
       P::none,
       sup_opts,
       {"methods"},
       "NB 4.2 inf-sep: min over output entries and balanced partitions (entries = true: of the N x d entries)",
       sup_inf},
      {"lv_witness_rank",
       0,
       0,
       P::none,
       {"layers", "width", "heads", "tokens", "omega", "last", "v"},
       {"last", "v"},
       "rank of LV Lemma 6's grid sub-matrix on its witness weights and templates (certified mod p)", lv_witness_fn},
  };
}

}  // namespace netpoly::claims_detail
