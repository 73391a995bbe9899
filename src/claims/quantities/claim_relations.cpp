// Relations between quantities and their three-way verdicts (claim_interval.hpp).
#include <algorithm>
#include <string>

#include "claims/quantities/claim_interval.hpp"

namespace netpoly {

// ------------------------------------------------------------------ relations
const char* rel_name(Rel r) {
  switch (r) {
    case Rel::le:
      return "<=";
    case Rel::lt:
      return "<";
    case Rel::eq:
      return "==";
    case Rel::ge:
      return ">=";
    case Rel::gt:
      return ">";
    case Rel::ne:
      return "!=";
  }
  return "?";
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass:
      return "PASS";
    case Verdict::pass_probabilistic:
      return "PASS (probabilistic)";
    case Verdict::inconclusive:
      return "INCONCLUSIVE";
    case Verdict::fail:
      return "FAIL";
  }
  return "?";
}

Truth relation_truth(const Interval& a, Rel r, const Interval& b) {
  switch (r) {
    case Rel::le:
      if (cmp(a.hi, b.lo) <= 0) return Truth::yes;
      if (cmp(a.lo, b.hi) > 0) return Truth::no;
      return Truth::unknown;
    case Rel::lt:
      if (cmp(a.hi, b.lo) < 0) return Truth::yes;
      if (cmp(a.lo, b.hi) >= 0) return Truth::no;
      return Truth::unknown;
    case Rel::ge:
      return relation_truth(b, Rel::le, a);
    case Rel::gt:
      return relation_truth(b, Rel::lt, a);
    case Rel::eq:
      if (a.is_point() && b.is_point() && cmp(a.lo, b.lo) == 0) return Truth::yes;
      if (cmp(a.hi, b.lo) < 0 || cmp(b.hi, a.lo) < 0) return Truth::no;
      return Truth::unknown;
    case Rel::ne: {
      Truth t = relation_truth(a, Rel::eq, b);
      return t == Truth::yes ? Truth::no : t == Truth::no ? Truth::yes : Truth::unknown;
    }
  }
  return Truth::unknown;
}

RelOutcome compare(const Quantity& a, Rel r, const Quantity& b) {
  const Truth t = relation_truth(a.cert, r, b.cert);
  if (t == Truth::yes) return {Verdict::pass, ""};
  if (t == Truth::no) return {Verdict::fail, ""};
  const Trust tr = std::max(a.trust, b.trust);
  const std::string undecided =
      "the certified values " + iv_str(a.cert) + " and " + iv_str(b.cert) + " do not decide it";
  if (tr == Trust::exact) return {Verdict::inconclusive, undecided};
  const Truth tl = relation_truth(a.likely, r, b.likely);
  const double eps = a.failure_probability + b.failure_probability;
  if (tl == Truth::yes) {
    if (tr == Trust::probabilistic)
      return {Verdict::pass_probabilistic,
              "holds on the probabilistic values (wrong with probability <= " + probability_str(eps) + "); " + undecided, eps};
    return {Verdict::inconclusive, "holds on numeric estimates only; " + undecided};
  }
  if (tl == Truth::no)
    return {Verdict::inconclusive,
            std::string("fails on the ") + trust_name(tr) + " estimates (likely false); " + undecided};
  return {Verdict::inconclusive, undecided};
}

Verdict verdict_and(Verdict a, Verdict b) { return std::max(a, b); }

Verdict verdict_or(Verdict a, Verdict b) { return std::min(a, b); }

void outcome_and(RelOutcome& acc, const RelOutcome& o) {
  const double eps = (acc.verdict == Verdict::pass_probabilistic ? acc.failure_probability : 0) +
                     (o.verdict == Verdict::pass_probabilistic ? o.failure_probability : 0);
  acc.verdict = verdict_and(acc.verdict, o.verdict);
  acc.failure_probability = acc.verdict == Verdict::pass_probabilistic ? eps : 0;
}

void outcome_or(RelOutcome& acc, const RelOutcome& o) {
  double eps = 0;
  if (acc.verdict == Verdict::pass_probabilistic && o.verdict == Verdict::pass_probabilistic)
    eps = std::min(acc.failure_probability, o.failure_probability);
  else if (acc.verdict == Verdict::pass_probabilistic)
    eps = acc.failure_probability;
  else if (o.verdict == Verdict::pass_probabilistic)
    eps = o.failure_probability;
  acc.verdict = verdict_or(acc.verdict, o.verdict);
  acc.failure_probability = acc.verdict == Verdict::pass_probabilistic ? eps : 0;
}

}  // namespace netpoly
