#include "claims/eval/work_limits.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "netpoly/error.hpp"
#include "runtime/limits.hpp"
#include "runtime/number_text.hpp"

namespace netpoly::claims_detail {


std::string call_place(const Expr& e) {
  return e.loc.str() + ": " + (e.kind == Expr::Kind::call ? e.str + "(...)" : e.text);
}

std::string max_terms_text(const SepOptions& o) { return "--max-terms " + fmt_g(o.max_terms); }

void limit_reached(const Expr& e, const std::string& what, const std::string& raise) {
  throw LimitError(call_place(e) + ": " + what + (raise.empty() ? "" : "; " + raise));
}

void check_terms(const Evaluator& ev, const Expr& e, double estimate, const std::string& what, double factor) {
  const SepOptions o = ev.defaults();
  if (!(estimate <= factor * o.max_terms))
    limit_reached(e,
                  what + ": estimated " + fmt_g(estimate) + " terms, more than " +
                      (factor == 1 ? "" : fmt_g(factor) + " x ") + max_terms_text(o),
                  "raise --max-terms to try anyway");
}

void check_work_memory(const Expr& e, double bytes, const std::string& what) {
  try {
    check_memory_estimate(bytes, what);
  } catch (const LimitError& x) {
    throw LimitError(call_place(e) + ": " + x.what());
  }
}

void check_power_size(const Evaluator& ev, const Expr& e, const FmpqMpoly& p, ulong k) {
  const double len = static_cast<double>(p.length());
  if (len <= 1 || k <= 1) return;  // a monomial's power is one term
  const double kd = static_cast<double>(k);
  // log2 of ((len k)) = binom(len + k - 1, k), through lgamma.
  const double log2_multiset = (std::lgamma(len + kd) - std::lgamma(kd + 1) - std::lgamma(len)) / std::log(2.0);
  const double log2_terms = std::min(kd * std::log2(len), log2_multiset);
  const std::string what = "a power of a polynomial of " + std::to_string(p.length()) + " terms to the power " +
                           std::to_string(k);
  check_terms(ev, e, std::exp2(std::min(log2_terms, 1000.0)), what, 10);
  const fmpq_mpoly_struct* q = p.get();
  const double coeff_bits = static_cast<double>(std::abs(fmpz_mpoly_max_bits(q->zpoly))) +
                            static_cast<double>(fmpz_bits(fmpq_numref(q->content)) + fmpz_bits(fmpq_denref(q->content))) +
                            std::log2(len);
  check_work_memory(e, std::exp2(log2_terms) * (kd * coeff_bits / 8 + 32), what);
}

WorkClock::WorkClock(const Evaluator& ev, const Expr& e, double budget)
    : ev_(ev),
      e_(e),
      o_(ev.defaults()),
      budget_(std::min(budget < 0 ? o_.budget : budget, std::max(0.0, ev.claim_left()))),
      wall_budget_(std::min(kSafetyFactor * (budget < 0 ? o_.budget : budget), std::max(0.0, ev.claim_wall_left()))),
      t0_(std::chrono::steady_clock::now()) {
  if (budget >= 0) o_.budget = budget;
}

WorkClock::~WorkClock() { ev_.charge_claim(nominal()); }

AnalysisContext WorkClock::context() const {
  AnalysisContext c = AnalysisContext::process();
  c.nominal = true;  // decisions on nominal costs only: the same verdict on every machine
  const WorkClock* self = this;
  c.budget_left = [self] { return self->nominal_left(); };
  c.charge = [self](double s) { self->charged_ += s; };
  c.cancelled = [self] {
    self->check_wall();  // the safety net: MachineLimit, never a bracket cut short by the wall clock
    return self->nominal_left() < 0;
  };
  return c;
}

std::string WorkClock::stopped_text() const {
  // The claim's --budget is over the whole claim: a late call gets what is left of it.
  const std::string left = budget_ + 0.5 < o_.budget ? ", " + fmt_g(budget_) + " s of the claim's left at the call" : "";
  return "stopped at " + budget_text(o_) + " (after " + fmt_g(nominal()) + " nominal s" + left + ")";
}

double WorkClock::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
}

void WorkClock::check_wall() const {
  const double s = seconds();
  if (s > wall_budget_)
    throw MachineLimit(call_place(e_) + ": the wall clock's safety net (" + fmt_g(kSafetyFactor) + " x " +
                       budget_text(o_) + ", over the claim) was reached after " + fmt_g(s) +
                       " s, before the work's nominal limits: the machine was too slow or too loaded for this "
                       "claim, or its work is dearer than the nominal cost model says, so no verdict (raise "
                       "--budget, or run it where it has the cores)");
}

void WorkClock::check() const {
  ++steps_;
  if (nominal() > budget_) limit_reached(e_, stopped_text(), "raise --budget");
  check_wall();
}

void note_stopped_call(Evaluator& ev, const Expr& call, const WorkClock& clock, const std::string& why) {
  const std::string s = call_place(call) + ": " + clock.stopped_text() + ", " + why + ": its value is the bracket so far";
  if (std::find(ev.notes.begin(), ev.notes.end(), s) == ev.notes.end()) ev.notes.push_back(s);
}

}  // namespace netpoly::claims_detail
