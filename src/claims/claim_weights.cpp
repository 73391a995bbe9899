// A check under a claim's weight quantifier (`for every weight`, `for almost
// every weight`; claim_eval.hpp, proofs/README.md "Weight quantifiers").
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "claim_eval.hpp"
#include "netpoly/claims.hpp"

namespace netpoly::claims_detail {

// A check's condition under the claim's weight quantifier (claim_eval.hpp,
// Evaluator::View). `every`: PASS from the range [0, U] of sep over all
// weights (probabilistic from [0, L]); otherwise FAIL when one drawn
// integer network's certified sep contradicts it (that network is the
// counterexample); otherwise INCONCLUSIVE. `almost every`: the condition on
// gsep itself. The note gives gsep's bracket of each sep-like call.
RelOutcome weight_quantified_condition(Evaluator& ev, const Env& env, const Clause& cl, CheckReport& rep) {
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
    if (wit) {
      Model m = *wit->model;
      m.output = wit->e;
      rep.counterexample = std::make_shared<const Model>(std::move(m));
      std::string a;
      for (const auto& n : wit->P.a_names()) a += (a.empty() ? "" : ",") + n;
      rep.recheck = "--partition A=" + a;
      o2.note = "counterexample: a drawn integer network whose sep of y" + std::to_string(wit->e.token) + "_" +
                std::to_string(wit->e.channel) + " for " + wit->P.label() + " is certified >= " +
                std::to_string(wit->value) + " (so the check fails on a dense open set of weights)" +
                (o2.note.empty() ? "" : "; " + o2.note);
    } else {
      o2.note = "fails for every weight" + (o2.note.empty() ? "" : "; " + o2.note);
    }
    o2.note = with_notes(o2.note);
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
