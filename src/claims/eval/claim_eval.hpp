// Values and expression evaluation of the claim language (internal to src/proofs).
#pragma once
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "claims/syntax/claim_parser.hpp"
#include "claims/quantities/claim_interval.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/seprank.hpp"
#include "netpoly/shape.hpp"

namespace netpoly::claims_detail {

// What a network is, as far as bound(...) and layers(net) ... need to know:
// its shape (layers counts no permute layers), and whether its architecture
// was recognised (then shape.arch is meaningful).
struct NetFamily {
  bool known = false;
  std::string why_unknown;  // when not known and a reason is more than "no paper's architecture"
  NetworkShape shape{.layers = 0, .width = 0, .tokens = 1};
};

struct NetVal {
  Model model;
  NetFamily fam;
  std::string desc;
  mutable std::map<std::pair<std::size_t, std::size_t>, FmpqMpoly> expansions;  // per output entry
  // Under a weight quantifier's draws (claim_draws.cpp): each weight is a
  // polynomial of degree at most this in the quantified weights (0: the
  // network does not depend on them; -1: not known to be a polynomial).
  int wdeg = 0;
};

struct PolyVal {
  FmpqMpoly p;                  // the polynomial; its real part when im is set
  std::optional<FmpqMpoly> im;  // over Q(i) (poly("... I ..."), Gaussian networks): the imaginary part
  std::size_t tokens = 1, width = 1;  // shape of the variables (tokens * width of them)
  bool flat = true;                   // variables named x{k} (else x{i}_{c})
  explicit PolyVal(FmpqMpoly q) : p(std::move(q)) {}
};

struct PartVal {
  Partition P;
  std::string label;
};

struct Deferred;

struct Value {
  enum class Kind { number, poly, net, output, partition, list, string };
  Kind kind = Kind::number;
  Quantity num;
  std::shared_ptr<const PolyVal> poly;
  std::shared_ptr<const NetVal> net;
  Entry entry;  // output
  std::shared_ptr<const PartVal> part;
  std::shared_ptr<const std::vector<Value>> list;
  std::string str;
  std::string desc;  // how a generated value was made
  // Under a weight quantifier's draws (claim_draws.cpp): a number or
  // polynomial's degree in the quantified weights (-1: not a polynomial of
  // them); for degree(...) and terms(...) of a polynomial that depends on
  // them, `gmax` bounds the chance (times the draw range) that a draw gives
  // less than the generic value, which is the largest over all weights.
  int wdeg = 0;
  double gmax = -1;
  // A `let` after the quantifier that reads the weights: evaluated at each draw.
  std::shared_ptr<const Deferred> deferred;

  static Value number(Quantity q) {
    Value v;
    v.kind = Kind::number;
    v.num = std::move(q);
    return v;
  }
};

const char* kind_name(Value::Kind k);
// One-line display (polynomials truncated to `max_chars`).
std::string display(const Value& v, std::size_t max_chars = 160);

// The polynomial in text, variables x{k} (flat) or x{i}_{c}; cut after max_chars (0: never).
std::string poly_text(const FmpqMpoly& p, std::size_t width, bool flat, std::size_t max_chars);

using Env = std::vector<std::pair<std::string, Value>>;

struct Deferred {
  const Expr* expr = nullptr;
};

// Thrown under a weight quantifier (outside its draws) by what reads the
// weights of a network: the check then runs at drawn weights (claim_draws.cpp).
struct NeedsDraws {
  SrcLoc at;
  std::string what;
};

class Evaluator {
 public:
  Evaluator(const Claim& c, const CheckOptions& o);

  Value eval(const Expr& e, const Env& env);
  // The values a `for`/`exists` generator runs over.
  std::vector<Value> generate(const Expr& e, const Env& env);
  // Truth of a condition; `values` receives (text, value) of its terms and quantities.
  RelOutcome condition(const Condition& c, const Env& env, std::vector<std::pair<std::string, std::string>>* values);

  // `using` options: replaces the claim's defaults for the clauses after it.
  void apply_using(const std::vector<Arg>& options, const Env& env);
  SepOptions defaults() const { return sep_; }
  // Nominal seconds left of the claim's --budget (the check's), over the
  // whole claim: what its calls were charged (work_limits.hpp) is spent.
  double claim_left() const;
  // Wall seconds left of the claim's safety net (kSafetyFactor x --budget).
  double claim_wall_left() const;
  // A call's nominal seconds, charged to the claim when the call ends.
  void charge_claim(double nominal_seconds) const { claim_spent_ += nominal_seconds; }
  void set_defaults(const SepOptions& s) { sep_ = s; }

  // Per quantity call (by expression id): how often each status came out.
  std::map<int, std::pair<const Expr*, std::map<std::string, std::size_t>>> stats;
  std::vector<std::string> notes;  // once-per-claim remarks (skipped shapes ...)
  std::map<std::string, std::pair<std::size_t, std::size_t>> bounds_used;  // id -> (evaluations, vacuous)

  // Polynomial helpers (shared contexts, one per number of variables).
  FmpqMpolyCtxPtr ctx(std::size_t nvars);
  std::shared_ptr<const PolyVal> as_poly(const Value& v, const SrcLoc& at);
  // a OP b (OP one of + - * / ^) on numbers and polynomials, as in expressions.
  Value arith(char op, const Value& a, const Value& b, const SrcLoc& at);

  // What the functions (functions/) use: the call's partition section, its
  // sep options over the claim's defaults, a sep quantity (cached per
  // network), and the per-call status counts.
  PartVal partition(const Expr& call, const Value& target, const Env& env);
  SepOptions sep_options(const Expr& call, const Env& env);
  Quantity sep_quantity(const Expr& call, const Value& target, const PartVal& P, const SepOptions& so,
                        std::string* status);
  void record(const Expr& e, const std::string& status);
  const Claim& claim() const { return claim_; }

  // ---------------------------------------------------------- weight quantifiers
  // Under `for every weight` / `for almost every weight` (proofs/README.md,
  // *Weight quantifiers*), sep-like calls of a network speak of the generic
  // sep gsep of its shape (generic.hpp), brackets [L, U] (U weight-independent,
  // L the black-box at drawn weights). `almost every`: sep = gsep outside a
  // null set, so the value is gsep's bracket. `every`: the values sep takes
  // over all weights lie in [0, gsep], evaluated in two views:
  //   range    [0, U], estimate [0, L] (probabilistic): decides PASS;
  //   witness  one drawn integer network w* (the first black-box witness met
  //            in the condition): [witness_value, U] for the pairs whose
  //            witness is w*, [0, U] for the others (every network's sep is
  //            in [0, U]): decides FAIL, with w* the counterexample.
  // With a pair picked (pick_witness), that pair of w* has the bracket `at`
  // and every other pair [0, inf] (nothing known) or, with `generic_others`,
  // [0, U] (what holds at every weight): whether the condition fails then
  // through that pair's certified ends.
  // draw     the check at weights drawn at random (claim_draws.cpp): what
  //          reads a network's weights is allowed, and values carry their
  //          degree in the weights (Value::wdeg).
  enum class View { range, witness, draw };
  View view() const { return view_; }
  // In the draw view: a value's degree in the quantified weights (-1: not a
  // polynomial of them), and per relation of a condition what it is.
  int value_wdeg(const Value& v) const;
  struct DrawRel {
    enum class Kind { constant, identity, generic_max, generic_both, other } kind = Kind::constant;
    double degree = 0;  // identity: the difference's degree; generic_max: gmax
    bool upper = false;  // generic_max: the relation says the generic value is at most (below) a constant
    Rel rel = Rel::eq;
    Verdict verdict = Verdict::pass;  // at the draw
    std::string text;
  };
  std::vector<DrawRel> draw_rels;
  void note_draw_relation(const Value& a, Rel r, const Value& b, Verdict v, const std::string& text);
  // The claim's random seed (std::random_device, drawn once per claim): the
  // generic analyses' black-box and the draws of weights.
  std::uint64_t claim_seed();
  WeightQuantifier weights() const { return weights_; }
  void set_weights(WeightQuantifier w) { weights_ = w; }
  void set_view(View v) {
    view_ = v;
    witness_.reset();
    witness_pairs_.clear();
    pick_.reset();
  }
  struct WeightWitness {
    std::shared_ptr<const Model> model;  // the drawn integer network
    std::size_t value = 0;               // its certified sep for (e, P) is at least this
    Entry e;
    Partition P;
    XRat upper = XRat::inf(1);  // and at most this (the shape's generic upper end, as every network's)
  };
  // The witness view's w* (set by the first sep-like call that has one), and
  // every pair of the condition whose lower end w* gave (without a pick).
  const std::optional<WeightWitness>& witness() const { return witness_; }
  const std::vector<WeightWitness>& witness_pairs() const { return witness_pairs_; }
  void pick_witness(const std::optional<WeightWitness>& w, const Interval& at = {}, bool generic_others = false) {
    pick_ = w;
    pick_at_ = at;
    pick_generic_others_ = generic_others;
  }
  // Per condition: "sep(net; P): generic sep of this shape [18, 70], ..." lines.
  std::vector<std::string> weight_notes;
  // Under a weight quantifier, an InputError: `what` reads the weights of one drawn network.
  void drawn_weights(const SrcLoc& at, const std::string& what) const;
  // sep of network outputs for partitions, under the weight quantifier (in the current view).
  std::vector<Quantity> quantified_seps(const Expr& call, const std::shared_ptr<const NetVal>& net, const std::vector<Entry>& outs,
                                        const std::vector<Partition>& parts, SepOptions so);

 private:
  Value call(const Expr& e, const Env& env);
  Value call_handler(const Expr& e, const Env& env);
  Value eval_node(const Expr& e, const Env& env);
  Value binary(const Expr& e, const Value& a, const Value& b);
  Value binary_node(const Expr& e, const Value& a, const Value& b);
  // The draw view's bookkeeping: how deep eval is, and per call being
  // evaluated the degrees of the values its arguments gave.
  struct Frame {
    int depth = 0;
    int max = 0, total = 0;  // -1: an argument is not a polynomial of the weights
    int net = 0;             // the largest NetVal::wdeg of a network argument
    double gmax = -1;
  };
  int depth_ = 0;
  std::vector<Frame> frames_;
  Value index(const Expr& e, const Env& env);

  // Network seps already computed in this claim: the same network, output,
  // partition and options give the same quantity (kept small).
  struct SepKey {
    std::shared_ptr<const NetVal> net;  // keeps the network alive while cached
    std::string key;
  };
  std::vector<std::pair<SepKey, Quantity>> sep_cache_;
  std::optional<Quantity> cached(const std::shared_ptr<const NetVal>& n, const std::string& key) const;
  void remember(const std::shared_ptr<const NetVal>& n, const std::string& key, const Quantity& q);

  struct GenericSep {
    Quantity gsep;                        // certified [L, U] with the black-box's probabilistic estimate
    std::shared_ptr<const Model> witness;  // the drawn network of the black-box run (may be null)
    std::size_t witness_value = 0;
  };
  std::vector<std::pair<SepKey, GenericSep>> generic_cache_;
  WeightQuantifier weights_ = WeightQuantifier::drawn;
  View view_ = View::range;
  std::optional<WeightWitness> witness_;
  std::vector<WeightWitness> witness_pairs_;
  std::optional<WeightWitness> pick_;
  Interval pick_at_;
  bool pick_generic_others_ = false;
  std::uint64_t claim_seed_ = 0;  // the black-box seed of the claim's generic analyses (one draw per shape)

  const Claim& claim_;
  const CheckOptions& opts_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  mutable double claim_spent_ = 0;  // nominal seconds of the claim's calls so far
  SepOptions sep_;
  std::map<std::size_t, FmpqMpolyCtxPtr> ctxs_;
  std::vector<std::pair<std::string, std::string>>* trace_ = nullptr;
};

// ------------------------------------------------------------------ helpers
// Shared by the evaluator and the functions; each throws InputError
// "file:line:col: ..." naming what was expected.
[[noreturn]] void fail(const SrcLoc& at, const std::string& msg);
Quantity need_number(const Value& v, const SrcLoc& at, const std::string& what);
slong need_int(const Value& v, const SrcLoc& at, const std::string& what);  // an exact integer
std::size_t need_size(const Value& v, const SrcLoc& at, const std::string& what);
const NetVal& need_net(const Value& v, const SrcLoc& at, const std::string& what);
// The network lives in the value: a temporary would leave the reference
// dangling (keep the value in a variable first).
const NetVal& need_net(const Value&& v, const SrcLoc& at, const std::string& what) = delete;
Value make_int(slong x);
Value make_list(std::vector<Value> items);
Value make_poly(std::shared_ptr<const PolyVal> p);
Value make_net(Model m, NetFamily fam, std::string desc);
NetFamily infer_family(const Model& m);
Entry default_output(const Model& m);
// Shape of the variables of a network, output or polynomial.
void shape_of(const Value& v, std::size_t& tokens, std::size_t& width, bool& flat, const SrcLoc& at);
std::string part_label(const Partition& P, std::size_t width, bool flat);
// sep of network outputs (a default analysis that does not close the
// bracket asks plan_followup for one more call), and of a polynomial.
std::vector<Quantity> network_seps(const Model& m, const std::vector<Entry>& outs, const std::vector<Partition>& parts,
                                   const SepOptions& so,
                                   std::vector<Entry>* zero_outputs = nullptr,
                                   const AnalysisContext& run = AnalysisContext::process(),
                                   std::string* stopped = nullptr);
// A note for the claim: these outputs of a network are identically 0 (a degenerate draw of
// weights, or a structural zero), so their sep 0 says nothing about the architecture.
void note_zero_outputs(Evaluator& ev, const NetVal& n, const std::vector<Entry>& zeros);
Quantity poly_sep(const FmpqMpoly& p, const Partition& P, const SepOptions& so);
Quantity poly_sep(const PolyVal& p, const Partition& P, const SepOptions& so);  // over C when Gaussian

// Polynomials over Q(i) (claim_gauss.cpp): whether a value is one, a OP b
// when either side is, the monomials of re and im (for terms and degrees),
// and the text.
bool gaussian_value(const Value& v);
Value gauss_binary(Evaluator& ev, const Expr& e, const Value& a, const Value& b);
FmpqMpoly monomials_of(const PolyVal& p);
// p in the context C of at least as many variables (variables kept by index).
FmpqMpoly lift_to(const FmpqMpoly& p, const FmpqMpolyCtxPtr& C);
// The shape of a OP b in n variables (claim_gauss.cpp): an operand's that has n
// variables (the left one first), else n flat variables.
void result_shape(PolyVal& out, const std::shared_ptr<const PolyVal>& a, const std::shared_ptr<const PolyVal>& b,
                  std::size_t n);
std::string gauss_poly_text(const PolyVal& p, std::size_t max_chars);  // claim_text.cpp
// "x5" (flat) or "x1_2" (token 1, channel 2 of a width).
std::string var_label(std::size_t k, std::size_t width, bool flat);

// The max (or min) of a non-empty list of quantities (std::out_of_range if empty).
Quantity extreme_of(const std::vector<Quantity>& qs, bool max);

// A call's entry in the function table; InputError for an unknown name.
const FunctionInfo* function_of(const Expr& e);

// A call's arguments: named ones by name, positional ones evaluated on demand.
const Arg* named(const Expr& e, const std::string& n);
std::vector<const Arg*> positional(const Expr& e);
std::string word(const Arg* a, const std::string& dflt);  // a symbol argument's word, or dflt
struct CallArgs {
  Evaluator& ev;
  const Expr& e;
  const Env& env;
  std::vector<const Arg*> pos;
  CallArgs(Evaluator& ev, const Expr& e, const Env& env);
  Value arg(std::size_t k) const;     // positional argument k
  Quantity num(std::size_t k) const;  // ... as a number
};

// Expands (with the evaluator's shared contexts) output `e` of a network value, cached.
const FmpqMpoly& expansion(Evaluator& ev, const NetVal& n, const Entry& e, double max_terms);

// A check's condition under the claim's weight quantifier (claim_weights.cpp):
// the Evaluator's view set for the quantifier, the verdict and its note, a
// counterexample network in `rep` when an every-weight check fails.
// `confirm`: a FAIL's counterexample is re-checked (and kept in `rep` only
// when the re-check refutes the check); else only named in the note.
RelOutcome weight_quantified_condition(Evaluator& ev, const Env& env, const Clause& cl, CheckReport& rep,
                                       bool confirm);
// The same for a check that reads a network's weights, expansion or degree
// (claim_draws.cpp): exact at weights drawn at random, PASS (probabilistic)
// by Schwartz–Zippel where its relations are identities in the weights.
RelOutcome drawn_condition(Evaluator& ev, const Env& env, const Clause& cl, CheckReport& rep, const NeedsDraws& why);

// A failed claim's files (claim_files.cpp), each under a name no file had
// (NAME, else NAME-2, ...): a failed `for every weight` check's drawn network
// (its path and re-check command appended to the check's note, or why it
// could not be written); and with --counterexamples DIR, the models and
// polynomials bound in `env` and a summary (returns "" or why they could not
// be written). The paths written go to r.files.
void write_weight_counterexamples(const Claim& c, const CheckOptions& o, InstanceReport& r);
std::string write_counterexample_files(const Claim& c, const CheckOptions& o, const Env& env, InstanceReport& r);

}  // namespace netpoly::claims_detail
