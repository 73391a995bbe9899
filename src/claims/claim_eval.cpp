// Evaluation of claim expressions: values, generators, quantities (eval.hpp).
#include "claim_eval.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "netpoly/claim_bounds.hpp"
#include "netpoly/claim_transforms.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/rings.hpp"

namespace netpoly::claims_detail {

namespace {

[[noreturn]] void fail(const SrcLoc& at, const std::string& msg) { throw InputError(at.str() + ": " + msg); }

const std::set<std::string> kGenerators = {"attention", "mixer", "mlp",      "product", "random_poly",
                                           "poly",      "model", "balanced", "splits",  "outputs"};
const std::set<std::string> kSepLike = {"sep", "grid", "max_sep", "min_sep", "sup_sep", "inf_sep"};

Quantity need_number(const Value& v, const SrcLoc& at, const std::string& what) {
  if (v.kind != Value::Kind::number) fail(at, "expected a number for " + what + ", got a " + kind_name(v.kind));
  return v.num;
}

// An exact integer (e.g. a size or an index).
slong need_int(const Value& v, const SrcLoc& at, const std::string& what) {
  Quantity q = need_number(v, at, what);
  auto z = q.exact_integer();
  if (!z || !fmpz_fits_si(z->get())) fail(at, "expected an exact integer for " + what + ", got " + describe(q));
  return fmpz_get_si(z->get());
}

std::size_t need_size(const Value& v, const SrcLoc& at, const std::string& what) {
  slong x = need_int(v, at, what);
  if (x < 0) fail(at, "expected an integer >= 0 for " + what + ", got " + std::to_string(x));
  return static_cast<std::size_t>(x);
}

const NetVal& need_net(const Value& v, const SrcLoc& at, const std::string& what) {
  if (v.kind == Value::Kind::net || v.kind == Value::Kind::output) return *v.net;
  fail(at, "expected a network for " + what + ", got a " + std::string(kind_name(v.kind)));
}

Value make_int(slong x) { return Value::number(Quantity::exact(XRat(x))); }

Value make_net(Model m, NetFamily fam, std::string desc) {
  auto n = std::make_shared<NetVal>();
  n->model = std::move(m);
  n->fam = fam;
  n->desc = std::move(desc);
  Value v;
  v.kind = Value::Kind::net;
  v.net = std::move(n);
  v.desc = v.net->desc;
  return v;
}

NetFamily infer_family(const Model& m) {
  NetFamily f;
  f.width = m.width;
  f.tokens = m.tokens;
  bool att = false, tok = false, ch = false, prod = false;
  for (const auto& l : m.layers) {
    f.residual = f.residual || l.residual;
    switch (l.role()) {
      case LayerRole::attention:
        if (!att) f.heads = l.family_size();
        att = true;
        break;
      case LayerRole::token_mixing:
        tok = true;
        break;
      case LayerRole::channel_mixing:
        ch = true;
        break;
      case LayerRole::product:
        if (!prod) f.degree = l.family_size();
        prod = true;
        break;
      case LayerRole::structure:
        continue;  // permutations are not counted as layers
    }
    ++f.layers;
  }
  const int kinds = att + (tok || ch) + prod;
  if (kinds == 1) {
    if (att)
      f.arch = "attention";
    else if (prod)
      f.arch = "product";
    else
      f.arch = (m.tokens == 1 && !tok) ? "mlp" : "mixer";
  }
  return f;
}

Entry default_output(const Model& m) { return m.output ? *m.output : Entry{0, 0}; }

std::string var_label(std::size_t k, std::size_t width, bool flat) {
  if (flat) return "x" + std::to_string(k);
  return "x" + std::to_string(k / width) + "_" + std::to_string(k % width);
}

void shape_of(const Value& v, std::size_t& tokens, std::size_t& width, bool& flat, const SrcLoc& at) {
  if (v.kind == Value::Kind::net || v.kind == Value::Kind::output) {
    tokens = v.net->model.tokens;
    width = v.net->model.width;
    flat = false;
  } else if (v.kind == Value::Kind::poly) {
    tokens = v.poly->tokens;
    width = v.poly->width;
    flat = v.poly->flat;
  } else {
    fail(at, std::string("expected a network, an output or a polynomial, got a ") + kind_name(v.kind));
  }
}

std::string part_label(const Partition& P, std::size_t width, bool flat) {
  std::string s = "A = ";
  if (P.by_tokens && !flat) {
    s += "tokens {";
    for (std::size_t k = 0; k < P.tokens.size(); ++k) s += (k ? ", " : "") + std::to_string(P.tokens[k]);
    return s + "}";
  }
  s += "{";
  bool first = true;
  for (std::size_t k = 0; k < P.in_A.size(); ++k)
    if (P.in_A[k]) {
      s += (first ? "" : ", ") + var_label(k, width, flat);
      first = false;
    }
  return s + "}";
}

}  // namespace

std::string poly_text(const FmpqMpoly& p, std::size_t width, bool flat, std::size_t max_chars) {
  std::ostringstream os;
  const slong n = p.ctx()->nvars(), len = p.length();
  if (len == 0) return "0";
  check_exponents_fit(p, "printing the polynomial");
  std::vector<ulong> e(static_cast<std::size_t>(n));
  Fmpq c;
  for (slong t = 0; t < len; ++t) {
    fmpq_mpoly_get_term_coeff_fmpq(c.get(), p.get(), t, p.c());
    fmpq_mpoly_get_term_exp_ui(e.data(), p.get(), t, p.c());
    std::string cs = c.str();
    const bool neg = cs[0] == '-';
    if (neg) cs.erase(0, 1);
    os << (t == 0 ? (neg ? "-" : "") : (neg ? " - " : " + "));
    bool any = false;
    for (auto x : e) any = any || x;
    bool need = true;
    if (!(cs == "1" && any)) {
      os << cs;
    } else {
      need = false;
    }
    for (slong v = 0; v < n; ++v) {
      if (!e[static_cast<std::size_t>(v)]) continue;
      if (need) os << "*";
      need = true;
      os << var_label(static_cast<std::size_t>(v), width, flat);
      if (e[static_cast<std::size_t>(v)] > 1) os << "^" << e[static_cast<std::size_t>(v)];
    }
    if (max_chars && static_cast<std::size_t>(os.tellp()) > max_chars && t + 1 < len) {
      os << " + ...";
      break;
    }
  }
  return os.str();
}

namespace {

// SepResult -> Quantity: certified [lower, upper]; a probabilistic or numeric estimate when there is one.
Quantity from_result(const SepResult& r) {
  const XRat lo = r.lower.value ? XRat(static_cast<slong>(*r.lower.value)) : XRat(0);
  const XRat hi = r.upper.value ? XRat(static_cast<slong>(*r.upper.value)) : XRat::inf(1);
  Quantity q = Quantity::bracket(lo, hi);
  if (q.cert.is_point()) return q;
  if (r.status == "probabilistic") {
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

// sep of network outputs for partitions; a default analysis that does not
// close the bracket is followed by a black-box run (cheap, no expansion).
std::vector<Quantity> network_seps(const Model& m, const std::vector<Entry>& outs, const std::vector<Partition>& parts,
                                   const SepOptions& so) {
  auto rs = analyse_network(m, outs, parts, so);
  std::vector<Quantity> qs;
  for (const auto& r : rs) {
    Quantity q = from_result(r);
    if (is_default(so) && !q.cert.is_point()) {
      SepOptions bb = so;
      bb.methods = plan_followup(false);
      auto more = analyse_network(m, {r.output}, {r.partition}, bb);
      q = intersect(q, from_result(more.at(0)));
    }
    qs.push_back(q);
  }
  return qs;
}

// "group, exact, modular": the methods that take a polynomial.
std::string polynomial_methods() {
  std::string s;
  for (const MethodInfo* m : method_registry())
    if (m->accepts_polynomial) s += (s.empty() ? "" : ", ") + std::string(m->id.id());
  return s;
}

Quantity poly_sep(const FmpqMpoly& p, const Partition& P, const SepOptions& so) {
  for (Method m : so.methods)
    if (!method_info(m).accepts_polynomial)
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

}  // namespace

const char* kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::number:
      return "number";
    case Value::Kind::poly:
      return "polynomial";
    case Value::Kind::net:
      return "network";
    case Value::Kind::output:
      return "network output";
    case Value::Kind::partition:
      return "partition";
    case Value::Kind::list:
      return "list";
    case Value::Kind::string:
      return "string";
  }
  return "?";
}

std::string display(const Value& v, std::size_t max_chars) {
  switch (v.kind) {
    case Value::Kind::number:
      return describe(v.num);
    case Value::Kind::poly: {
      std::string s = poly_text(v.poly->p, v.poly->width, v.poly->flat, max_chars);
      std::string head = v.desc.empty() ? "" : v.desc + " = ";
      return head + s + " (" + std::to_string(v.poly->p.length()) + " terms, " +
             std::to_string(v.poly->p.ctx()->nvars()) + " variables)";
    }
    case Value::Kind::net:
      return v.net->desc;
    case Value::Kind::output:
      return v.net->desc + "[" + std::to_string(v.entry.token) + ", " + std::to_string(v.entry.channel) + "]";
    case Value::Kind::partition:
      return v.part->label;
    case Value::Kind::list: {
      std::string s = "[";
      for (std::size_t k = 0; k < v.list->size(); ++k) {
        if (k) s += ", ";
        if (s.size() > max_chars) {
          s += "...";
          break;
        }
        s += display((*v.list)[k], max_chars);
      }
      return s + "]";
    }
    case Value::Kind::string:
      return "\"" + v.str + "\"";
  }
  return "?";
}

Evaluator::Evaluator(const Claim& c, const CheckOptions& o) : claim_(c), opts_(o) {
  sep_.budget = o.budget;
  sep_.max_terms = o.max_terms;
}

FmpqMpolyCtxPtr Evaluator::ctx(std::size_t nvars) {
  auto& p = ctxs_[nvars];
  if (!p) p = std::make_shared<FmpqMpolyCtx>(static_cast<slong>(nvars));
  return p;
}

const FmpqMpoly& expansion(Evaluator& ev, const NetVal& n, const Entry& e, double max_terms) {
  auto key = std::make_pair(e.token, e.channel);
  auto it = n.expansions.find(key);
  if (it != n.expansions.end()) return it->second;
  check_expansion_size(n.model, max_terms);
  PolyRing R(static_cast<slong>(n.model.num_inputs()));
  R.ctx = ev.ctx(n.model.num_inputs());
  auto ys = expand(R, n.model, {e});
  return n.expansions.emplace(key, std::move(ys[0])).first->second;
}

std::shared_ptr<const PolyVal> Evaluator::as_poly(const Value& v, const SrcLoc& at) {
  if (v.kind == Value::Kind::poly) return v.poly;
  if (v.kind == Value::Kind::net || v.kind == Value::Kind::output) {
    const Entry e = v.kind == Value::Kind::output ? v.entry : default_output(v.net->model);
    auto p = std::make_shared<PolyVal>(expansion(*this, *v.net, e, sep_.max_terms));
    p->tokens = v.net->model.tokens;
    p->width = v.net->model.width;
    p->flat = false;
    return p;
  }
  fail(at, std::string("expected a polynomial, a network or an output, got a ") + kind_name(v.kind));
}

void Evaluator::record(const Expr& e, const std::string& status) {
  auto& s = stats[e.id];
  s.first = &e;
  ++s.second[status];
}

// ------------------------------------------------------------------ eval
Value Evaluator::eval(const Expr& e, const Env& env) {
  switch (e.kind) {
    case Expr::Kind::number:
      return Value::number(Quantity::exact(XRat(e.number)));
    case Expr::Kind::string: {
      Value v;
      v.kind = Value::Kind::string;
      v.str = e.str;
      return v;
    }
    case Expr::Kind::name: {
      for (auto it = env.rbegin(); it != env.rend(); ++it)
        if (it->first == e.str) return it->second;
      if (e.str == "true") return make_int(1);
      if (e.str == "false") return make_int(0);
      fail(e.loc, "unbound name '" + e.str + "'");
    }
    case Expr::Kind::neg: {
      Value a = eval(*e.kids[0], env);
      if (a.kind == Value::Kind::number) return Value::number(q_neg(a.num));
      return binary(e, make_int(0), a);  // 0 - a
    }
    case Expr::Kind::binary:
      return binary(e, eval(*e.kids[0], env), eval(*e.kids[1], env));
    case Expr::Kind::call: {
      Value v = call(e, env);
      if (trace_ && (kSepLike.count(e.str) || v.kind == Value::Kind::number)) {
        bool dup = false;
        for (const auto& t : *trace_) dup = dup || t.first == e.text;
        if (!dup) trace_->emplace_back(e.text, display(v));
      }
      return v;
    }
    case Expr::Kind::index:
      return index(e, env);
    case Expr::Kind::list: {
      auto items = std::make_shared<std::vector<Value>>();
      for (const auto& k : e.kids) {
        Value v = eval(*k, env);
        if (k->kind == Expr::Kind::range)
          for (const auto& x : *v.list) items->push_back(x);
        else
          items->push_back(std::move(v));
      }
      Value v;
      v.kind = Value::Kind::list;
      v.list = items;
      return v;
    }
    case Expr::Kind::range: {
      const slong a = need_int(eval(*e.kids[0], env), e.kids[0]->loc, "the start of a range");
      const slong b = need_int(eval(*e.kids[1], env), e.kids[1]->loc, "the end of a range");
      if (b >= a && b - a >= 1000000) fail(e.loc, "a range of more than 10^6 values");
      auto items = std::make_shared<std::vector<Value>>();
      for (slong x = a; x <= b; ++x) items->push_back(make_int(x));
      Value v;
      v.kind = Value::Kind::list;
      v.list = items;
      return v;
    }
  }
  fail(e.loc, "cannot evaluate this expression");
}

std::vector<Value> Evaluator::generate(const Expr& e, const Env& env) {
  if (e.kind == Expr::Kind::call && kGenerators.count(e.str)) return gen_call(e, env);
  Value v = eval(e, env);
  if (v.kind == Value::Kind::list) return *v.list;
  return {v};
}

// ------------------------------------------------------------------ arithmetic
Value Evaluator::binary(const Expr& e, const Value& a, const Value& b) {
  const char op = e.op ? e.op : '-';
  if (a.kind == Value::Kind::number && b.kind == Value::Kind::number) {
    switch (op) {
      case '+':
        return Value::number(q_add(a.num, b.num));
      case '-':
        return Value::number(q_sub(a.num, b.num));
      case '*':
        return Value::number(q_mul(a.num, b.num));
      case '/':
        return Value::number(q_div(a.num, b.num));
      case '^':
        return Value::number(q_pow(a.num, b.num));
    }
  }
  auto polylike = [](const Value& v) {
    return v.kind == Value::Kind::poly || v.kind == Value::Kind::net || v.kind == Value::Kind::output;
  };
  if (!(polylike(a) || polylike(b)) || !(polylike(a) || a.kind == Value::Kind::number) ||
      !(polylike(b) || b.kind == Value::Kind::number))
    fail(e.loc, std::string("cannot apply '") + op + "' to a " + kind_name(a.kind) + " and a " + kind_name(b.kind));
  if (op == '^') {
    if (b.kind != Value::Kind::number) fail(e.loc, "a polynomial power needs an exact integer exponent");
    const slong k = need_int(b, e.kids.size() > 1 ? e.kids[1]->loc : e.loc, "the exponent");
    if (k < 0) fail(e.loc, "a polynomial power needs an exponent >= 0");
    auto pa = as_poly(a, e.loc);
    auto r = std::make_shared<PolyVal>(FmpqMpoly(pa->p.ctx()));
    r->tokens = pa->tokens;
    r->width = pa->width;
    r->flat = pa->flat;
    if (static_cast<double>(pa->p.length()) > 1 &&
        std::pow(static_cast<double>(pa->p.length()), static_cast<double>(k)) > 1e12)
      throw LimitError("polynomial power too large (" + std::to_string(pa->p.length()) + " terms to the power " +
                       std::to_string(k) + ")");
    if (!fmpq_mpoly_pow_ui(r->p.get(), pa->p.get(), static_cast<ulong>(k), pa->p.c()))
      throw FlintFailure("polynomial power failed (exponents too large)");
    Value v;
    v.kind = Value::Kind::poly;
    v.poly = r;
    return v;
  }
  if (op == '/') {
    if (b.kind != Value::Kind::number || !b.num.is_exact())
      fail(e.loc, "a polynomial can only be divided by an exact number");
    if (b.num.cert.lo.sign() == 0) fail(e.loc, "division by zero");
  }
  // Bring both sides into one context (variables identified by flat index).
  std::shared_ptr<const PolyVal> pa, pb;
  if (polylike(a)) pa = as_poly(a, e.loc);
  if (polylike(b)) pb = as_poly(b, e.loc);
  const std::size_t na = pa ? static_cast<std::size_t>(pa->p.ctx()->nvars()) : 0,
                    nb = pb ? static_cast<std::size_t>(pb->p.ctx()->nvars()) : 0;
  const std::size_t n = std::max(na, nb);
  const PolyVal& shape = (pa && na == n) ? *pa : *pb;
  auto C = ctx(n);
  auto lift = [&](const std::shared_ptr<const PolyVal>& p) {
    FmpqMpoly r(C);
    if (p->p.ctx().get() == C.get()) {
      r = p->p;
    } else {
      std::vector<slong> map(static_cast<std::size_t>(p->p.ctx()->nvars()));
      for (std::size_t i = 0; i < map.size(); ++i) map[i] = static_cast<slong>(i);
      fmpq_mpoly_compose_fmpq_mpoly_gen(r.get(), p->p.get(), map.data(), p->p.c(), C->get());
    }
    return r;
  };
  auto constant = [&](const Quantity& q) {
    if (!q.is_exact()) fail(e.loc, "only an exact number can be combined with a polynomial, got " + describe(q));
    FmpqMpoly r(C);
    fmpq_mpoly_set_fmpq(r.get(), q.cert.lo.value().get(), C->get());
    return r;
  };
  FmpqMpoly x = pa ? lift(pa) : constant(a.num);
  auto out = std::make_shared<PolyVal>(FmpqMpoly(C));
  out->tokens = shape.tokens;
  out->width = shape.width;
  out->flat = shape.flat;
  if (op == '/') {
    fmpq_mpoly_scalar_div_fmpq(out->p.get(), x.get(), b.num.cert.lo.value().get(), C->get());
  } else {
    FmpqMpoly y = pb ? lift(pb) : constant(b.num);
    if (op == '+')
      fmpq_mpoly_add(out->p.get(), x.get(), y.get(), C->get());
    else if (op == '-')
      fmpq_mpoly_sub(out->p.get(), x.get(), y.get(), C->get());
    else {
      if (static_cast<double>(x.length()) * static_cast<double>(y.length()) > 10 * sep_.max_terms)
        throw LimitError("product of polynomials with " + std::to_string(x.length()) + " and " +
                         std::to_string(y.length()) + " terms exceeds 10 x max_terms");
      fmpq_mpoly_mul(out->p.get(), x.get(), y.get(), C->get());
    }
  }
  Value v;
  v.kind = Value::Kind::poly;
  v.poly = out;
  return v;
}

Value Evaluator::index(const Expr& e, const Env& env) {
  Value base = eval(*e.kids[0], env);
  std::vector<std::size_t> ix;
  for (std::size_t k = 1; k < e.kids.size(); ++k)
    ix.push_back(need_size(eval(*e.kids[k], env), e.kids[k]->loc, "an index"));
  if (base.kind == Value::Kind::list) {
    if (ix.size() != 1) fail(e.loc, "a list takes one index");
    if (ix[0] >= base.list->size())
      fail(e.loc, "index " + std::to_string(ix[0]) + " out of range (the list has " +
                      std::to_string(base.list->size()) + " items)");
    return (*base.list)[ix[0]];
  }
  if (base.kind == Value::Kind::net) {
    const Model& m = base.net->model;
    const std::size_t dout = m.output_width();
    Entry en;
    if (ix.size() == 1) {
      if (ix[0] >= m.tokens * dout)
        fail(e.loc,
             "output " + std::to_string(ix[0]) + " out of range (0.." + std::to_string(m.tokens * dout - 1) + ")");
      en = {ix[0] / dout, ix[0] % dout};
    } else {
      if (ix[0] >= m.tokens || ix[1] >= dout)
        fail(e.loc, "output [" + std::to_string(ix[0]) + ", " + std::to_string(ix[1]) + "] out of range (tokens 0.." +
                        std::to_string(m.tokens - 1) + ", channels 0.." + std::to_string(dout - 1) + ")");
      en = {ix[0], ix[1]};
    }
    Value v = base;
    v.kind = Value::Kind::output;
    v.entry = en;
    return v;
  }
  fail(e.loc, std::string("cannot index a ") + kind_name(base.kind) +
                  " (index networks as net[i, c] or net[t], lists as l[i])");
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

SepOptions Evaluator::sep_options(const Expr& call, const Env& env) {
  SepOptions so = sep_;
  for (const auto& a : call.args) {
    if (a.name.empty()) continue;
    if (a.name == "methods") {
      std::string list;
      for (const auto& w : a.value->kids) list += (list.empty() ? "" : ",") + w->str;
      so.methods = parse_methods(list);
      continue;
    }
    Value v = eval(*a.value, env);
    if (a.name == "seed")
      so.seed = static_cast<std::uint64_t>(need_int(v, a.loc, "seed"));
    else if (a.name == "prime") {
      so.prime = static_cast<ulong>(need_int(v, a.loc, "prime"));
      require_prime_modulus(so.prime, "prime");
    } else if (a.name == "templates") {
      if (v.kind == Value::Kind::list) {
        so.template_vectors.clear();
        for (const auto& t : *v.list) {
          if (t.kind != Value::Kind::list) fail(a.loc, "templates = [[...], ...]: each template is a list of numbers");
          std::vector<Fmpq> row;
          for (const auto& x : *t.list) {
            Quantity q = need_number(x, a.loc, "a template entry");
            if (!q.is_exact()) fail(a.loc, "template entries must be exact");
            row.push_back(q.cert.lo.value());
          }
          so.template_vectors.push_back(std::move(row));
        }
      } else {
        so.templates = need_size(v, a.loc, "templates");
      }
    } else if (a.name == "max_points")
      so.max_points = need_size(v, a.loc, "max_points");
    else if (a.name == "budget" || a.name == "max_terms") {
      Quantity q = need_number(v, a.loc, a.name);
      if (!q.is_exact() || q.cert.lo.sign() <= 0) fail(a.loc, a.name + " must be an exact positive number");
      (a.name == "budget" ? so.budget : so.max_terms) = q.cert.lo.value().to_double();
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

std::string sep_key(const Entry& e, const Partition& P, const SepOptions& so) {
  std::string k = std::to_string(e.token) + "," + std::to_string(e.channel) + "|";
  for (char c : P.in_A) k += c ? '1' : '0';
  k += P.by_tokens ? "t|" : "v|";
  for (Method m : so.methods) k += std::string(method_name(m)) + ",";
  k += "|" + std::to_string(so.seed) + "|" + std::to_string(so.prime) + "|" + std::to_string(so.templates) + "|" +
       std::to_string(so.max_points) + "|" + std::to_string(so.budget) + "|" + std::to_string(so.max_terms) + "|";
  for (const auto& t : so.template_vectors) {
    for (const auto& x : t) k += x.str() + " ";
    k += ";";
  }
  return k;
}

}  // namespace

std::optional<Quantity> Evaluator::cached(const std::shared_ptr<const NetVal>& n, const std::string& key) const {
  for (const auto& [k, q] : sep_cache_)
    if (k.net == n && k.key == key) return q;
  return std::nullopt;
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
      q = network_seps(target.net->model, {e}, {P.P}, so).at(0);
      remember(target.net, key, q);
    }
  } else if (target.kind == Value::Kind::poly) {
    q = poly_sep(target.poly->p, P.P, so);
  } else {
    fail(call.loc, std::string("sep needs a network, an output or a polynomial, got a ") + kind_name(target.kind));
  }
  *status = q.status();
  return q;
}

RelOutcome Evaluator::condition(const Condition& c, const Env& env,
                                std::vector<std::pair<std::string, std::string>>* values) {
  trace_ = values;
  struct Reset {
    std::vector<std::pair<std::string, std::string>>*& t;
    ~Reset() { t = nullptr; }
  } reset{trace_};
  std::vector<Value> vals;
  for (const auto& t : c.terms) {
    vals.push_back(eval(*t, env));
    if (values && t->kind != Expr::Kind::number) {
      bool dup = false;
      for (const auto& x : *values) dup = dup || x.first == t->text;
      if (!dup) values->emplace_back(t->text, display(vals.back()));
    }
  }
  auto relate = [&](const Value& a, Rel r, const Value& b, const Expr& at) -> RelOutcome {
    if (a.kind == Value::Kind::number && b.kind == Value::Kind::number) return compare(a.num, r, b.num);
    auto polylike = [](const Value& v) {
      return v.kind == Value::Kind::poly || v.kind == Value::Kind::net || v.kind == Value::Kind::output ||
             v.kind == Value::Kind::number;
    };
    if (!polylike(a) || !polylike(b))
      fail(at.loc, std::string("cannot compare a ") + kind_name(a.kind) + " with a " + kind_name(b.kind));
    if (r != Rel::eq && r != Rel::ne) fail(at.loc, "polynomials and networks can only be compared with == and !=");
    bool equal = true;
    std::string note;
    if (a.kind == Value::Kind::net && b.kind == Value::Kind::net) {
      // Networks: every output entry, variables identified by flat index.
      const Model &ma = a.net->model, &mb = b.net->model;
      const std::size_t oa = ma.tokens * ma.output_width(), ob = mb.tokens * mb.output_width();
      if (ma.num_inputs() != mb.num_inputs() || oa != ob) {
        equal = false;
        note = "different shapes: " + std::to_string(ma.num_inputs()) + " inputs / " + std::to_string(oa) +
               " outputs vs " + std::to_string(mb.num_inputs()) + " inputs / " + std::to_string(ob) + " outputs";
      } else {
        check_expansion_size(ma, sep_.max_terms);
        check_expansion_size(mb, sep_.max_terms);
        PolyRing R(static_cast<slong>(ma.num_inputs()));
        R.ctx = ctx(ma.num_inputs());
        auto all = [](const Model& m) { return resolve_outputs(m, std::nullopt, true); };
        auto ya = expand(R, ma, all(ma)), yb = expand(R, mb, all(mb));
        for (std::size_t t = 0; t < ya.size(); ++t)
          if (!(ya[t] == yb[t])) {
            equal = false;
            FmpqMpoly d(R.ctx);
            fmpq_mpoly_sub(d.get(), ya[t].get(), yb[t].get(), R.ctx->get());
            note = "output " + std::to_string(t) + " (row-major) differs: difference " +
                   poly_text(d, ma.width, false, 120);
            break;
          }
        if (equal) note = std::to_string(ya.size()) + " outputs equal";
      }
    } else {
      Expr sub;
      sub.kind = Expr::Kind::binary;
      sub.op = '-';
      sub.loc = at.loc;
      Value d = binary(sub, a, b);
      equal = d.poly->p.is_zero();
      if (!equal) note = "difference " + poly_text(d.poly->p, d.poly->width, d.poly->flat, 120);
    }
    const bool holds = (r == Rel::eq) == equal;
    return {holds ? Verdict::pass : Verdict::fail, note};
  };
  if (c.rels.empty()) {
    const Value& v = vals[0];
    if (v.kind == Value::Kind::number) return compare(v.num, Rel::ne, Quantity::exact(XRat(0)));
    return relate(v, Rel::ne, make_int(0), *c.terms[0]);
  }
  RelOutcome out{Verdict::pass, ""};
  for (std::size_t k = 0; k < c.rels.size(); ++k) {
    RelOutcome o = relate(vals[k], c.rels[k], vals[k + 1], *c.terms[k + 1]);
    out.verdict = verdict_and(out.verdict, o.verdict);
    if (!o.note.empty()) out.note += (out.note.empty() ? "" : "; ") + o.note;
  }
  return out;
}

// ------------------------------------------------------------------ calls
namespace {

const Arg* named(const Expr& e, const std::string& n) {
  for (const auto& a : e.args)
    if (a.name == n) return &a;
  return nullptr;
}

std::vector<const Arg*> positional(const Expr& e) {
  std::vector<const Arg*> r;
  for (const auto& a : e.args)
    if (a.name.empty()) r.push_back(&a);
  return r;
}

std::string word(const Arg* a, const std::string& dflt) { return a ? a->value->str : dflt; }

}  // namespace

std::vector<Value> Evaluator::gen_call(const Expr& e, const Env& env) {
  const std::string& f = e.str;
  auto pos = positional(e);
  if (f == "attention" || f == "mixer" || f == "mlp" || f == "product") {
    // Each parameter a value or a list; every combination, the first written parameter outermost.
    struct Param {
      std::string name;
      std::vector<Value> values;
      SrcLoc loc;
    };
    std::vector<Param> ps;
    std::string activation = "square";
    for (const auto& a : e.args) {
      if (a.name == "activation") {
        activation = a.value->str;
        continue;
      }
      Value v = eval(*a.value, env);
      Param p{a.name, {}, a.loc};
      if (v.kind == Value::Kind::list)
        p.values = *v.list;
      else
        p.values = {v};
      if (p.values.empty()) return {};
      ps.push_back(std::move(p));
    }
    std::vector<Value> out;
    std::size_t skipped = 0;
    std::vector<std::size_t> at(ps.size(), 0);
    for (bool done = false; !done;) {
      PresetOptions o;
      o.arch = f;
      if (f == "product") o.tokens = 1;
      std::string desc = f + "(";
      for (std::size_t k = 0; k < ps.size(); ++k) {
        const Value& v = ps[k].values[at[k]];
        const std::string& n = ps[k].name;
        const std::size_t x = need_size(v, ps[k].loc, n);
        if (n == "layers")
          o.layers = x;
        else if (n == "width")
          o.width = x;
        else if (n == "heads")
          o.heads = x;
        else if (n == "tokens")
          o.tokens = x;
        else if (n == "degree")
          o.degree = x;
        else if (n == "seed")
          o.seed = x;
        else if (n == "residual")
          o.residual = x != 0;
        else if (n == "range")
          o.range = static_cast<std::int64_t>(x);
        desc += (k ? ", " : "") + n + " = " + (n == "residual" ? std::string(x ? "true" : "false") : std::to_string(x));
      }
      if (activation == "none") desc += std::string(ps.empty() ? "" : ", ") + "activation = none";
      desc += ")";
      if (f == "attention" && (o.heads == 0 || o.width % o.heads != 0)) {
        ++skipped;
      } else {
        Model m = make_preset(o);
        if (activation == "none")
          for (auto& l : m.layers) {
            if (auto* t = std::get_if<TokenMix<Fmpq>>(&l.op)) t->activation = Activation::none;
            if (auto* c = std::get_if<ChannelMix<Fmpq>>(&l.op)) c->activation = Activation::none;
          }
        NetFamily fam;
        fam.arch = f;
        fam.layers = o.layers;
        fam.width = o.width;
        fam.heads = f == "attention" ? o.heads : 1;
        fam.tokens = m.tokens;
        fam.degree = o.degree;
        fam.residual = o.residual;
        out.push_back(make_net(std::move(m), fam, desc));
      }
      // next combination: the last parameter varies fastest
      done = true;
      for (std::size_t k = ps.size(); k-- > 0;) {
        if (++at[k] < ps[k].values.size()) {
          done = false;
          break;
        }
        at[k] = 0;
      }
    }
    if (skipped)
      notes.push_back(std::to_string(skipped) + " shape(s) of " + e.text + " skipped: heads must divide width");
    return out;
  }
  if (f == "random_poly") {
    auto list_of = [&](const char* n, std::vector<slong> dflt) {
      const Arg* a = named(e, n);
      if (!a) return dflt;
      Value v = eval(*a->value, env);
      std::vector<slong> r;
      if (v.kind == Value::Kind::list)
        for (const auto& x : *v.list) r.push_back(need_int(x, a->loc, n));
      else
        r.push_back(need_int(v, a->loc, n));
      return r;
    };
    // terms and degree: a value or a range a..b to draw from
    auto span = [&](const char* n, slong lo_dflt, slong hi_dflt, bool single_is_max) {
      const Arg* a = named(e, n);
      if (!a) return std::make_pair(lo_dflt, hi_dflt);
      if (a->value->kind == Expr::Kind::range)
        return std::make_pair(need_int(eval(*a->value->kids[0], env), a->loc, n),
                              need_int(eval(*a->value->kids[1], env), a->loc, n));
      const slong x = need_int(eval(*a->value, env), a->loc, n);
      return std::make_pair(single_is_max ? std::min<slong>(1, x) : x, x);
    };
    const auto vars = list_of("vars", {4});
    const auto seeds = list_of("seed", {1});
    const auto [tlo, thi] = span("terms", 2, 6, false);
    const auto [dlo, dhi] = span("degree", 1, 2, true);
    slong R = 3;
    if (const Arg* a = named(e, "coeffs")) R = need_int(eval(*a->value, env), a->loc, "coeffs");
    if (tlo < 0 || thi < tlo || dlo < 0 || dhi < dlo || R < 1 || dhi > 64)
      fail(e.loc, "random_poly: need 0 <= terms lo <= hi, 0 <= degree lo <= hi <= 64, coeffs >= 1");
    std::vector<Value> out;
    for (slong n : vars) {
      if (n < 1 || n > 64) fail(e.loc, "random_poly: vars must be in [1, 64]");
      for (slong s : seeds) {
        SplitMix64 g(static_cast<std::uint64_t>(s));
        auto C = ctx(static_cast<std::size_t>(n));
        auto pv = std::make_shared<PolyVal>(FmpqMpoly(C));
        pv->tokens = static_cast<std::size_t>(n);
        pv->width = 1;
        pv->flat = true;
        const slong nt = tlo + static_cast<slong>(g.below(static_cast<std::uint64_t>(thi - tlo + 1)));
        std::vector<ulong> ex(static_cast<std::size_t>(n));
        FmpqMpoly t(C);
        for (slong k = 0; k < nt; ++k) {
          std::fill(ex.begin(), ex.end(), 0);
          const slong deg = dlo + static_cast<slong>(g.below(static_cast<std::uint64_t>(dhi - dlo + 1)));
          for (slong j = 0; j < deg; ++j) ++ex[g.below(static_cast<std::uint64_t>(n))];
          slong c = static_cast<slong>(g.below(static_cast<std::uint64_t>(2 * R)));
          c = c < R ? c - R : c - R + 1;  // uniform in [-R, R] without 0
          Fmpq cq(c);
          fmpq_mpoly_zero(t.get(), C->get());
          fmpq_mpoly_set_coeff_fmpq_ui(t.get(), cq.get(), ex.data(), C->get());
          fmpq_mpoly_add(pv->p.get(), pv->p.get(), t.get(), C->get());
        }
        Value v;
        v.kind = Value::Kind::poly;
        v.poly = pv;
        v.desc = "random_poly(vars = " + std::to_string(n) + ", terms = " + std::to_string(tlo) + ".." +
                 std::to_string(thi) + ", degree = " + std::to_string(dlo) + ".." + std::to_string(dhi) +
                 ", coeffs = " + std::to_string(R) + ", seed = " + std::to_string(s) + ")";
        out.push_back(std::move(v));
      }
    }
    return out;
  }
  if (f == "poly") {
    // Variables: x{k} flat, or x{i}_{c} with tokens/width given.
    std::size_t tokens = 0, width = 1, nvars = 0;
    const Arg* av = named(e, "vars");
    const Arg* at = named(e, "tokens");
    const Arg* aw = named(e, "width");
    bool flat = true;
    if (at || aw) {
      if (!at || !aw || av) fail(e.loc, "poly: give vars = n, or tokens = N and width = d");
      tokens = need_size(eval(*at->value, env), at->loc, "tokens");
      width = need_size(eval(*aw->value, env), aw->loc, "width");
      nvars = tokens * width;
      flat = false;
    } else if (av) {
      nvars = need_size(eval(*av->value, env), av->loc, "vars");
      tokens = nvars;
    }
    // Without a size: one more than the largest flat index written.
    std::function<void(const Expr&)> scan = [&](const Expr& x) {
      if (x.kind == Expr::Kind::name && !av && !at) {
        if (x.str.find('_') != std::string::npos) fail(x.loc, "poly: variables x{i}_{c} need tokens = N, width = d");
        const std::size_t k = std::stoul(x.str.substr(1));
        nvars = std::max(nvars, k + 1);
        tokens = nvars;
      }
      for (const auto& k : x.kids) scan(*k);
    };
    scan(*e.poly);
    if (nvars == 0) nvars = tokens = 1;
    auto C = ctx(nvars);
    std::function<FmpqMpoly(const Expr&)> ev = [&](const Expr& x) -> FmpqMpoly {
      FmpqMpoly r(C);
      switch (x.kind) {
        case Expr::Kind::number:
          fmpq_mpoly_set_fmpq(r.get(), x.number.get(), C->get());
          return r;
        case Expr::Kind::name: {
          std::size_t k = 0;
          const auto us = x.str.find('_');
          if (us == std::string::npos) {
            k = std::stoul(x.str.substr(1));
          } else {
            const std::size_t i = std::stoul(x.str.substr(1, us - 1)), c = std::stoul(x.str.substr(us + 1));
            if (flat || c >= width || i >= tokens) fail(x.loc, "variable " + x.str + " out of range");
            k = i * width + c;
          }
          if (k >= nvars)
            fail(x.loc,
                 "variable " + x.str + " out of range (the polynomial has " + std::to_string(nvars) + " variables)");
          fmpq_mpoly_gen(r.get(), static_cast<slong>(k), C->get());
          return r;
        }
        case Expr::Kind::neg:
          fmpq_mpoly_neg(r.get(), ev(*x.kids[0]).get(), C->get());
          return r;
        case Expr::Kind::binary: {
          FmpqMpoly a = ev(*x.kids[0]);
          if (x.op == '^' || x.op == '/') {
            if (x.kids[1]->kind != Expr::Kind::number) fail(x.kids[1]->loc, "poly: expected a number here");
            const Fmpq& q = x.kids[1]->number;
            if (x.op == '/') {
              if (q.is_zero()) fail(x.loc, "division by zero");
              fmpq_mpoly_scalar_div_fmpq(r.get(), a.get(), q.get(), C->get());
              return r;
            }
            if (!q.is_integer() || fmpz_sgn(q.num()) < 0 || fmpz_cmp_ui(q.num(), 1000) > 0)
              fail(x.kids[1]->loc, "poly: exponents are integers 0..1000");
            if (!fmpq_mpoly_pow_ui(r.get(), a.get(), fmpz_get_ui(q.num()), C->get()))
              throw FlintFailure("poly: power failed");
            return r;
          }
          FmpqMpoly b = ev(*x.kids[1]);
          if (x.op == '+')
            fmpq_mpoly_add(r.get(), a.get(), b.get(), C->get());
          else if (x.op == '-')
            fmpq_mpoly_sub(r.get(), a.get(), b.get(), C->get());
          else
            fmpq_mpoly_mul(r.get(), a.get(), b.get(), C->get());
          return r;
        }
        default:
          fail(x.loc, "poly: expected numbers, variables, + - * / ^ and parentheses");
      }
    };
    auto pv = std::make_shared<PolyVal>(ev(*e.poly));
    pv->tokens = tokens;
    pv->width = width;
    pv->flat = flat;
    Value v;
    v.kind = Value::Kind::poly;
    v.poly = pv;
    v.desc = e.text;
    return {v};
  }
  if (f == "model") {
    std::string path = pos[0]->value->str;
    if (!path.empty() && path[0] != '/') path = claim_.base_dir + "/" + path;
    Model m = read_model(path);
    NetFamily fam = infer_family(m);
    return {make_net(std::move(m), fam, "model(\"" + pos[0]->value->str + "\")")};
  }
  Value target = eval(*pos[0]->value, env);
  if (f == "outputs") {
    const NetVal& n = need_net(target, pos[0]->loc, "outputs(...)");
    std::vector<Value> out;
    for (const auto& en : resolve_outputs(n.model, std::nullopt, true)) {
      Value v;
      v.kind = Value::Kind::output;
      v.net = target.net;
      v.entry = en;
      out.push_back(std::move(v));
    }
    return out;
  }
  // balanced / splits
  std::size_t tokens = 0, width = 0;
  bool flat = true;
  shape_of(target, tokens, width, flat, pos[0]->loc);
  std::vector<Partition> parts;
  if (f == "balanced") {
    try {
      parts = all_balanced(tokens, width);
    } catch (const InputError& x) {
      fail(e.loc, x.what());
    }
  } else {
    const bool channels = tokens == 1;
    const std::size_t n = channels ? width : tokens;
    if (n < 2 || n > 16) fail(e.loc, "splits: needs 2 to 16 " + std::string(channels ? "channels" : "tokens"));
    for (unsigned long mask = 1; mask < (1ul << n) - 1; ++mask) {
      if (!(mask & 1)) continue;  // item 0 in A: each unordered pair once
      std::vector<std::size_t> items;
      for (std::size_t t = 0; t < n; ++t)
        if (mask >> t & 1) items.push_back(t);
      parts.push_back(channels ? partition_from_vars(items, tokens, width)
                               : partition_from_tokens(items, tokens, width));
    }
  }
  std::vector<Value> out;
  for (auto& P : parts) {
    auto pv = std::make_shared<PartVal>();
    pv->label = part_label(P, width, flat);
    pv->P = std::move(P);
    Value v;
    v.kind = Value::Kind::partition;
    v.part = pv;
    out.push_back(std::move(v));
  }
  return out;
}

Value Evaluator::call(const Expr& e, const Env& env) {
  const std::string& f = e.str;
  if (kGenerators.count(f)) {
    auto vs = gen_call(e, env);
    if (vs.size() != 1)
      fail(e.loc, f + "(...) gives " + std::to_string(vs.size()) +
                      " values here; iterate over them with `for NAME in " + f + "(...)`");
    return vs[0];
  }
  auto pos = positional(e);
  auto arg = [&](std::size_t k) { return eval(*pos[k]->value, env); };
  auto num = [&](std::size_t k) { return need_number(arg(k), pos[k]->loc, f + "(...)"); };
  // ---- quantities
  if (f == "sep" || f == "grid" || f == "max_sep" || f == "min_sep") {
    Value target = arg(0);
    PartVal P = partition(e, target, env);
    SepOptions so = sep_options(e, env);
    std::string status;
    Quantity q;
    if (f == "sep") {
      q = sep_quantity(e, target, P, so, &status);
    } else if (f == "grid") {
      const NetVal& n = need_net(target, pos[0]->loc, "grid(...)");
      const Entry en = target.kind == Value::Kind::output ? target.entry : default_output(n.model);
      so.methods = {Method::grid};
      auto rs = analyse_network(n.model, {en}, {P.P}, so);
      const MethodRun* run = nullptr;
      for (const auto& r : rs.at(0).runs)
        if (r.method == Method::grid && r.value) run = &r;
      if (!run) throw LimitError("grid(...): the grid rank was not computed");
      q = Quantity::exact(XRat(static_cast<slong>(*run->value)));
      status = "exact";
    } else {
      std::vector<Quantity> qs;
      if (target.kind == Value::Kind::net) {
        qs = network_seps(target.net->model, resolve_outputs(target.net->model, std::nullopt, true), {P.P}, so);
      } else {
        qs.push_back(sep_quantity(e, target, P, so, &status));
      }
      q = qs.at(0);
      for (std::size_t k = 1; k < qs.size(); ++k) q = f == "max_sep" ? q_max(q, qs[k]) : q_min(q, qs[k]);
      status = q.status();
    }
    record(e, status);
    return Value::number(q);
  }
  if (f == "sup_sep" || f == "inf_sep") {
    Value target = arg(0);
    const NetVal& n = need_net(target, pos[0]->loc, f + "(...)");
    SepOptions so = sep_options(e, env);
    std::vector<Entry> outs = target.kind == Value::Kind::output ? std::vector<Entry>{target.entry}
                                                                 : resolve_outputs(n.model, std::nullopt, true);
    std::vector<Partition> parts;
    try {
      parts = all_balanced(n.model.tokens, n.model.width);
    } catch (const InputError& x) {
      fail(e.loc, x.what());
    }
    auto qs = network_seps(n.model, outs, parts, so);
    Quantity q = qs.at(0);
    for (std::size_t k = 1; k < qs.size(); ++k) q = f == "sup_sep" ? q_max(q, qs[k]) : q_min(q, qs[k]);
    record(e, q.status());
    return Value::number(q);
  }
  if (f == "degree" || f == "terms" || f == "vars") {
    Value target = arg(0);
    if (f == "vars") {
      std::size_t t = 0, w = 0;
      bool flat = true;
      shape_of(target, t, w, flat, pos[0]->loc);
      return make_int(static_cast<slong>(t * w));
    }
    auto p = as_poly(target, pos[0]->loc);
    if (f == "terms") return make_int(p->p.length());
    // The zero polynomial's degree is -infinity, which no claim value can be:
    // refused rather than read as -1.
    if (p->p.is_zero()) fail(e.loc, "degree of the zero polynomial (it is -infinity); test terms(...) > 0 first");
    check_exponents_fit(p->p, e.loc.str() + ": degree");
    if (!e.part) return make_int(fmpq_mpoly_total_degree_si(p->p.get(), p->p.c()));
    PartVal P = partition(e, target, env);
    slong best = 0;
    const slong nv = p->p.ctx()->nvars();
    std::vector<ulong> ex(static_cast<std::size_t>(nv));
    for (slong t = 0; t < p->p.length(); ++t) {
      fmpq_mpoly_get_term_exp_ui(ex.data(), p->p.get(), t, p->p.c());
      slong s = 0;
      for (slong v = 0; v < nv; ++v)
        if (static_cast<std::size_t>(v) < P.P.in_A.size() && P.P.in_A[static_cast<std::size_t>(v)])
          s += static_cast<slong>(ex[static_cast<std::size_t>(v)]);
      best = std::max(best, s);
    }
    return make_int(best);
  }
  if (f == "bound" || f == "log3bound" || f == "regime") {
    BoundCall bc;
    bc.id = pos[0]->value->str;
    if (pos.size() > 1) {
      Value n = arg(1);
      const NetVal& nv = need_net(n, pos[1]->loc, f + "(id, net)");
      if (nv.fam.arch.empty())
        fail(pos[1]->loc, "the architecture of " + nv.desc + " is not known; give arch = ... and the shape instead");
      BoundParams p;
      p.arch = parse_arch(nv.fam.arch);
      p.layers = nv.fam.layers;
      p.width = nv.fam.width;
      p.heads = nv.fam.heads;
      p.tokens = nv.fam.tokens;
      p.degree = nv.fam.degree;
      p.residual = nv.fam.residual;
      bc.shape = p;
    }
    for (const auto& a : e.args) {
      if (a.name.empty()) continue;
      if (a.name == "arch")
        bc.words["arch"] = a.value->str;
      else
        bc.numbers[a.name] = need_number(eval(*a.value, env), a.loc, a.name);
    }
    Quantity q;
    try {
      q = claim_bound(bc, f == "bound" ? BoundWant::value : f == "log3bound" ? BoundWant::log3 : BoundWant::regime);
    } catch (const InputError& x) {
      fail(e.loc, x.what());
    }
    return Value::number(q);
  }
  // ---- network shape
  if (f == "layers" || f == "width" || f == "heads" || f == "tokens" || f == "params" || f == "nonzeros" ||
      f == "block_degree" || f == "residual") {
    const NetVal& n = need_net(arg(0), pos[0]->loc, f + "(...)");
    if (f == "layers") return make_int(static_cast<slong>(n.fam.layers));
    if (f == "width") return make_int(static_cast<slong>(n.model.width));
    if (f == "heads") return make_int(static_cast<slong>(n.fam.heads));
    if (f == "tokens") return make_int(static_cast<slong>(n.model.tokens));
    if (f == "params") return make_int(static_cast<slong>(parameter_count(n.model)));
    if (f == "nonzeros") return make_int(static_cast<slong>(nonzero_count(n.model)));
    if (f == "block_degree") return make_int(static_cast<slong>(n.fam.degree));
    return make_int(n.fam.residual ? 1 : 0);
  }
  // ---- network transformations
  if (f == "wide_sparse") {
    Value t = arg(0);
    const NetVal& n = need_net(t, pos[0]->loc, "wide_sparse(...)");
    WideSparseOptions o;
    o.column = word(named(e, "vec"), "row") == "column";
    o.block_diagonal = word(named(e, "blocks"), "kron") == "diagonal";
    if (const Arg* m = named(e, "merge")) o.merge = need_int(eval(*m->value, env), m->loc, "merge") != 0;
    Model w;
    try {
      w = wide_sparse(n.model, o);
    } catch (const InputError& x) {
      fail(e.loc, x.what());
    }
    NetFamily fam = infer_family(w);
    std::string desc = "wide_sparse(" + n.desc + (o.column ? ", vec = column" : "") +
                       (o.block_diagonal ? ", blocks = diagonal" : "") + (o.merge ? ", merge = true" : "") + ")";
    return make_net(std::move(w), fam, desc);
  }
  if (f == "permute" || f == "prefix") {
    Value t = arg(0);
    const NetVal& n = need_net(t, pos[0]->loc, f + "(...)");
    Model m;
    std::string desc;
    if (f == "permute") {
      Value l = arg(1);
      if (l.kind != Value::Kind::list) fail(pos[1]->loc, "permute(net, LIST): expected a list");
      std::vector<std::size_t> perm;
      for (const auto& x : *l.list) perm.push_back(need_size(x, pos[1]->loc, "a permutation entry"));
      const bool input = word(named(e, "at"), "output") == "input";
      try {
        m = permute_network(n.model, perm, input);
      } catch (const InputError& x) {
        fail(e.loc, x.what());
      }
      desc = "permute(" + n.desc + ", " + display(l, 80) + (input ? ", at = input" : "") + ")";
    } else {
      const std::size_t k = need_size(arg(1), pos[1]->loc, "prefix length");
      try {
        m = prefix_network(n.model, k);
      } catch (const InputError& x) {
        fail(e.loc, x.what());
      }
      desc = "prefix(" + n.desc + ", " + std::to_string(k) + ")";
    }
    NetFamily fam = infer_family(m);
    if (!n.fam.arch.empty() && fam.arch == n.fam.arch) {
      fam.heads = n.fam.heads;
      fam.degree = n.fam.degree;
    }
    return make_net(std::move(m), fam, desc);
  }
  if (f == "shuffle") {
    const std::size_t n = need_size(arg(0), pos[0]->loc, "shuffle(n)");
    std::uint64_t seed = 1;
    if (const Arg* s = named(e, "seed"))
      seed = static_cast<std::uint64_t>(need_int(eval(*s->value, env), s->loc, "seed"));
    if (n > 1000000) fail(e.loc, "shuffle: n too large");
    std::vector<std::size_t> p(n);
    for (std::size_t k = 0; k < n; ++k) p[k] = k;
    SplitMix64 g(seed);
    for (std::size_t k = n; k > 1; --k) std::swap(p[k - 1], p[g.below(k)]);  // Fisher-Yates
    auto items = std::make_shared<std::vector<Value>>();
    for (auto x : p) items->push_back(make_int(static_cast<slong>(x)));
    Value v;
    v.kind = Value::Kind::list;
    v.list = items;
    return v;
  }
  if (f == "len") {
    Value l = arg(0);
    if (l.kind != Value::Kind::list) fail(pos[0]->loc, "len: expected a list");
    return make_int(static_cast<slong>(l.list->size()));
  }
  // ---- arithmetic
  if (f == "binom") return Value::number(q_binom(num(0), num(1)));
  if (f == "multiset") {  // ((n k)) = binom(n + k - 1, k)
    Quantity n = num(0), k = num(1);
    if (n.is_exact() && n.cert.lo.sign() == 0)
      return Value::number(Quantity::exact(XRat(k.is_exact() && k.cert.lo.sign() == 0 ? 1 : 0)));
    return Value::number(q_binom(q_sub(q_add(n, k), Quantity::exact(XRat(1))), k));
  }
  if (f == "min" || f == "max") {
    std::vector<Quantity> qs;
    for (std::size_t k = 0; k < pos.size(); ++k) {
      Value v = arg(k);
      if (v.kind == Value::Kind::list)
        for (const auto& x : *v.list) qs.push_back(need_number(x, pos[k]->loc, f));
      else
        qs.push_back(need_number(v, pos[k]->loc, f));
    }
    if (qs.empty()) fail(e.loc, f + " of an empty list");
    Quantity q = qs[0];
    for (std::size_t k = 1; k < qs.size(); ++k) q = f == "min" ? q_min(q, qs[k]) : q_max(q, qs[k]);
    return Value::number(q);
  }
  if (f == "log3") return Value::number(q_log(num(0), Quantity::exact(XRat(3))));
  if (f == "log2") return Value::number(q_log(num(0), Quantity::exact(XRat(2))));
  if (f == "log") return Value::number(q_log(num(0), num(1)));
  if (f == "floor") return Value::number(q_floor(num(0)));
  if (f == "ceil") return Value::number(q_ceil(num(0)));
  if (f == "abs") return Value::number(q_abs(num(0)));
  fail(e.loc, "unknown function " + f);
}

}  // namespace netpoly::claims_detail
