// Generators of partitions and output entries, and shuffle.
#include "function.hpp"
#include "netpoly/expand.hpp"
#include "runtime/random.hpp"

namespace netpoly::claims_detail {
namespace {

std::vector<Value> gen_partitions(Evaluator& ev, const Expr& e, const Env& env) {
  const auto pos = positional(e);
  const std::string& f = e.str;
  Value target = ev.eval(*pos[0]->value, env);
  std::size_t tokens = 0, width = 0;
  bool flat = true;
  shape_of(target, tokens, width, flat, pos[0]->loc);
  std::vector<Partition> parts;
  if (f == "balanced" || f == "balanced_entries") {
    try {
      parts = f == "balanced" ? all_balanced(tokens, width) : all_balanced_entries(tokens, width);
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

std::vector<Value> gen_outputs(Evaluator& ev, const Expr& e, const Env& env) {
  const auto pos = positional(e);
  Value target = ev.eval(*pos[0]->value, env);
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

Value shuffle_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const auto& pos = a.pos;
  const std::size_t n = need_size(a.arg(0), pos[0]->loc, "shuffle(n)");
  std::uint64_t seed = 1;
  if (const Arg* s = named(e, "seed"))
    seed = static_cast<std::uint64_t>(need_int(ev.eval(*s->value, env), s->loc, "seed"));
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

}  // namespace

std::vector<FunctionInfo> partition_functions() {
  using P = FunctionInfo::Part;
  return {
      {"balanced", 1, 1, P::none, {}, {}, "every balanced partition (each unordered pair once)", nullptr, gen_partitions},
      {"balanced_entries", 1, 1, P::none, {}, {},
       "every balanced partition of the N x d entries, not only of the tokens (each unordered pair once; at most 24 "
       "entries)",
       nullptr, gen_partitions},
      {"splits", 1, 1, P::none, {}, {}, "every partition into two non-empty sides (each unordered pair once)", nullptr, gen_partitions},
      {"outputs", 1, 1, P::none, {}, {}, "every output entry net[i, c] of a network", nullptr, gen_outputs},
      {"shuffle", 1, 1, P::none, {"seed"}, {}, "a seeded random permutation of 0..n-1 (a list)", shuffle_fn},
  };
}

}  // namespace netpoly::claims_detail
