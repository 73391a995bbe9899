// The seeds' separation-rank bounds (docs/math.md §3) as records a table can
// compare: LV (Levine et al., self-attention depth-to-width), NB (Navon &
// Bronstein, mixer gap), AO (Navon, degree-k blocks).
//
// Every record carries its value as an exact integer when the formula is an
// integer (or the floor of a rational upper bound) and small enough to write
// down, and always as a base-3 logarithm computed with 256-bit MPFR, so that
// bounds of any size compare on one scale.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "netpoly/flint.hpp"
#include "netpoly/shape.hpp"

namespace netpoly {

// Throws InputError with a clear message for impossible shapes: zero or
// out-of-range sizes, H not dividing d for attention.
void validate_bound_params(const NetworkShape& p);

// What a record bounds. `order` is AO's Theta(.) estimate, not a certified
// bound; `degree` is the total degree of the network polynomial.
enum class BoundKind { upper, lower, order, degree };
const char* bound_kind_name(BoundKind k);  // "upper" | "lower" | "asymptotic order" | "degree"

// exact: `exact` holds the integer (formula value, or its floor when
// `floored`); log3: only the base-3 logarithm is given (the formula is
// real-valued, as in LV Thm 1/2 and NB Thm 5.7, or the integer is too long).
enum class ValueKind { exact, log3 };
const char* value_kind_name(ValueKind k);  // "exact" | "log3"

struct Bound {
  std::string id;          // "LV Thm 3"
  std::string source;      // where in the seed paper
  std::string applies_to;  // "attention (no residual)", "mixer", ...
  BoundKind kind = BoundKind::upper;
  std::string formula;     // the formula in docs/math.md notation
  std::string condition;   // regime as stated, e.g. "L < log3 d"
  bool in_regime = false;  // the condition holds for these parameters
  bool defined = true;     // false when the formula has no value here (e.g. log3(d - H) with d = H)
  ValueKind value_kind = ValueKind::log3;
  std::optional<Fmpz> exact;  // set iff value_kind == exact
  bool floored = false;       // exact is the floor of a non-integer upper bound (sep is an integer)
  double log3 = 0;            // log3 of the formula value (NaN when undefined; may overflow to inf)
  std::string log3_text;      // the same to 20 significant digits, any exponent ("nan" when undefined)
  std::string note;           // caveats: almost-everywhere statements, discrepancies
};

struct BoundOptions {
  // Exact integers longer than this many decimal digits are given as log3 only.
  std::size_t max_exact_digits = 10000;
};

// Every bound that applies to p.arch (and p.residual), in a fixed order.
// Validates p first (InputError).
std::vector<Bound> compute_bounds(const NetworkShape& p, const BoundOptions& o = {});

// The JSON of a shape's bounds, as `netpoly bounds --json` prints it and
// Python's netpoly.bounds returns it: {"params": {...}, "bounds": [{"id",
// "source", "applies_to", "kind", "formula", "value" (decimal text or null),
// "value_kind", "floored", "log3" (a number or null), "defined", "condition",
// "in_regime", "note"}, ...]}.
std::string bounds_json(const NetworkShape& p, const Fmpz& params, const std::vector<Bound>& bs);

// A bounds request as every front end makes it (the CLI's `bounds` flags,
// Python's netpoly.bounds): the architecture by name and its shape, with
// which of tokens, degree and heads were given (their defaults depend on the
// architecture).
struct BoundsRequest {
  std::string arch;
  NetworkShape params;
  std::size_t max_exact_digits = 10000;
  bool tokens_given = false, degree_given = false, heads_given = false;
  // Causal attention (decoder-only): refused, since no seed states a bound for it (kCausalWhy).
  bool causal = false;
};
// Why `bounds` refuses causal attention, and what to use instead.
extern const char* const kCausalWhy;
// The shape a request speaks of, checked as `bounds` checks it (InputError
// naming the flag); and its bounds' JSON, as `bounds --json` prints it.
NetworkShape bounds_shape(const BoundsRequest& r);
std::string bounds_json_for(const BoundsRequest& r);

// The ids of every bound in the registry (src/bounds/, one file per paper),
// in listing order: what claims and `table --bounds` may name.
std::vector<std::string> bound_ids();

// Display helpers: log3 to `digits` significant digits ("-" when undefined);
// the value as an integer when at most `max_digits` long, else in
// "d.ddddde<exp>" form with its length, or "3^x" when only log3 is known.
std::string format_log3(const Bound& b, int digits = 6);
std::string format_value(const Bound& b, std::size_t max_digits = 24);

// ---------------------------------------------------------------- helpers
// C(L) = (3^L - 1)/2, the number of token sums in a depth-L attention network (LV Lemma 1).
Fmpz lv_C(std::uint64_t L);

// Multiset coefficient ((n k)) = binom(n + k - 1, k); ((0 0)) = 1.
Fmpz multiset_coefficient(const Fmpz& n, const Fmpz& k);

// LV Lemma 2: one attention layer over inputs whose entries have separation
// rank <= K gives entries of rank <= N d^4 K^3 / H (requires H | d).
Fmpz lv_lemma2_layer(std::uint64_t N, std::uint64_t d, std::uint64_t H, const Fmpz& K);

// NB Lemma 5.4 as printed (eq. 9): one mixer layer over f gives sep <= n^2 sep(f)^2 + sep(f).
// FALSE for a channel-mixing layer with width m > n (it sums m entries): mixer(L = 2, N = 2,
// d = 7) has 44 > 39. Kept, marked, so that claims can show the failure.
Fmpz nb_lemma54_layer(const Fmpz& sep_f, std::uint64_t n);
// NB Lemma 5.4 corrected (what Lemma 5.2 (i), (iv) prove): binom(max(n, m) K + 1, 2) + K,
// K = sep(f), n tokens, m channels.
Fmpz nb_lemma54_corrected(const Fmpz& sep_f, std::uint64_t n, std::uint64_t m);

// NB Lemma 5.2 (iv): sep(f ⊙ f) <= binom(sep(f) + 1, 2).
Fmpz nb_lemma52_square(const Fmpz& sep_f);

// ------------------------------------------------------ one-step lemmas
// A lemma that bounds the separation rank after one layer (or one
// operation) by a function of K, the separation rank before it, and of whole
// parameters of the layer: the functions above. Each is registered beside its
// function (RegisterStepLemma, src/bounds/bounds.cpp), and the claim language
// offers every registered one as bound("ID", K = ..., PARAM = ...), applied
// to both ends of K's interval (each is non-decreasing in K). Adding one: its
// function, its RegisterStepLemma, and its test.
struct StepLemma {
  const char* id;
  // The whole parameters besides K, each with the names a call may give it
  // (the first is the one messages use): {{"n", "tokens", "N"}}.
  std::vector<std::vector<std::string>> params;
  Fmpz (*apply)(const Fmpz& K, const std::vector<std::uint64_t>& params);
};
// Every registered lemma, in registration order.
const std::vector<const StepLemma*>& step_lemmas();
// The lemma of this id (exact spelling), or null.
const StepLemma* find_step_lemma(const std::string& id);
struct RegisterStepLemma {
  explicit RegisterStepLemma(const StepLemma& l);
};

// ------------------------------------------------------ parameter counts
// How a shape's parameters are counted at an equal budget (table
// --param-budget, the claims' equal_budget and params). The seeds charge a
// degree-k block differently, and AO's conclusion that k = 3 is optimal
// depends on it (docs/findings.md §10); mixing layers (mixer, mlp) are one
// N x N or d x d matrix under every model.
//   netpoly  the presets' weights: attention (k + 1) L d^2 (odd k), k L d^2 + L H N d
//            (even k: C is N x d a head); product k L d^2 (parameter_count(make_preset(...)))
//   ao-eq4   AO eq. (4), N = L k N_d: k matrices of d x d a degree-k block (attention, product)
//   ao-eq2   AO eq. (2)'s block X prod_{j=1}^{k-1} (W_j X^T): k - 1 matrices (k >= 2)
//   lv       LV eq. (2): 12 d^2 a layer (attention 4 d^2 and its feed-forward 8 d^2),
//            degree-3 attention only
enum class ParamCount { netpoly, ao_eq4, ao_eq2, lv };
// "netpoly", "ao-eq4", "ao-eq2", "lv" ('_' for '-' too, as the claims write it);
// InputError naming `flag` otherwise.
ParamCount parse_param_count(const std::string& s, const std::string& flag = "--param-count");
const char* param_count_name(ParamCount m);  // "netpoly", "ao-eq4", "ao-eq2", "lv"

// Number of weights, matching parameter_count(make_preset(...)) under the
// netpoly model: attention L*H*4*d*d_a = 4 L d^2; mixer ceil(L/2) N^2 +
// floor(L/2) d^2 (token and channel layers alternate, token first); mlp L d^2;
// product L k d^2. Under another model, its count (InputError where the model
// does not count the shape: lv beyond degree-3 attention, ao-eq2 at k = 1).
Fmpz parameter_count(const NetworkShape& p, ParamCount model = ParamCount::netpoly);
// InputError (naming --param-count) when the model does not count the shape's kind of block.
void check_param_count(const NetworkShape& p, ParamCount model);
// The count written out with the shape's numbers: "(k + 1) L d^2 = 4 * 2 * 3^2 = 72".
std::string parameter_count_text(const NetworkShape& p, ParamCount model = ParamCount::netpoly);

// --------------------------------------------- depth-to-width at a budget
struct DepthWidthOptions {
  std::uint64_t max_depth = 1000;  // both caps are clamped to the validated ranges (10^6, 10^9)
  // Cap on the width: a one-layer mixer has no channel weights, so its width
  // is not limited by the budget.
  std::uint64_t max_width = std::uint64_t(1) << 20;
  // false: for each depth only the widest shape within budget (the frontier);
  // true: every width (multiples of H for attention) within budget.
  bool all_widths = false;
  std::size_t max_points = 1000000;  // LimitError beyond this
  BoundOptions bound_options{0};     // log3 only by default: tables compare log3
  ParamCount count = ParamCount::netpoly;  // what the budget counts
};

struct DepthWidthPoint {
  std::uint64_t depth = 0, width = 0;
  Fmpz params;
  std::vector<Bound> bounds;
};

// All (depth, width) shapes of base.arch with parameter_count(., o.count) <= budget,
// depth ascending (then width ascending), each with compute_bounds of that
// shape; the other fields of `base` are kept. Pure: a caller takes the argmax
// of whichever bound it compares.
std::vector<DepthWidthPoint> depth_width_points(const NetworkShape& base, const Fmpz& budget,
                                                const DepthWidthOptions& o = {});

}  // namespace netpoly
