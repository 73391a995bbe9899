// Lists and arithmetic on quantities (exact, or enclosures).
#include "function.hpp"

namespace netpoly::claims_detail {
namespace {

Value len_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const auto& pos = a.pos;
  Value l = a.arg(0);
  if (l.kind != Value::Kind::list) fail(pos[0]->loc, "len: expected a list");
  return make_int(static_cast<slong>(l.list->size()));
}

// binom / multiset: a refused argument (a non-integer n) names the call.
Value binom_like(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const Quantity n = a.num(0), k = a.num(1);
  try {
    return Value::number(e.str == "binom" ? q_binom(n, k) : q_multiset(n, k));
  } catch (const InputError& x) {
    fail(e.loc, x.what());
  }
}

Value min_max(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const auto& pos = a.pos;
  const std::string& f = e.str;
  std::vector<Quantity> qs;
  for (std::size_t k = 0; k < pos.size(); ++k) {
    Value v = a.arg(k);
    if (v.kind == Value::Kind::list)
      for (const auto& x : *v.list) qs.push_back(need_number(x, pos[k]->loc, f));
    else
      qs.push_back(need_number(v, pos[k]->loc, f));
  }
  if (qs.empty()) fail(e.loc, f + " of an empty list");
  return Value::number(extreme_of(qs, f == "max"));
}

Value log3_fn(Evaluator& ev, const Expr& e, const Env& env) {
  return Value::number(q_log(CallArgs(ev, e, env).num(0), Quantity::exact(XRat(3))));
}

Value log2_fn(Evaluator& ev, const Expr& e, const Env& env) {
  return Value::number(q_log(CallArgs(ev, e, env).num(0), Quantity::exact(XRat(2))));
}

Value log_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  return Value::number(q_log(a.num(0), a.num(1)));
}

Value floor_fn(Evaluator& ev, const Expr& e, const Env& env) {
  return Value::number(q_floor(CallArgs(ev, e, env).num(0)));
}

Value ceil_fn(Evaluator& ev, const Expr& e, const Env& env) {
  return Value::number(q_ceil(CallArgs(ev, e, env).num(0)));
}

Value abs_fn(Evaluator& ev, const Expr& e, const Env& env) {
  return Value::number(q_abs(CallArgs(ev, e, env).num(0)));
}

}  // namespace

std::vector<FunctionInfo> arithmetic_functions() {
  using P = FunctionInfo::Part;
  return {
      {"len", 1, 1, P::none, {}, {}, "length of a list", len_fn},
      {"binom", 2, 2, P::none, {}, {}, "binomial coefficient", binom_like},
      {"multiset", 2, 2, P::none, {}, {}, "((n k)) = binom(n + k - 1, k)", binom_like},
      {"min", 1, -1, P::none, {}, {}, "minimum", min_max},
      {"max", 1, -1, P::none, {}, {}, "maximum", min_max},
      {"log3", 1, 1, P::none, {}, {}, "base-3 logarithm (exact for powers of 3, else an enclosure)", log3_fn},
      {"log2", 1, 1, P::none, {}, {}, "base-2 logarithm", log2_fn},
      {"log", 2, 2, P::none, {}, {}, "log(x, b): base-b logarithm", log_fn},
      {"floor", 1, 1, P::none, {}, {}, "floor", floor_fn},
      {"ceil", 1, 1, P::none, {}, {}, "ceiling", ceil_fn},
      {"abs", 1, 1, P::none, {}, {}, "absolute value", abs_fn},
  };
}

}  // namespace netpoly::claims_detail
