// Evaluation of claim expressions: partitions, sep options and sep
// quantities (networks through analyse_network with the plan's follow-up,
// polynomials through analyse_polynomial), cached per network.
#include <algorithm>
#include <random>
#include <sstream>

#include "claims/eval/claim_eval.hpp"
#include "claims/eval/work_limits.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/options.hpp"

namespace netpoly::claims_detail {

namespace {

// SepResult -> Quantity: certified [lower, upper]; a probabilistic or numeric estimate when there is one.
Quantity from_result(const SepResult& r) {
  const XRat lo = r.lower.value ? XRat(static_cast<slong>(*r.lower.value)) : XRat(0);
  const XRat hi = r.upper.value ? XRat(static_cast<slong>(*r.upper.value)) : XRat::inf(1);
  Quantity q = Quantity::bracket(lo, hi);
  if (q.cert.is_point()) return q;
  if (r.status == BracketStatus::probabilistic) {
    q.trust = Trust::probabilistic;
    q.likely = Interval::point(lo);
    q.failure_probability = r.failure_probability;
    return q;
  }
  for (const auto& run : r.runs)
    if (run.kind == RunKind::estimate && run.value) {
      XRat v(static_cast<slong>(*run.value));
      if (cmp(lo, v) <= 0 && cmp(v, hi) <= 0) {
        q.trust = Trust::numeric;
        q.likely = Interval::point(v);
      }
    }
  return q;
}

// Both brackets hold: their intersection, with the better estimate.
Quantity intersect(const Quantity& a, const Quantity& b) {
  Quantity r;
  r.cert = Interval(cmp(a.cert.lo, b.cert.lo) >= 0 ? a.cert.lo : b.cert.lo,
                    cmp(a.cert.hi, b.cert.hi) <= 0 ? a.cert.hi : b.cert.hi);
  r.likely = r.cert;
  if (r.cert.is_point()) return r;
  for (const Quantity* q : {&a, &b})
    if (q->trust != Trust::exact && (r.trust == Trust::exact || q->trust < r.trust) &&
        cmp(r.cert.lo, q->likely.lo) <= 0 && cmp(q->likely.hi, r.cert.hi) <= 0) {
      r.trust = q->trust;
      r.likely = q->likely;
      r.failure_probability = q->failure_probability;
    }
  return r;
}

bool is_default(const SepOptions& so) { return so.methods.empty(); }

}  // namespace

namespace {

// analyse_network under `run`: when `run` stops it (its time spent), the
// pairs' results so far (the finished ones, the bracket of the one running),
// a pair not reached [0, inf]; `stopped` says so (empty: every pair finished).
std::vector<SepResult> analyse_until_stopped(const Model& m, const std::vector<Entry>& outs,
                                             const std::vector<Partition>& parts, const SepOptions& so,
                                             const AnalysisContext& run, std::string& stopped) {
  std::vector<std::optional<SepResult>> got(outs.size() * parts.size());
  std::size_t finished = 0;
  auto slot = [&](const SepResult& r) -> std::optional<SepResult>* {
    for (std::size_t i = 0; i < outs.size(); ++i)
      for (std::size_t j = 0; j < parts.size(); ++j)
        if (outs[i] == r.output && parts[j] == r.partition) return &got[i * parts.size() + j];
    return nullptr;
  };
  try {
    return analyse_network(m, outs, parts, so, [&](const SepResult& r, bool done) {
      if (auto* g = slot(r)) *g = r;
      finished += done;
    }, run);
  } catch (const Interrupted&) {
    if (!run.cancelled || !run.cancelled()) throw;
  }
  stopped = std::to_string(finished) + " of " + std::to_string(got.size()) + " (output, partition) pairs finished";
  std::vector<SepResult> rs;
  for (std::size_t k = 0; k < got.size(); ++k) {
    SepResult r;
    if (got[k]) r = *got[k];
    r.output = outs[k / parts.size()];
    r.partition = parts[k % parts.size()];
    rs.push_back(std::move(r));
  }
  return rs;
}

}  // namespace

// sep of network outputs for partitions; a default analysis that does not
// close the bracket is followed by a black-box run (cheap, no expansion),
// within the same time (`run`: a claim call's budget covers all its pairs).
std::vector<Quantity> network_seps(const Model& m, const std::vector<Entry>& outs, const std::vector<Partition>& parts,
                                   const SepOptions& so, std::vector<Entry>* zero_outputs, const AnalysisContext& run,
                                   std::string* stopped) {
  std::string why;
  auto rs = analyse_until_stopped(m, outs, parts, so, run, why);
  std::vector<Quantity> qs;
  for (const auto& r : rs) {
    Quantity q = from_result(r);
    if (zero_outputs && r.status == BracketStatus::exact && r.upper.value && *r.upper.value == 0 &&
        std::find(zero_outputs->begin(), zero_outputs->end(), r.output) == zero_outputs->end())
      zero_outputs->push_back(r.output);
    if (is_default(so) && !q.cert.is_point() && why.empty() && !(run.cancelled && run.cancelled())) {
      SepOptions bb = so;
      bb.methods = plan_followup(false);
      auto more = analyse_until_stopped(m, {r.output}, {r.partition}, bb, run, why);
      q = intersect(q, from_result(more.at(0)));
      if (!why.empty()) why = "the black-box's follow-up of " + r.output.name() + " did not finish";
    }
    qs.push_back(q);
  }
  if (stopped) *stopped = why;
  return qs;
}

namespace {
// "group, exact, modular": the methods that take a polynomial.
std::string polynomial_methods() {
  std::string s;
  for (Method m : registered_methods())
    if (method_accepts_polynomial(m)) s += (s.empty() ? "" : ", ") + std::string(m.id());
  return s;
}

}  // namespace

Quantity poly_sep(const FmpqMpoly& p, const Partition& P, const SepOptions& so) {
  for (Method m : so.methods)
    if (!method_accepts_polynomial(m))
      throw InputError(std::string("sep: method ") + method_name(m) +
                       " needs a network; a polynomial expression takes " + polynomial_methods());
  Quantity q = from_result(analyse_polynomial(p, P, so));
  if (is_default(so) && !q.cert.is_point()) {
    SepOptions mo = so;
    mo.methods = plan_followup(true);
    q = intersect(q, from_result(analyse_polynomial(p, P, mo)));
  }
  return q;
}

Quantity poly_sep(const PolyVal& p, const Partition& P, const SepOptions& so) {
  if (!p.im) return poly_sep(p.p, P, so);
  for (Method m : so.methods)
    if (!method_accepts_polynomial(m))
      throw InputError(std::string("sep: method ") + method_name(m) +
                       " needs a network; a polynomial expression takes " + polynomial_methods());
  Quantity q = from_result(analyse_gaussian_polynomial(p.p, *p.im, P, so));
  if (is_default(so) && !q.cert.is_point()) {
    SepOptions mo = so;
    mo.methods = plan_followup(true);
    q = intersect(q, from_result(analyse_gaussian_polynomial(p.p, *p.im, P, mo)));
  }
  return q;
}

// ------------------------------------------------------------------ partitions and sep
PartVal Evaluator::partition(const Expr& call, const Value& target, const Env& env) {
  const PartSpec& ps = *call.part;
  std::size_t tokens = 0, width = 0;
  bool flat = true;
  shape_of(target, tokens, width, flat, call.loc);
  const std::size_t n = tokens * width;
  PartVal pv;
  auto check_sides = [&](const Partition& P) {
    const std::size_t a = P.size_A();
    if (a == 0 || a == n)
      fail(ps.loc, "both sides of the partition must be non-empty (A has " + std::to_string(a) + " of " +
                       std::to_string(n) + " variables)");
  };
  auto ints = [&]() {
    std::vector<std::size_t> out;
    for (const auto& it : ps.items) {
      Value v = eval(*it, env);
      if (v.kind == Value::Kind::list)
        for (const auto& x : *v.list) out.push_back(need_size(x, it->loc, "a token or channel index"));
      else
        out.push_back(need_size(v, it->loc, "a token or channel index"));
    }
    return out;
  };
  switch (ps.kind) {
    case PartSpec::Kind::half:
    case PartSpec::Kind::interleaved:
      try {
        pv.P = parse_partition(ps.kind == PartSpec::Kind::half ? "half" : "interleaved", tokens, width);
      } catch (const InputError& x) {
        fail(ps.loc, x.what());
      }
      break;
    case PartSpec::Kind::tokens: {
      auto t = ints();
      for (auto i : t)
        if (i >= tokens)
          fail(ps.loc, "token " + std::to_string(i) + " out of range (0.." + std::to_string(tokens - 1) + ")");
      pv.P = partition_from_tokens(t, tokens, width);
      break;
    }
    case PartSpec::Kind::channels: {
      std::vector<std::size_t> vars;
      for (auto c : ints()) {
        if (c >= width)
          fail(ps.loc, "channel " + std::to_string(c) + " out of range (0.." + std::to_string(width - 1) + ")");
        for (std::size_t i = 0; i < tokens; ++i) vars.push_back(i * width + c);
      }
      pv.P = partition_from_vars(vars, tokens, width);
      break;
    }
    case PartSpec::Kind::vars: {
      std::vector<std::size_t> vars;
      auto flat_of = [&](const VarRef& v) {
        std::size_t k = v.index;
        if (!v.flat) {
          if (v.token >= tokens || v.channel >= width)
            fail(ps.loc, "variable " + v.text + " out of range (tokens 0.." + std::to_string(tokens - 1) +
                             ", channels 0.." + std::to_string(width - 1) + ")");
          k = v.token * width + v.channel;
        }
        if (k >= n) fail(ps.loc, "variable " + v.text + " out of range (x0..x" + std::to_string(n - 1) + ")");
        return k;
      };
      for (const auto& [a, b] : ps.vars) {
        const std::size_t lo = flat_of(a), hi = b ? flat_of(*b) : lo;
        if (hi < lo) fail(ps.loc, "the range " + a.text + ".." + b->text + " is empty");
        for (std::size_t k = lo; k <= hi; ++k) vars.push_back(k);
      }
      pv.P = partition_from_vars(vars, tokens, width);
      break;
    }
    case PartSpec::Kind::value: {
      Value v = eval(*ps.value, env);
      if (v.kind != Value::Kind::partition)
        fail(ps.loc, std::string("expected a partition, got a ") + kind_name(v.kind));
      if (v.part->P.in_A.size() != n)
        fail(ps.loc, "partition " + v.part->label + " is over " + std::to_string(v.part->P.in_A.size()) +
                         " variables, the target has " + std::to_string(n));
      return *v.part;
    }
  }
  check_sides(pv.P);
  pv.label = part_label(pv.P, width, flat);
  return pv;
}

namespace {

// A claim's value as an option's JSON (options.hpp): exact numbers only
// (integers as integers, other rationals as "p/q", or as a number where the
// option is a real), true/false as the flags' booleans, lists as lists.
nlohmann::json option_value(const Value& v, const OptionSpec& o, const SrcLoc& at) {
  if (v.kind == Value::Kind::list) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& x : *v.list) j.push_back(option_value(x, o, at));
    return j;
  }
  if (v.kind != Value::Kind::number || !v.num.is_exact())
    throw InputError(at.str() + ": " + option_spelling(o, Spelling::claims) + " expected an exact number or a list, got " +
                     (v.kind == Value::Kind::number ? std::string("an interval") : kind_name(v.kind)));
  const XRat& x = v.num.cert.lo;
  if (!x.finite()) return "inf";
  const Fmpq& q = x.value();
  if (o.type == OptionType::flag && q.is_integer()) return !(fmpq_is_zero(q.get()));
  if (o.type == OptionType::seconds || o.type == OptionType::real || o.type == OptionType::memory)
    return q.to_double();
  if (q.is_integer()) {
    if (fmpz_sgn(q.num()) < 0 && fmpz_fits_si(q.num())) return static_cast<std::int64_t>(fmpz_get_si(q.num()));
    if (fmpz_sgn(q.num()) >= 0 && fmpz_abs_fits_ui(q.num())) return static_cast<std::uint64_t>(fmpz_get_ui(q.num()));
  }
  return q.str();
}

}  // namespace

SepOptions Evaluator::sep_options(const Expr& call, const Env& env) {
  SepOptions so = sep_;
  for (const auto& a : call.args) {
    if (a.name.empty()) continue;
    const OptionSpec* o = find_option(a.name);
    if (!o || !(o->scope & kClaims)) continue;  // the function's own named arguments
    nlohmann::json v;
    if (o->type == OptionType::methods) {
      v = nlohmann::json::array();
      for (const auto& w : a.value->kids) v.push_back(w->str);
    } else {
      v = option_value(eval(*a.value, env), *o, a.loc);
    }
    try {
      set_option(so, *o, v, Spelling::claims);
    } catch (const InputError& x) {
      fail(a.loc, x.what());
    }
  }
  return so;
}

void Evaluator::apply_using(const std::vector<Arg>& options, const Env& env) {
  Expr fake;
  fake.kind = Expr::Kind::call;
  fake.args = options;
  sep_ = sep_options(fake, env);
}

namespace {

// The cache key: the pair and every option's value, from the option table
// (so no option can be left out of it).
std::string sep_key(const Entry& e, const Partition& P, const SepOptions& so) {
  std::string k = std::to_string(e.token) + "," + std::to_string(e.channel) + "|";
  for (char c : P.in_A) k += c ? '1' : '0';
  k += P.by_tokens ? "t|" : "v|";
  return k + options_json(so).dump();
}

}  // namespace

std::optional<Quantity> Evaluator::cached(const std::shared_ptr<const NetVal>& n, const std::string& key) const {
  for (const auto& [k, q] : sep_cache_)
    if (k.net == n && k.key == key) return q;
  return std::nullopt;
}

void note_zero_outputs(Evaluator& ev, const NetVal& n, const std::vector<Entry>& zeros) {
  if (zeros.empty()) return;
  std::string list;
  for (std::size_t k = 0; k < zeros.size() && k < 4; ++k)
    list += (k ? ", " : "") + ("y[" + std::to_string(zeros[k].token) + "][" + std::to_string(zeros[k].channel) + "]");
  if (zeros.size() > 4) list += ", ...";
  const std::string s = "degenerate: " + list + " of " + n.desc +
                        " identically 0 (sep 0 for every partition: a property of these weights, not of the "
                        "architecture)";
  if (std::find(ev.notes.begin(), ev.notes.end(), s) == ev.notes.end()) ev.notes.push_back(s);
}

void Evaluator::remember(const std::shared_ptr<const NetVal>& n, const std::string& key, const Quantity& q) {
  if (sep_cache_.size() >= 32) sep_cache_.erase(sep_cache_.begin());
  sep_cache_.push_back({{n, key}, q});
}

Quantity Evaluator::sep_quantity(const Expr& call, const Value& target, const PartVal& P, const SepOptions& so,
                                 std::string* status) {
  Quantity q;
  if (target.kind == Value::Kind::net || target.kind == Value::Kind::output) {
    const Entry e = target.kind == Value::Kind::output ? target.entry : default_output(target.net->model);
    const std::string key = sep_key(e, P.P, so);
    if (auto c = cached(target.net, key)) {
      q = *c;
    } else {
      std::vector<Entry> zeros;
      const WorkClock clock(*this, call, so.budget);
      std::string stopped;
      q = network_seps(target.net->model, {e}, {P.P}, so, &zeros, clock.context(), &stopped).at(0);
      note_zero_outputs(*this, *target.net, zeros);
      if (stopped.empty())
        remember(target.net, key, q);
      else
        note_stopped_call(*this, call, clock, stopped);
    }
  } else if (target.kind == Value::Kind::poly) {
    q = poly_sep(*target.poly, P.P, so);
  } else {
    fail(call.loc, std::string("sep needs a network, an output or a polynomial, got a ") + kind_name(target.kind));
  }
  *status = q.status();
  return q;
}

// ------------------------------------------------------------------ weight quantifiers
std::uint64_t Evaluator::claim_seed() {
  if (!claim_seed_) {
    std::random_device rd;
    claim_seed_ = ((static_cast<std::uint64_t>(rd()) << 32) ^ rd()) | 1;
  }
  return claim_seed_;
}

void Evaluator::drawn_weights(const SrcLoc& at, const std::string& what) const {
  if (weights_ == WeightQuantifier::drawn || view_ == View::draw) return;
  throw NeedsDraws{at, what};
}

namespace {

bool same_network(const std::shared_ptr<const Model>& a, const std::shared_ptr<const Model>& b) {
  if (!a || !b) return false;
  return a == b || write_model(*a) == write_model(*b);
}

std::string gsep_text(const Quantity& g) {
  std::string s = "generic sep of this shape " + std::string(g.cert.is_point() ? "= " : "in ") + iv_str(g.cert);
  if (g.trust == Trust::probabilistic)
    s += ", = " + iv_str(g.likely) + " with probability >= 1 - " + probability_str(g.failure_probability);
  return s;
}

}  // namespace

std::vector<Quantity> Evaluator::quantified_seps(const Expr& call, const std::shared_ptr<const NetVal>& net, const std::vector<Entry>& outs,
                                                 const std::vector<Partition>& parts, SepOptions so) {
  so.generic = true;
  if (!so.blackbox_seed) {
    // One seed per claim: every sep of a shape draws the same weights (the
    // same prime), so the pairs of one condition can share one witness.
    so.blackbox_seed = claim_seed();
  }
  const NetVal& n = *net;
  std::vector<Quantity> qs, gs;
  for (const auto& e : outs)
    for (const auto& P : parts) {
      const std::string key = sep_key(e, P, so);
      const GenericSep* g = nullptr;
      for (const auto& [k, v] : generic_cache_)
        if (k.net == net && k.key == key) g = &v;
      GenericSep fresh;
      if (!g) {
        SepResult r;
        try {
          const WorkClock clock(*this, call, so.budget);  // nominal costs, the wall clock a safety net
          r = analyse_network(n.model, {e}, {P}, so, {}, clock.context()).at(0);
        } catch (const InputError& x) {
          fail(call.loc, x.what());
        }
        fresh.gsep = from_result(r);
        for (const auto& run : r.runs)
          if (run.witness && (!fresh.witness || run.witness_value > fresh.witness_value)) {
            fresh.witness = run.witness;
            fresh.witness_value = run.witness_value;
          }
        if (generic_cache_.size() >= 64) generic_cache_.erase(generic_cache_.begin());
        generic_cache_.push_back({{net, key}, fresh});  // keeps the network alive while cached
        g = &generic_cache_.back().second;
      }
      gs.push_back(g->gsep);
      const XRat U = g->gsep.cert.hi;
      Quantity q;
      if (weights_ == WeightQuantifier::almost_every) {
        q = g->gsep;
      } else if (view_ == View::range) {
        q = Quantity::bracket(XRat(0), U);
        if (g->gsep.trust == Trust::probabilistic) {
          q.trust = Trust::probabilistic;
          q.likely = Interval(XRat(0), g->gsep.likely.hi);
          q.failure_probability = g->gsep.failure_probability;
        }
      } else {
        XRat lo(0), hi = U;
        if (pick_) {
          if (!pick_generic_others_) hi = XRat::inf(1);
          if (pick_->e == e && pick_->P == P && same_network(pick_->model, g->witness)) {
            lo = pick_at_.lo;
            hi = pick_at_.hi;
          }
        } else if (g->witness) {
          if (!witness_) witness_ = WeightWitness{g->witness, g->witness_value, e, P};
          if (same_network(witness_->model, g->witness)) {
            lo = XRat(static_cast<slong>(g->witness_value));
            if (std::none_of(witness_pairs_.begin(), witness_pairs_.end(),
                             [&](const WeightWitness& w) { return w.e == e && w.P == P; }))
              witness_pairs_.push_back({g->witness, g->witness_value, e, P, U});
          }
        }
        q = Quantity::bracket(lo, hi);
      }
      qs.push_back(q);
    }
  const Quantity g = outs.size() * parts.size() == 1 ? gs.at(0) : extreme_of(gs, call.str != "min_sep" && call.str != "inf_sep");
  // Status counts (`N evaluations: ...`) are gsep's, once per call (the witness view re-evaluates).
  if (view_ == View::range || weights_ == WeightQuantifier::almost_every) record(call, g.status());
  const std::string line = call.text + ": " + gsep_text(g);
  if (std::find(weight_notes.begin(), weight_notes.end(), line) == weight_notes.end()) weight_notes.push_back(line);
  return qs;
}

}  // namespace netpoly::claims_detail
