// Quantities of the claim language (proofs/README.md): every number a claim
// computes is an interval of exact rationals that certainly contains the true
// value, plus a best estimate that a probabilistic or numeric method may give,
// and relations between them have a three-way verdict.
//
//   cert    [lo, hi], ends exact rationals or -inf / +inf; the true value is in it (proved)
//   likely  the best estimate: cert itself, or a narrower interval backed by a
//           probabilistic method (black-box rank) or a numeric one (double SVD)
//
// Arithmetic is interval arithmetic on both, done on the ends of monotone
// pieces, so a certified input gives a certified output.
#pragma once
#include <optional>
#include <string>

#include "netpoly/claims.hpp"  // Verdict
#include "netpoly/flint.hpp"

namespace netpoly {

// An extended rational: a finite rational, or -inf / +inf.
class XRat {
 public:
  XRat() = default;
  XRat(slong v) : v_(v) {}  // NOLINT: implicit by design
  explicit XRat(const Fmpq& v) : v_(v) {}
  explicit XRat(const Fmpz& v) : v_(v) {}
  static XRat inf(int sign) {
    XRat r;
    r.inf_ = sign < 0 ? -1 : 1;
    return r;
  }
  bool finite() const { return inf_ == 0; }
  int inf_sign() const { return inf_; }     // -1, 0 (finite), +1
  const Fmpq& value() const { return v_; }  // finite only
  int sign() const;
  bool is_integer() const { return finite() && v_.is_integer(); }
  std::string str() const;  // "p/q", "inf", "-inf"

 private:
  int inf_ = 0;
  Fmpq v_;
};

int cmp(const XRat& a, const XRat& b);
inline bool operator<(const XRat& a, const XRat& b) { return cmp(a, b) < 0; }
inline bool operator<=(const XRat& a, const XRat& b) { return cmp(a, b) <= 0; }
inline bool operator==(const XRat& a, const XRat& b) { return cmp(a, b) == 0; }

struct Interval {
  XRat lo, hi;
  Interval() : lo(XRat::inf(-1)), hi(XRat::inf(1)) {}
  Interval(XRat l, XRat h) : lo(std::move(l)), hi(std::move(h)) {}
  static Interval point(const XRat& v) { return {v, v}; }
  bool is_point() const { return lo.finite() && cmp(lo, hi) == 0; }
};

// What backs a quantity's `likely` interval.
enum class Trust { exact = 0, probabilistic = 1, numeric = 2 };
const char* trust_name(Trust t);

struct Quantity {
  Interval cert;
  Interval likely;
  Trust trust = Trust::exact;      // exact: likely == cert
  double failure_probability = 0;  // probabilistic: the estimate is wrong with at most this probability
  bool real = false;               // an enclosure of a real number (log3 ...), printed in decimals

  Quantity() = default;
  static Quantity exact(const XRat& v);
  static Quantity bracket(const XRat& lo, const XRat& hi);
  static Quantity enclosure(const Interval& iv);  // certified enclosure of a real number
  // exact | bracket | probabilistic | numeric | enclosure
  std::string status() const;
  // The certified value when it is one integer.
  std::optional<Fmpz> exact_integer() const;
  bool is_exact() const { return cert.is_point(); }
};

// Display: "7", "[3, 9]", "7 (probabilistic ...)", "4.1900000000 (enclosure ...)".
std::string describe(const Quantity& q);
// Short form of an extended rational (big integers abbreviated).
std::string short_str(const XRat& x);
// "7", "[3, 9]", "[2, inf]" (long fractions in decimals).
std::string iv_str(const Interval& i);
// A failure probability, "3.14e-13".
std::string probability_str(double p);

// ------------------------------------------------------------ relations
enum class Rel { le, lt, eq, ge, gt, ne };
const char* rel_name(Rel r);

// Three-valued truth of `a REL b` over every pair of values in the intervals.
enum class Truth { yes, no, unknown };
Truth relation_truth(const Interval& a, Rel r, const Interval& b);

struct RelOutcome {
  Verdict verdict = Verdict::inconclusive;
  std::string note;                // why it is not certified, when it is not
  double failure_probability = 0;  // PASS (probabilistic): wrong with at most this probability (else 0)
};
// PASS / FAIL when the certified intervals decide; otherwise PASS
// (probabilistic) when the relation holds on the estimates and the weakest
// estimate is probabilistic; otherwise INCONCLUSIVE (with a note saying
// whether the estimates support or contradict it).
RelOutcome compare(const Quantity& a, Rel r, const Quantity& b);

// Conjunction (every part must hold) and disjunction (one part suffices).
Verdict verdict_and(Verdict a, Verdict b);
Verdict verdict_or(Verdict a, Verdict b);
// The same on outcomes, into `acc`, with their failure probabilities: a
// conjunction that passes probabilistically is wrong with at most the sum of
// its parts' probabilities (a union bound), a disjunction with at most that of
// its least doubtful probabilistic part. Notes are the caller's.
void outcome_and(RelOutcome& acc, const RelOutcome& o);
void outcome_or(RelOutcome& acc, const RelOutcome& o);

// ------------------------------------------------------------ arithmetic
// Every function is applied to cert and likely; trust is the weakest of the
// inputs; probabilities of failure add up. Errors (division by an interval
// containing 0, too large a power) throw InputError / LimitError.
Quantity q_add(const Quantity& a, const Quantity& b);
Quantity q_sub(const Quantity& a, const Quantity& b);
Quantity q_mul(const Quantity& a, const Quantity& b);
Quantity q_div(const Quantity& a, const Quantity& b);
Quantity q_neg(const Quantity& a);
// a^b: b an exact integer (a > 0 if negative), or any b with a >= 1 (monotone
// in both), or a real b with a > 0 (an enclosure).
Quantity q_pow(const Quantity& a, const Quantity& b);
Quantity q_min(const Quantity& a, const Quantity& b);
Quantity q_max(const Quantity& a, const Quantity& b);
// A quantity that is an integer by its meaning (n of binom, K of a lemma): its
// ends rounded inwards to the integers between them. InputError, naming
// `what` ("binom(n, k): n"), when it is an exact non-integer, holds no
// integer, or is a real number known only as an enclosure; an estimate that
// holds no integer is dropped (the result is then its certified interval).
Quantity q_integer(const Quantity& a, const std::string& what);
// binom(n, k): k an exact integer >= 0, n an integer (q_integer) >= 0, monotone in n.
Quantity q_binom(const Quantity& n, const Quantity& k);
// multiset(n, k) = ((n k)) = binom(n + k - 1, k): k an exact integer >= 0, n an integer >= 0.
Quantity q_multiset(const Quantity& n, const Quantity& k);
// Logarithm base b (b > 1 exact) of a > 0; an enclosure with a relative margin.
Quantity q_log(const Quantity& a, const Quantity& base);
Quantity q_floor(const Quantity& a);
Quantity q_ceil(const Quantity& a);
Quantity q_abs(const Quantity& a);

// A certified enclosure of log_base(x) for an exact positive rational x and
// an exact base > 1 (double logarithms with a relative margin of 1e-12).
Interval log_enclosure(const Fmpq& x, const Fmpq& base);
// The exact rational value of a finite double.
Fmpq fmpq_from_double(double d);

// Largest exact power netpoly forms (bits of the result); beyond it LimitError.
inline constexpr double kMaxPowerBits = 1 << 22;

}  // namespace netpoly
