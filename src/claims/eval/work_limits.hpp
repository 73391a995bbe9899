// The limits a claim function's own work is held to, as a rank method's are:
// sizes estimated before the work (--max-terms for polynomials, the memory
// limit, the bits of an exact value) and the time of --budget (per call, like
// a rank method's seconds), measured inside its long loops. Reaching one is
// a LimitError naming the call, its place in the claim file, the estimate and
// the flag that raises it; the claim's instance is then inconclusive and says
// why (proofs/README.md, "--budget").
#pragma once
#include <chrono>
#include <string>

#include "claims/eval/claim_eval.hpp"

namespace netpoly::claims_detail {

// "file.np:4:10: random_poly(...)" (a call; an operator: its text): where a limit was reached.
std::string call_place(const Expr& e);

// "--max-terms 5e+07" (the run's, or a `using` clause's).
std::string max_terms_text(const SepOptions& o);

// Throws LimitError: `call_place(e): what` and how to go on (`raise`).
[[noreturn]] void limit_reached(const Expr& e, const std::string& what, const std::string& raise);

// Throws LimitError when `estimate` (terms) exceeds `factor` x --max-terms.
void check_terms(const Evaluator& ev, const Expr& e, double estimate, const std::string& what, double factor = 1);

// Throws LimitError when `bytes` of work (on top of the resident set) pass
// the memory limit.
void check_work_memory(const Expr& e, double bytes, const std::string& what);

// p^k: its terms, at most min(len^k, ((len k))), against 10 x --max-terms
// (as a product's), and its coefficients' bits, at most k (bits of p's
// largest coefficient + log2 len), against the memory limit.
void check_power_size(const Evaluator& ev, const Expr& e, const FmpqMpoly& p, ulong k);

// How many times --budget a claim (and a call in it) may run on the wall
// clock before the safety net stops it. A claim decides on nominal costs
// (AnalysisContext::nominal, analysis/nominal.hpp), so that its verdict is
// the same on a busy machine as on a quiet one and on every machine; the
// wall clock decides nothing, and only stops a claim whose work the machine
// did not finish in kSafetyFactor x --budget seconds, with MachineLimit: an
// ERROR (exit 3) that speaks of the machine, never an INCONCLUSIVE.
inline constexpr double kSafetyFactor = 10;
// The nominal cost of one step of a claim function's long loop (a term of
// random_poly, a product of matmul or det, a preset of a combination): what
// --budget counts there, so that those loops stop at the same step on every
// machine.
inline constexpr double kNominalStepSeconds = 1e-6;

// A call's work against --budget, in nominal seconds: its analyses' nominal
// costs (charged through context()) and its loops' steps (tick(), check()),
// held to the call's budget (its own `budget = ...`, else the run's) and to
// what is left of the claim's when the call starts; spending it is a
// LimitError naming the call (INCONCLUSIVE, or a bracket where the call has
// one). The wall clock is only the safety net (kSafetyFactor x the same),
// read every 1024 ticks: passing it throws MachineLimit. What the call spent
// is charged to the claim when it ends.
class WorkClock {
 public:
  WorkClock(const Evaluator& ev, const Expr& e, double budget = -1);
  ~WorkClock();
  WorkClock(const WorkClock&) = delete;
  WorkClock& operator=(const WorkClock&) = delete;
  void tick() {
    ++steps_;
    if (steps_ % 1024 == 0) check();
  }
  // A step, then both limits: nominal (LimitError) and the wall's safety net (MachineLimit).
  void check() const;
  // Wall seconds so far.
  double seconds() const;
  // Nominal seconds so far: the analyses' charges and the loops' steps.
  double nominal() const { return charged_ + static_cast<double>(steps_) * kNominalStepSeconds; }
  // Nominal seconds left of this call's budget.
  double nominal_left() const { return budget_ - nominal(); }
  // Wall seconds left before this call's safety net (a deadline for one long FLINT-free loop).
  double left() const { return wall_budget_ - seconds(); }
  // The process's limits for an analysis of this call: nominal costs decide
  // (budget_left() is nominal_left(); each method's cost is charged here);
  // cancelled() is true once the nominal budget is spent (the analysis keeps
  // its bracket so far), and the safety net throws MachineLimit.
  AnalysisContext context() const;
  // "stopped at --budget 5 s (after 5.02 nominal s)".
  std::string stopped_text() const;

 private:
  void check_wall() const;
  const Evaluator& ev_;
  const Expr& e_;
  SepOptions o_;
  double budget_, wall_budget_;
  std::chrono::steady_clock::time_point t0_;
  mutable unsigned long steps_ = 0;
  mutable double charged_ = 0;
};

// A note for the claim: `call` stopped at its budget (clock) before `why`
// finished; its value is the certified bracket so far.
void note_stopped_call(Evaluator& ev, const Expr& call, const WorkClock& clock, const std::string& why);

}  // namespace netpoly::claims_detail
