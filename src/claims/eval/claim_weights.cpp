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

#include "claims/eval/claim_eval.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/error.hpp"
#include "netpoly/request.hpp"
#include "netpoly/model.hpp"

namespace netpoly::claims_detail {

namespace {

using Witness = Evaluator::WeightWitness;

// The end of a pair's certified bracket that refutes a check: the lower end
// (the sep is too large), the upper end (too small), or both (`==`, `!=`).
enum class End { lower, upper, both };

Interval through(End end, const Interval& b) {
  return end == End::lower ? Interval(b.lo, XRat::inf(1)) : end == End::upper ? Interval(XRat(0), b.hi) : b;
}

std::string end_text(End end, const Interval& b) {
  if (end == End::lower) return ">= " + short_str(b.lo);
  if (end == End::upper) return "<= " + short_str(b.hi);
  return (b.is_point() ? "= " : "in ") + iv_str(b);
}

Interval bracket_of(const Witness& w) { return {XRat(static_cast<slong>(w.value)), w.upper}; }

std::string pair_text(const Witness& w, End end, const Interval& b) {
  return "sep of " + w.e.name() + " for " + w.P.label() + " is certified " + end_text(end, b);
}

// Whether the condition fails in the witness view with the pair `w` in `at`
// and every other pair unknown ([0, inf]) or, with `generic_others`, at most
// its shape's generic sep ([0, U], as at every weight).
bool fails_at(Evaluator& ev, const Env& env, const Clause& cl, const Witness& w, const Interval& at,
              bool generic_others) {
  ev.pick_witness(w, at, generic_others);
  std::vector<std::pair<std::string, std::string>> ignored;
  const bool fails = ev.condition(cl.cond, env, &ignored).verdict == Verdict::fail;
  ev.pick_witness(std::nullopt);
  return fails;
}

// A pair that refutes the check through its certified ends: `end` says
// which, `generic_others` whether with the other pairs' generic upper ends.
struct Refutation {
  const Witness* w = nullptr;
  End end = End::both;
  bool generic_others = false;
};

// The end of w's bracket through which the check fails (none when it does
// not fail on w's bracket, or, with the other pairs' generic upper ends, also
// fails without anything known of w: then w decides nothing).
std::optional<End> refuting_end(Evaluator& ev, const Env& env, const Clause& cl, const Witness& w,
                                bool generic_others) {
  const Interval b = bracket_of(w);
  if (!fails_at(ev, env, cl, w, b, generic_others)) return std::nullopt;
  if (generic_others && fails_at(ev, env, cl, w, Interval(XRat(0), XRat::inf(1)), true)) return std::nullopt;
  if (fails_at(ev, env, cl, w, through(End::lower, b), generic_others)) return End::lower;
  if (fails_at(ev, env, cl, w, through(End::upper, b), generic_others)) return End::upper;
  return End::both;
}

// The pair that refutes the check alone, else one that refutes it with the
// other pairs at most their generic sep; the largest lower end first.
Refutation refutation(Evaluator& ev, const Env& env, const Clause& cl, const std::vector<Witness>& pairs) {
  for (const bool generic_others : {false, true})
    for (const auto& w : pairs)
      if (const auto end = refuting_end(ev, env, cl, w, generic_others)) return {&w, *end, generic_others};
  return {};
}

// `netpoly seprank MODEL FLAGS` on the counterexample `m` (its text, read
// back as seprank would read the file), run in-process before it is
// written: the flags, its certified bracket, and why it does not refute the
// check through the deciding end ("" when it does).
struct Recheck {
  std::string flags, why;
  Interval got;
};
Recheck recheck(Evaluator& ev, const Env& env, const Clause& cl, const Refutation& d, const Model& m) {
  const Witness& w = *d.w;
  // The request `netpoly seprank FILE FLAGS` makes, through the same assembly (netpoly/request.hpp).
  SepRequest req;
  std::string a;
  for (const auto& n : w.P.a_names()) a += (a.empty() ? "" : ",") + n;
  req.partitions = {"A=" + a};
  std::vector<std::pair<std::string, std::string>> given;
  const double budget = ev.defaults().budget;  // the check's own budget per method
  if (std::isfinite(budget)) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, budget);
    given.emplace_back("budget", std::string(buf, r.ptr));
  }
  Recheck r{request_flags(req, given), "", {}};
  std::optional<std::size_t> lower, upper;
  try {
    const Model back = parse_model(write_model(m), "the counterexample");
    SepOptions so;
    set_options_from_text(so, given);
    const SepPairs pairs = request_pairs(back, req, so, Spelling::cli);
    // On nominal costs, as every analysis of a claim: the same re-check on every machine.
    AnalysisContext nominal = AnalysisContext::process();
    nominal.nominal = true;
    const std::vector<SepResult> rs = analyse_network(back, pairs.outputs, pairs.partitions, so, {}, nominal);
    if (rs.size() != 1 || rs[0].output != w.e || rs[0].partition != w.P)
      throw InternalError("the counterexample's re-check analyses other pairs than " + w.e.name() + ", " + w.P.label());
    lower = rs[0].lower.value;
    upper = rs[0].upper.value;
  } catch (const LimitError& x) {
    r.why = std::string("stopped at a limit (") + x.what() + ")";
  } catch (const InputError& x) {
    r.why = std::string("was refused (") + x.what() + ")";
  } catch (const DomainError& x) {
    r.why = std::string("was refused (") + x.what() + ")";
  }
  r.got = Interval(lower ? XRat(static_cast<slong>(*lower)) : XRat(0),
                   upper ? XRat(static_cast<slong>(*upper)) : XRat::inf(1));
  if (!r.why.empty()) return r;
  if (d.end != End::upper && !lower) {
    r.why = "certified no lower end";
  } else if (d.end != End::lower && !upper) {
    r.why = "certified no upper end";
  } else if (!fails_at(ev, env, cl, w, through(d.end, r.got), d.generic_others)) {
    r.why = "certified only " + end_text(d.end, r.got) + ", which does not refute the check";
  }
  return r;
}

// The note of a FAIL in the witness view, and the counterexample in `rep`:
// the pair of w* that refutes the check through its deciding end (alone,
// else with the other pairs' generic upper ends), kept only when `confirm`
// and its re-check certifies that end. The FAIL itself rests on the
// witness view's certified brackets, re-checked or not.
std::string failed_every_weight(Evaluator& ev, const Env& env, const Clause& cl, CheckReport& rep, bool confirm) {
  std::vector<Witness> pairs = ev.witness_pairs();
  if (pairs.empty()) return "fails for every weight";
  std::stable_sort(pairs.begin(), pairs.end(), [](const Witness& x, const Witness& y) { return x.value > y.value; });
  const Refutation d = refutation(ev, env, cl, pairs);
  if (!d.w) {
    std::string all;
    for (const auto& w : pairs) all += (all.empty() ? "" : "; ") + pair_text(w, End::both, bracket_of(w));
    return "fails for every weight: at one drawn integer network, " + all +
           " (lower ends from that network, upper ends the shape's generic sep); no single output and partition "
           "refutes the check alone, so no counterexample model is written";
  }
  // An upper end is the shape's generic sep's, so it holds at every weight;
  // a lower end of w* holds on a dense open set of weights.
  const std::string others = d.generic_others ? ", with every other sep at most its shape's generic sep" : "";
  const std::string head =
      "a drawn integer network whose " + pair_text(*d.w, d.end, bracket_of(*d.w)) +
      (d.end == End::upper ? " (its shape's generic sep)" + others + " (so the check fails at every weight)"
                           : others + " (so the check fails on a dense open set of weights)");
  if (!confirm) return "counterexample: " + head;
  Model m = *d.w->model;
  m.output = d.w->e;
  const Recheck r = recheck(ev, env, cl, d, m);
  if (!r.why.empty())
    return "fails for every weight: " + head + "; but its re-check (netpoly seprank MODEL " + r.flags + ") " +
           r.why + ", so no counterexample model is written";
  rep.counterexample = std::make_shared<const Model>(std::move(m));
  rep.recheck = r.flags;
  return "counterexample: " + head + "; its re-check certifies " + end_text(d.end, r.got);
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
  RelOutcome o;
  try {
    o = ev.condition(cl.cond, env, &rep.values);
  } catch (const NeedsDraws& why) {  // it reads weights, an expansion or a degree
    rep.values.clear();
    return drawn_condition(ev, env, cl, rep, why);
  }
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
