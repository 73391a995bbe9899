// A check under a weight quantifier that reads a network's weights, its
// expansion or its degree (proofs/README.md, *Identities for every weight*):
// it runs exactly at weight assignments drawn at random, and each value
// carries its degree in the weights, so that a polynomial identity that
// holds at the draws holds for every weight but with a probability that
// Schwartz–Zippel bounds.
//
// The draws: every weight of every network of the instance an integer drawn
// uniformly from [0, 2^24) (std::random_device seeds the claim), the same
// layer position of two networks (net and prefix(net, 1)) getting the same
// weight; kDraws independent draws. A relation between two values that are
// polynomials of degree <= D in the weights (`==`), when it is false as a
// polynomial identity, holds at one draw with probability <= D / 2^24; a
// degree at most a constant, when the generic degree (the largest over all
// weights) exceeds it, with probability <= D / 2^24 likewise (its top
// coefficient, of degree <= D, must vanish). Anything else (a sep, a
// terms count, `<=` between two weight-dependent numbers) is decided only by
// a draw where it fails: that draw is a weight assignment, a counterexample.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "analysis/generic.hpp"
#include "claims/eval/claim_eval.hpp"
#include "netpoly/error.hpp"
#include "runtime/random.hpp"

namespace netpoly::claims_detail {

namespace {

constexpr int kDrawBits = 24;
constexpr int kDraws = 2;

int combine_max(int a, int b) { return a < 0 || b < 0 ? -1 : std::max(a, b); }
int combine_sum(int a, int b) { return a < 0 || b < 0 ? -1 : a + b; }

// How a function's result depends on its arguments' degrees in the weights.
enum class Rule { shape, max, total, weights, network, degree, other };

Rule rule_of(const std::string& f) {
  static const std::map<std::string, Rule> rules = {
      // numbers of the shape, the same for every weight
      {"layers", Rule::shape}, {"width", Rule::shape}, {"heads", Rule::shape}, {"tokens", Rule::shape},
      {"params", Rule::shape}, {"block_degree", Rule::shape}, {"residual", Rule::shape}, {"bound", Rule::shape},
      {"log3bound", Rule::shape}, {"regime", Rule::shape}, {"balanced", Rule::shape}, {"splits", Rule::shape},
      {"outputs", Rule::shape}, {"vars", Rule::shape}, {"len", Rule::shape}, {"jacobian_rank", Rule::shape},
      // linear in each entry: the largest degree
      {"transpose", Rule::max}, {"vec", Rule::max}, {"sum", Rule::max}, {"homogeneous", Rule::max},
      // products of two arguments: the degrees add
      {"matmul", Rule::total}, {"kron", Rule::total},
      // a network's weight matrices: its weights themselves
      {"weights", Rule::weights},
      // networks whose weights are the argument's, rearranged
      {"prefix", Rule::network}, {"wide_sparse", Rule::network}, {"permute", Rule::network},
      {"degree", Rule::degree}};
  auto it = rules.find(f);
  return it == rules.end() ? Rule::other : it->second;
}

// Every number and polynomial in v (lists recursively) of degree k.
Value with_wdeg(Value v, int k) {
  if (v.kind == Value::Kind::number || v.kind == Value::Kind::poly) {
    v.wdeg = k;
  } else if (v.kind == Value::Kind::list) {
    std::vector<Value> items;
    for (const auto& x : *v.list) items.push_back(with_wdeg(x, k));
    v.list = std::make_shared<const std::vector<Value>>(std::move(items));
  }
  return v;
}

Value with_net_wdeg(Value v, int k) {
  if ((v.kind == Value::Kind::net || v.kind == Value::Kind::output) && v.net && v.net->wdeg != k) {
    auto n = std::make_shared<NetVal>();
    n->model = v.net->model;
    n->fam = v.net->fam;
    n->desc = v.net->desc;
    n->wdeg = k;
    v.net = std::move(n);
  }
  return v;
}

// The network with every weight drawn: position k of layer l gets a value
// that depends on (seed, l, k) only.
Model drawn_model(const Model& m, std::uint64_t seed) {
  Model r = m;
  r.imag.clear();
  for (std::size_t l = 0; l < r.layers.size(); ++l) {
    std::uint64_t k = 0;
    r.layers[l] = r.layers[l].map([&](const Fmpq&) {
      SplitMix64 g(seed ^ ((l + 1) * 0x9e3779b97f4a7c15ULL) ^ ((k++ + 1) * 0xc2b2ae3d27d4eb4fULL));
      Fmpq w;
      fmpq_set_ui(w.get(), g.below(std::uint64_t{1} << kDrawBits), 1);
      return w;
    });
  }
  return r;
}

struct Drawer {
  Evaluator& ev;
  std::uint64_t seed;
  std::map<const NetVal*, std::shared_ptr<const NetVal>> done;
  std::shared_ptr<const Model> first;  // the first network drawn (the counterexample of a FAIL)

  Value value(const Value& v) {
    if ((v.kind == Value::Kind::net || v.kind == Value::Kind::output) && v.net) {
      auto& d = done[v.net.get()];
      if (!d) {
        auto n = std::make_shared<NetVal>();
        n->model = drawn_model(v.net->model, seed);
        n->fam = v.net->fam;
        n->desc = v.net->desc;
        n->wdeg = 1;
        if (!first) first = std::make_shared<const Model>(n->model);
        d = n;
      }
      Value r = v;
      r.net = d;
      return r;
    }
    if (v.kind == Value::Kind::list) {
      std::vector<Value> items;
      for (const auto& x : *v.list) items.push_back(value(x));
      Value r = v;
      r.list = std::make_shared<const std::vector<Value>>(std::move(items));
      return r;
    }
    return v;
  }

  // The instance's bindings at the draw: networks drawn, a deferred `let`
  // evaluated on the bindings before it.
  Env env(const Env& e) {
    Env out;
    for (const auto& [name, v] : e) {
      if (v.deferred) out.emplace_back(name, ev.eval(*v.deferred->expr, out));
      else out.emplace_back(name, value(v));
    }
    return out;
  }
};

std::string prob_text(double p) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", p);
  return b;
}

}  // namespace

// ------------------------------------------------------------------ the draw view's evaluation
Value Evaluator::eval(const Expr& e, const Env& env) {
  if (view_ != View::draw) {
    Value v = eval_node(e, env);
    if (v.deferred) throw NeedsDraws{e.loc, "`" + e.text + "` (bound from the weights after the quantifier)"};
    return v;
  }
  ++depth_;
  struct Down {
    int& d;
    ~Down() { --d; }
  } down{depth_};
  Value v = eval_node(e, env);
  if (!frames_.empty() && frames_.back().depth + 1 == depth_) {
    Frame& f = frames_.back();
    const int w = value_wdeg(v);
    f.max = combine_max(f.max, w);
    f.total = combine_sum(f.total, w);
    if ((v.kind == Value::Kind::net || v.kind == Value::Kind::output) && v.net) f.net = combine_max(f.net, v.net->wdeg);
    if (v.kind == Value::Kind::list)
      for (const auto& x : *v.list)
        if ((x.kind == Value::Kind::net || x.kind == Value::Kind::output) && x.net) f.net = combine_max(f.net, x.net->wdeg);
  }
  return v;
}

Value Evaluator::call(const Expr& e, const Env& env) {
  if (view_ != View::draw) return call_handler(e, env);
  frames_.push_back(Frame{depth_});
  struct Pop {
    std::vector<Frame>& f;
    ~Pop() { f.pop_back(); }
  } pop{frames_};
  Value v = call_handler(e, env);
  const Frame f = frames_.back();
  if (f.max == 0 && f.net == 0) return v;  // nothing here depends on the weights
  switch (rule_of(e.str)) {
    case Rule::shape: return v;
    case Rule::max: return with_wdeg(std::move(v), f.max);
    case Rule::total: return with_wdeg(std::move(v), f.total);
    case Rule::weights: return with_wdeg(std::move(v), f.net);
    case Rule::network: return with_net_wdeg(std::move(v), f.net);
    case Rule::degree: {
      v = with_wdeg(std::move(v), -1);
      v.gmax = f.max;
      return v;
    }
    case Rule::other: break;
  }
  return with_net_wdeg(with_wdeg(std::move(v), -1), -1);
}

Value Evaluator::binary(const Expr& e, const Value& a, const Value& b) {
  Value v = binary_node(e, a, b);
  if (view_ != View::draw) return v;
  const int wa = value_wdeg(a), wb = value_wdeg(b);
  const char op = e.op ? e.op : '-';
  if ((a.gmax >= 0 || b.gmax >= 0) && a.kind == Value::Kind::number && b.kind == Value::Kind::number) {
    // A degree through an increasing map stays at most its generic value:
    // degree + c, degree - c, c * degree and degree / c (c > 0), a sum of degrees.
    auto konst = [](const Value& x) { return x.gmax < 0 && x.wdeg == 0; };
    auto positive = [&](const Value& x) { return konst(x) && x.num.is_exact() && x.num.cert.lo.sign() > 0; };
    const bool ga = a.gmax >= 0, gb = b.gmax >= 0;
    double g = -1;
    if (op == '+' && (ga || konst(a)) && (gb || konst(b))) g = (ga ? a.gmax : 0) + (gb ? b.gmax : 0);
    else if (op == '-' && ga && konst(b)) g = a.gmax;
    else if (op == '*' && ((ga && positive(b)) || (gb && positive(a)))) g = ga ? a.gmax : b.gmax;
    else if (op == '/' && ga && positive(b)) g = a.gmax;
    v.wdeg = -1;
    v.gmax = g;
    return v;
  }
  int w = -1;
  if (op == '+' || op == '-') w = combine_max(wa, wb);
  else if (op == '*') w = combine_sum(wa, wb);
  else if (op == '/') w = wb == 0 ? wa : -1;
  else if (op == '^' && wb == 0 && wa >= 0 && b.kind == Value::Kind::number) {
    try {
      const slong k = need_int(b, e.loc, "the exponent");
      w = k >= 0 && k < (1 << 20) ? wa * static_cast<int>(k) : -1;
    } catch (const InputError&) {
      w = -1;
    }
  }
  v.wdeg = w;
  return v;
}

int Evaluator::value_wdeg(const Value& v) const {
  switch (v.kind) {
    case Value::Kind::number:
    case Value::Kind::poly: return v.wdeg;
    case Value::Kind::net:
    case Value::Kind::output: {
      if (!v.net || v.net->wdeg <= 0) return v.net ? v.net->wdeg : 0;
      const std::vector<long> ds = weight_degrees(v.net->model);
      long d = 0;
      if (v.kind == Value::Kind::output) d = ds.at(v.entry.token * v.net->model.output_width() + v.entry.channel);
      else
        for (long x : ds) d = std::max(d, x);
      return static_cast<int>(std::max(0L, d) * v.net->wdeg);
    }
    case Value::Kind::list: {
      int w = 0;
      for (const auto& x : *v.list) w = combine_max(w, value_wdeg(x));
      return w;
    }
    default: return 0;
  }
}

void Evaluator::note_draw_relation(const Value& a, Rel r, const Value& b, Verdict v, const std::string& text) {
  DrawRel d;
  d.rel = r;
  d.verdict = v;
  d.text = text;
  const int wa = value_wdeg(a), wb = value_wdeg(b);
  const bool ga = a.gmax >= 0, gb = b.gmax >= 0;
  if (ga && !gb && wb == 0) {
    d.kind = DrawRel::Kind::generic_max;
    d.degree = a.gmax;
    d.upper = r == Rel::le || r == Rel::lt;
  } else if (gb && !ga && wa == 0) {
    d.kind = DrawRel::Kind::generic_max;
    d.degree = b.gmax;
    d.upper = r == Rel::ge || r == Rel::gt;
  } else if ((ga || gb) && (ga || wa >= 0) && (gb || wb >= 0)) {  // a degree against a degree (or a polynomial)
    d.kind = DrawRel::Kind::generic_both;
    d.degree = (ga ? a.gmax : wa) + (gb ? b.gmax : wb);
  } else if (ga || gb || wa < 0 || wb < 0) {
    d.kind = DrawRel::Kind::other;
  } else if (wa == 0 && wb == 0) {
    d.kind = DrawRel::Kind::constant;
  } else {
    d.kind = r == Rel::eq || r == Rel::ne ? DrawRel::Kind::identity : DrawRel::Kind::other;
    d.degree = std::max(wa, wb);
  }
  draw_rels.push_back(d);
}

// ------------------------------------------------------------------ the verdict
RelOutcome drawn_condition(Evaluator& ev, const Env& env, const Clause& cl, CheckReport& rep, const NeedsDraws& why) {
  const bool every = ev.weights() == WeightQuantifier::every;
  const std::string q = every ? "every weight" : "almost every weight";
  ev.set_view(Evaluator::View::draw);
  struct Reset {
    Evaluator& ev;
    ~Reset() { ev.set_view(Evaluator::View::range); }
  } reset{ev};
  const double range = std::ldexp(1.0, kDrawBits);
  const std::string how = "integer weights drawn uniformly from [0, 2^" + std::to_string(kDrawBits) +
                          ") from the claim's random seed";
  double other_eps = 0, degree_sum = 0;
  std::vector<Evaluator::DrawRel> rels;
  for (int r = 0; r < kDraws; ++r) {
    Drawer d{ev, ev.claim_seed() ^ ((static_cast<std::uint64_t>(r) + 1) * 0xd6e8feb86659fd93ULL) ^
                     (static_cast<std::uint64_t>(cl.loc.line) << 40)};
    const Env denv = d.env(env);
    ev.draw_rels.clear();
    std::vector<std::pair<std::string, std::string>> values;
    RelOutcome o = ev.condition(cl.cond, denv, &values);
    if (r == 0) rep.values = values;
    rels = ev.draw_rels;
    if (o.verdict == Verdict::fail) {
      std::string failed;
      bool certified = every;
      for (const auto& x : rels)
        if (x.verdict == Verdict::fail) {
          failed += (failed.empty() ? "`" : ", `") + x.text + "`";
          // Almost every weight: a nonzero difference at a point is nonzero on a
          // dense open set; a degree above a constant at a point stays above it generically.
          certified = certified || (x.kind == Evaluator::DrawRel::Kind::identity && x.rel == Rel::eq) ||
                      (x.kind == Evaluator::DrawRel::Kind::generic_max && x.upper) ||
                      x.kind == Evaluator::DrawRel::Kind::constant;
        }
      if (!certified) {
        o.verdict = Verdict::inconclusive;
        o.note = "fails at " + how + " (draw " + std::to_string(r + 1) + ") at " + failed +
                 ", which need not be generic there; " + o.note;
        return o;
      }
      o.note = "does not hold for " + q + ": at " + how + " (draw " + std::to_string(r + 1) + "), " +
               (failed.empty() ? std::string("the condition") : failed) + " fails" +
               (every ? "" : " (so it fails on a dense open set of weights)") + (o.note.empty() ? "" : "; " + o.note);
      if (every && d.first) {
        rep.counterexample = d.first;
        rep.recheck.clear();
      }
      return o;
    }
    if (o.verdict == Verdict::inconclusive) {
      o.note = "at " + how + " (draw " + std::to_string(r + 1) + "): " + o.note;
      return o;
    }
    other_eps += o.failure_probability;
  }
  degree_sum = 0;
  for (const auto& x : rels) {
    using K = Evaluator::DrawRel::Kind;
    const bool ok = x.kind == K::constant || (x.kind == K::identity && (x.rel == Rel::eq || !every)) ||
                    (x.kind == K::generic_max && (x.upper || !every)) || (x.kind == K::generic_both && !every);
    if (!ok) {
      RelOutcome o;
      o.verdict = Verdict::inconclusive;
      o.note = "holds at " + std::to_string(kDraws) + " draws of " + how + ", but `" + x.text + "` " +
               (x.kind == K::generic_both
                    ? "relates two degrees at the same weights, which the draws give only at generic weights: write it "
                      "under `for almost every weight`"
                : x.kind == K::generic_max
                    ? "bounds a degree from below, and a degree is at most its generic value at every weight (0 at "
                      "the zero weights): write `<=` under `for every weight`, or the check under `for almost every weight`"
                    : "is not a polynomial identity in the weights (nor a degree at most a number), so draws decide it "
                      "for " + q + " only where it fails");
      return o;
    }
    if (x.kind != K::constant) degree_sum += x.degree;
  }
  RelOutcome o;
  if (degree_sum == 0) {  // nothing depended on the weights
    o.verdict = other_eps > 0 ? Verdict::pass_probabilistic : Verdict::pass;
    o.failure_probability = other_eps;
    o.note = "does not depend on the weights (" + why.what + " reads none that the check keeps)";
    return o;
  }
  const double per_draw = std::min(1.0, degree_sum / range);
  o.verdict = Verdict::pass_probabilistic;
  o.failure_probability = std::min(1.0, std::pow(per_draw, kDraws) + other_eps);
  o.note = "holds for " + q + " with probability >= 1 - " + prob_text(o.failure_probability) + ": exact at " +
           std::to_string(kDraws) + " draws of " + how + "; its relations are polynomial identities in the weights" +
           " or degrees at most a number, of degree <= " + prob_text(degree_sum) +
           " in the weights (Schwartz–Zippel: <= " + prob_text(per_draw) + " per draw)";
  return o;
}

}  // namespace netpoly::claims_detail
