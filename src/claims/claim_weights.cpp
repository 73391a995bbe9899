// A check under a claim's weight quantifier (`for every weight`, `for almost
// every weight`; claim_eval.hpp, proofs/README.md "Weight quantifiers").
#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "claim_eval.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/commands.hpp"
#include "netpoly/error.hpp"
#include "netpoly/model.hpp"

namespace netpoly::claims_detail {

namespace {

using Witness = Evaluator::WeightWitness;

std::string pair_text(const Witness& w) {
  return "sep of " + w.e.name() + " for " + w.P.label() + " is certified >= " + std::to_string(w.value);
}

// Whether the condition fails in the witness view on the pair `w` alone
// (every other pair in [0, U]).
bool fails_on(Evaluator& ev, const Env& env, const Clause& cl, const Witness& w) {
  ev.pick_witness(w);
  std::vector<std::pair<std::string, std::string>> ignored;
  const bool fails = ev.condition(cl.cond, env, &ignored).verdict == Verdict::fail;
  ev.pick_witness(std::nullopt);
  return fails;
}

// `netpoly seprank MODEL FLAGS` on the counterexample `m` (its text, read
// back as seprank would read the file), run in-process before it is
// written: the flags, and why it does not refute the check ("" when it does).
struct Recheck {
  std::string flags, why;
  std::size_t lower = 0;
};
Recheck recheck(Evaluator& ev, const Env& env, const Clause& cl, const Witness& w, const Model& m) {
  cli::SeprankOptions o;
  std::string a;
  for (const auto& n : w.P.a_names()) a += (a.empty() ? "" : ",") + n;
  o.partitions = {"A=" + a};
  const double budget = ev.defaults().budget;  // the check's own budget per method
  if (std::isfinite(budget)) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, budget);
    o.options.emplace_back("budget", std::string(buf, r.ptr));
  }
  Recheck r{cli::seprank_flags(o), ""};
  std::optional<std::size_t> lower;
  try {
    const Model back = parse_model(write_model(m), "the counterexample");
    const SepOptions so = cli::seprank_options(o);
    const cli::SeprankPairs pairs = cli::seprank_pairs(o, back, so);
    const std::vector<SepResult> rs = analyse_network(back, pairs.outputs, pairs.partitions, so);
    if (rs.size() != 1 || rs[0].output != w.e || rs[0].partition != w.P)
      throw InternalError("the counterexample's re-check analyses other pairs than " + w.e.name() + ", " + w.P.label());
    lower = rs[0].lower.value;
  } catch (const LimitError& x) {
    r.why = std::string("stopped at a limit (") + x.what() + ")";
  } catch (const InputError& x) {
    r.why = std::string("was refused (") + x.what() + ")";
  } catch (const DomainError& x) {
    r.why = std::string("was refused (") + x.what() + ")";
  }
  if (r.why.empty() && !lower) r.why = "certified no lower end";
  if (lower) r.lower = *lower;
  if (r.why.empty() && !fails_on(ev, env, cl, Witness{w.model, *lower, w.e, w.P}))
    r.why = "certified only >= " + std::to_string(*lower) + ", which does not refute the check";
  return r;
}

// The note of a FAIL in the witness view, and the counterexample in `rep`:
// the pair of w* that fails the check alone (the largest lower end first),
// kept only when `confirm` and its re-check refutes the check. The FAIL
// itself rests on w*'s certified lower ends, re-checked or not.
std::string failed_every_weight(Evaluator& ev, const Env& env, const Clause& cl, CheckReport& rep, bool confirm) {
  std::vector<Witness> pairs = ev.witness_pairs();
  if (pairs.empty()) return "fails for every weight";
  std::stable_sort(pairs.begin(), pairs.end(), [](const Witness& x, const Witness& y) { return x.value > y.value; });
  const Witness* decides = nullptr;
  for (const auto& w : pairs)
    if (!decides && fails_on(ev, env, cl, w)) decides = &w;
  const std::string dense = " (so the check fails on a dense open set of weights)";
  if (!decides) {
    std::string all;
    for (const auto& w : pairs) all += (all.empty() ? "" : "; ") + pair_text(w);
    return "fails for every weight: at one drawn integer network, " + all + dense +
           "; no single output and partition refutes the check alone, so no counterexample model is written";
  }
  const std::string head = "a drawn integer network whose " + pair_text(*decides) + dense;
  if (!confirm) return "counterexample: " + head;
  Model m = *decides->model;
  m.output = decides->e;
  const Recheck r = recheck(ev, env, cl, *decides, m);
  if (!r.why.empty())
    return "fails for every weight: " + head + "; but its re-check (netpoly seprank MODEL " + r.flags + ") " +
           r.why + ", so no counterexample model is written";
  rep.counterexample = std::make_shared<const Model>(std::move(m));
  rep.recheck = r.flags;
  return "counterexample: " + head + "; its re-check certifies >= " + std::to_string(r.lower);
}

}  // namespace

// A check's condition under the claim's weight quantifier (claim_eval.hpp,
// Evaluator::View). `every`: PASS from the range [0, U] of sep over all
// weights (probabilistic from [0, L]); otherwise FAIL when one drawn
// integer network's certified sep contradicts it (that network is the
// counterexample); otherwise INCONCLUSIVE. `almost every`: the condition on
// gsep itself. The note gives gsep's bracket of each sep-like call.
RelOutcome weight_quantified_condition(Evaluator& ev, const Env& env, const Clause& cl, CheckReport& rep,
                                       bool confirm) {
  const WeightQuantifier w = ev.weights();
  if (w == WeightQuantifier::drawn) return ev.condition(cl.cond, env, &rep.values);
  rep.weights = weight_quantifier_text(w);
  struct Reset {
    Evaluator& ev;
    ~Reset() { ev.set_view(Evaluator::View::range); }
  } reset{ev};
  ev.set_view(Evaluator::View::range);
  ev.weight_notes.clear();
  RelOutcome o = ev.condition(cl.cond, env, &rep.values);
  std::vector<std::string> gnotes = ev.weight_notes;
  auto with_notes = [&](std::string head) {
    for (const auto& n : gnotes) head += (head.empty() ? "" : "; ") + n;
    return head;
  };
  if (w == WeightQuantifier::almost_every) {
    const std::string what = o.verdict == Verdict::pass                 ? "holds for almost every weight (gsep decides it)"
                             : o.verdict == Verdict::pass_probabilistic ? "holds for almost every weight if gsep equals the black-box's rank"
                             : o.verdict == Verdict::fail ? "fails for almost every weight (on a dense open set; gsep decides it)"
                                                          : "for almost every weight: gsep's bracket does not decide it";
    o.note = with_notes(o.note.empty() ? what : what + "; " + o.note);
    return o;
  }
  if (o.verdict == Verdict::pass || o.verdict == Verdict::pass_probabilistic) {
    o.note = with_notes(std::string(o.verdict == Verdict::pass
                                        ? "holds for every weight: sep is at most the weight-independent upper end"
                                        : "holds for every weight if gsep equals the black-box's rank") +
                        (o.note.empty() ? "" : "; " + o.note));
    return o;
  }
  ev.set_view(Evaluator::View::witness);
  std::vector<std::pair<std::string, std::string>> values;
  RelOutcome o2 = ev.condition(cl.cond, env, &values);
  const auto wit = ev.witness();
  if (o2.verdict == Verdict::fail) {
    rep.values = values;
    o2.note = with_notes(failed_every_weight(ev, env, cl, rep, confirm) + (o2.note.empty() ? "" : "; " + o2.note));
    return o2;
  }
  o.verdict = Verdict::inconclusive;
  o.failure_probability = 0;
  o.note = with_notes(
      "for every weight: not decided; PASS needs a weight-independent upper end that decides it, FAIL a drawn "
      "network whose certified sep contradicts it" +
      std::string(wit ? " (the drawn network's certified sep >= " + std::to_string(wit->value) + " does not)" : "") +
      (o.note.empty() ? "" : "; " + o.note));
  return o;
}

}  // namespace netpoly::claims_detail
