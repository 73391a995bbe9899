// Evaluation of claim expressions: values, generators, quantities (claim_eval.hpp).
#include "claims/eval/claim_eval.hpp"
#include "netpoly/options.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <sstream>

#include "claims/eval/claim_bounds.hpp"
#include "claims/eval/claim_transforms.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/rings.hpp"
#include "claims/eval/work_limits.hpp"

namespace netpoly::claims_detail {

[[noreturn]] void fail(const SrcLoc& at, const std::string& msg) { throw InputError(at.str() + ": " + msg); }

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

Value make_list(std::vector<Value> items) {
  Value v;
  v.kind = Value::Kind::list;
  v.list = std::make_shared<std::vector<Value>>(std::move(items));
  return v;
}

Value make_poly(std::shared_ptr<const PolyVal> p) {
  Value v;
  v.kind = Value::Kind::poly;
  v.poly = std::move(p);
  return v;
}

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

Entry default_output(const Model& m) { return m.output ? *m.output : Entry{0, 0}; }

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
      std::string s = v.poly->im ? gauss_poly_text(*v.poly, max_chars)
                                 : poly_text(v.poly->p, v.poly->width, v.poly->flat, max_chars);
      std::string head = v.desc.empty() ? "" : v.desc + " = ";
      return head + s + " (" + std::to_string(monomials_of(*v.poly).length()) + " terms, " +
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
  // check --budget and --max-terms: options given for every sep of the run
  set_option(sep_, *find_option("budget"), o.budget, Spelling::cli);
  set_option(sep_, *find_option("max_terms"), o.max_terms, Spelling::cli);
}

double Evaluator::claim_left() const { return opts_.budget - claim_spent_; }

double Evaluator::claim_wall_left() const {
  // The claim's wall-clock safety net (work_limits.hpp): kSafetyFactor x --budget over the whole claim.
  return kSafetyFactor * opts_.budget -
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
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
    drawn_weights(at, "a network used as a polynomial (its expansion)");
    const Entry e = v.kind == Value::Kind::output ? v.entry : default_output(v.net->model);
    std::shared_ptr<PolyVal> p;
    if (v.net->model.gaussian()) {  // over Q(i): not cached
      check_expansion_size(v.net->model, sep_.max_terms);
      PolyRing R(static_cast<slong>(v.net->model.num_inputs()));
      R.ctx = ctx(v.net->model.num_inputs());
      auto y = expand_gauss(R, v.net->model, {e})[0];
      p = std::make_shared<PolyVal>(std::move(y.re));
      p->im = std::move(y.im);
    } else {
      p = std::make_shared<PolyVal>(expansion(*this, *v.net, e, sep_.max_terms));
    }
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
Value Evaluator::eval_node(const Expr& e, const Env& env) {
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
      if (e.str == "I") {  // the imaginary unit: the constant polynomial i over Q(i)
        auto p = std::make_shared<PolyVal>(FmpqMpoly(ctx(1)));
        p->im = FmpqMpoly(ctx(1));
        fmpq_mpoly_one(p->im->get(), p->im->c());
        return make_poly(p);
      }
      fail(e.loc, "unbound name '" + e.str + "'");
    }
    case Expr::Kind::neg: {
      Value a = eval(*e.kids[0], env);
      if (a.kind == Value::Kind::number) {
        Value n = Value::number(q_neg(a.num));
        n.wdeg = a.wdeg;
        return n;
      }
      return binary(e, make_int(0), a);  // 0 - a
    }
    case Expr::Kind::binary:
      return binary(e, eval(*e.kids[0], env), eval(*e.kids[1], env));
    case Expr::Kind::call: {
      Value v = call(e, env);
      if (trace_ && v.kind == Value::Kind::number) {
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
    case Expr::Kind::comprehension: {
      Value src = eval(*e.kids[1], env);
      if (src.kind != Value::Kind::list)
        fail(e.kids[1]->loc, "expected a list after 'in', got a " + std::string(kind_name(src.kind)));
      std::vector<Value> items;
      Env inner = env;
      inner.emplace_back(e.str, Value{});
      for (const auto& x : *src.list) {
        inner.back().second = x;
        items.push_back(eval(*e.kids[0], inner));
      }
      return make_list(std::move(items));
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
  if (e.kind == Expr::Kind::call)
    if (const FunctionInfo* f = function_of(e); f->generate) return f->generate(*this, e, env);
  Value v = eval(e, env);
  if (v.kind == Value::Kind::list) return *v.list;
  return {v};
}

// ------------------------------------------------------------------ arithmetic
Value Evaluator::arith(char op, const Value& a, const Value& b, const SrcLoc& at) {
  Expr e;
  e.kind = Expr::Kind::binary;
  e.op = op;
  e.loc = at;
  return binary(e, a, b);
}

Value Evaluator::binary_node(const Expr& e, const Value& a, const Value& b) {
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
  if (gaussian_value(a) || gaussian_value(b)) return gauss_binary(*this, e, a, b);  // over Q(i)
  if (op == '^') {
    if (b.kind != Value::Kind::number) fail(e.loc, "a polynomial power needs an exact integer exponent");
    const slong k = need_int(b, e.kids.size() > 1 ? e.kids[1]->loc : e.loc, "the exponent");
    if (k < 0) fail(e.loc, "a polynomial power needs an exponent >= 0");
    auto pa = as_poly(a, e.loc);
    auto r = std::make_shared<PolyVal>(FmpqMpoly(pa->p.ctx()));
    r->tokens = pa->tokens;
    r->width = pa->width;
    r->flat = pa->flat;
    check_power_size(*this, e, pa->p, static_cast<ulong>(k));
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
  auto C = ctx(n);
  auto lift = [&](const std::shared_ptr<const PolyVal>& p) { return lift_to(p->p, C); };
  auto constant = [&](const Quantity& q) {
    if (!q.is_exact()) fail(e.loc, "only an exact number can be combined with a polynomial, got " + describe(q));
    FmpqMpoly r(C);
    fmpq_mpoly_set_fmpq(r.get(), q.cert.lo.value().get(), C->get());
    return r;
  };
  FmpqMpoly x = pa ? lift(pa) : constant(a.num);
  auto out = std::make_shared<PolyVal>(FmpqMpoly(C));
  result_shape(*out, pa, pb, n);
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
  std::function<RelOutcome(const Value&, Rel, const Value&, const Expr&)> relate;
  relate = [&](const Value& a, Rel r, const Value& b, const Expr& at) -> RelOutcome {
    if (a.kind == Value::Kind::number && b.kind == Value::Kind::number) return compare(a.num, r, b.num);
    if (a.kind == Value::Kind::list && b.kind == Value::Kind::list) {
      // Lists (and matrices, lists of rows) of one length: == when every entry
      // is equal (the worst verdict of the entries), != when some entry
      // differs (the best verdict of the entries' !=). Each entry keeps its
      // labels: a != is never the flip of a probabilistic ==.
      if (r != Rel::eq && r != Rel::ne) fail(at.loc, "lists can only be compared with == and !=");
      if (a.list->size() != b.list->size())
        return {r == Rel::ne ? Verdict::pass : Verdict::fail,
                "lengths " + std::to_string(a.list->size()) + " and " + std::to_string(b.list->size())};
      const bool all = r == Rel::eq;
      RelOutcome out{all ? Verdict::pass : Verdict::fail, ""};
      for (std::size_t k = 0; k < a.list->size(); ++k) {
        const RelOutcome o = relate((*a.list)[k], r, (*b.list)[k], at);
        if (all)
          outcome_and(out, o);
        else
          outcome_or(out, o);
        if (o.verdict != Verdict::pass && o.verdict != Verdict::fail)
          out.note += (out.note.empty() ? "" : "; ") + ("entry " + std::to_string(k) + (o.note.empty() ? "" : ": " + o.note));
        if (out.verdict == (all ? Verdict::fail : Verdict::pass)) {  // decided
          out.note = o.note.empty() ? "" : "entry " + std::to_string(k) + ": " + o.note;
          break;
        }
      }
      return out;
    }
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
      drawn_weights(at.loc, "comparing networks");
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
      equal = d.poly->p.is_zero() && (!d.poly->im || d.poly->im->is_zero());
      if (!equal)
        note = "difference " + (d.poly->im ? gauss_poly_text(*d.poly, 120)
                                           : poly_text(d.poly->p, d.poly->width, d.poly->flat, 120));
    }
    const bool holds = (r == Rel::eq) == equal;
    return {holds ? Verdict::pass : Verdict::fail, note};
  };
  if (c.rels.empty()) {
    const Value& v = vals[0];
    RelOutcome o = v.kind == Value::Kind::number ? compare(v.num, Rel::ne, Quantity::exact(XRat(0)))
                                                 : relate(v, Rel::ne, make_int(0), *c.terms[0]);
    if (view_ == View::draw) note_draw_relation(v, Rel::ne, make_int(0), o.verdict, c.terms[0]->text);
    return o;
  }
  RelOutcome out{Verdict::pass, ""};
  for (std::size_t k = 0; k < c.rels.size(); ++k) {
    RelOutcome o = relate(vals[k], c.rels[k], vals[k + 1], *c.terms[k + 1]);
    if (view_ == View::draw)
      note_draw_relation(vals[k], c.rels[k], vals[k + 1], o.verdict,
                         c.terms[k]->text + " " + rel_name(c.rels[k]) + " " + c.terms[k + 1]->text);
    outcome_and(out, o);
    if (!o.note.empty()) out.note += (out.note.empty() ? "" : "; ") + o.note;
  }
  return out;
}

}  // namespace netpoly::claims_detail
