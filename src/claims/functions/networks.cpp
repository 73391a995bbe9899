// Functions on networks: the presets and model files (generators), the
// transformations (permute, prefix, wide_sparse), and their shape.
#include <variant>

#include "function.hpp"
#include "netpoly/claim_transforms.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/table.hpp"

namespace netpoly::claims_detail {
namespace {

// activation = none: every mixing layer linear (inside sums of branches too).
void no_activation(std::vector<Layer<Fmpq>>& layers) {
  for (auto& l : layers) {
    if (auto* t = std::get_if<TokenMix<Fmpq>>(&l.op)) t->activation = Activation::none;
    if (auto* c = std::get_if<ChannelMix<Fmpq>>(&l.op)) c->activation = Activation::none;
    if (auto* b = std::get_if<Branches<Fmpq>>(&l.op))
      for (auto& br : b->branches) no_activation(br);
  }
}

std::vector<Value> gen_presets(Evaluator& ev, const Expr& e, const Env& env) {
  const std::string& f = e.str;
  // Each parameter a value or a list; every combination, the first written parameter outermost.
  struct Param {
    std::string name;
    std::vector<Value> values;
    SrcLoc loc;
  };
  std::vector<Param> ps;
  std::string activation = "square";
  // Claims about architectures measure generic weights unless told otherwise.
  WeightDist weights = WeightDist::generic;
  for (const auto& a : e.args) {
    if (a.name == "activation") {
      activation = a.value->str;
      continue;
    }
    if (a.name == "weights") {
      weights = parse_weight_dist(a.value->str);  // the parser checked the word
      continue;
    }
    Value v = ev.eval(*a.value, env);
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
    o.weights = weights;
    o.shape.arch = parse_arch(f);
    if (f == "product") o.shape.tokens = 1;
    std::string desc = f + "(";
    for (std::size_t k = 0; k < ps.size(); ++k) {
      const Value& v = ps[k].values[at[k]];
      const std::string& n = ps[k].name;
      const std::size_t x = need_size(v, ps[k].loc, n);
      if (n == "layers")
        o.shape.layers = x;
      else if (n == "width")
        o.shape.width = x;
      else if (n == "heads")
        o.shape.heads = x;
      else if (n == "tokens")
        o.shape.tokens = x;
      else if (n == "degree")
        o.shape.degree = x;
      else if (n == "seed")
        o.seed = x;
      else if (n == "residual")
        o.shape.residual = x != 0;
      else if (n == "permuted")
        o.permuted = x != 0;
      else if (n == "perm_sum")
        o.perm_sum = x;
      else if (n == "range")
        o.range = static_cast<std::int64_t>(x);
      desc += (k ? ", " : "") + n + " = " + (n == "residual" || n == "permuted" ? std::string(x ? "true" : "false") : std::to_string(x));
    }
    if (activation == "none") desc += std::string(ps.empty() ? "" : ", ") + "activation = none";
    if (weights != WeightDist::generic)
      desc += std::string(ps.empty() && activation != "none" ? "" : ", ") + "weights = " + weight_dist_name(weights);
    desc += ")";
    if (f == "attention" && (o.shape.heads == 0 || o.shape.width % o.shape.heads != 0)) {
      ++skipped;
    } else {
      Model m = make_preset(o);
      if (activation == "none") no_activation(m.layers);
      // NB eq. (3) is the mixer family (its bounds cover pi_o, pi_e, pi_r); a
      // ViP-style sum of permutations is not (NB Remark 3.2): no family bounds.
      NetFamily fam{.known = o.perm_sum == 1, .shape = o.shape};
      if (f != "attention") fam.shape.heads = 1;
      fam.shape.tokens = m.tokens;
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
    ev.notes.push_back(std::to_string(skipped) + " shape(s) of " + e.text + " skipped: heads must divide width");
  return out;
}

// equal_budget(arch = A, params = B, ...): the shapes `table --param-budget`
// measures, as networks: every depth up to max_depth with the widest width
// (at most max_width) whose parameter count fits B.
std::vector<Value> gen_equal_budget(Evaluator& ev, const Expr& e, const Env& env) {
  SweepSpec s;
  const Arg* arch = named(e, "arch");
  if (!arch) fail(e.loc, "equal_budget(...) needs arch = attention, mixer, mlp or product");
  s.archs = {parse_arch(arch->value->str)};
  s.weights = WeightDist::generic;
  std::uint64_t seed = 1;
  for (const auto& a : e.args) {
    if (a.name == "arch") continue;
    if (a.name == "weights") {
      s.weights = parse_weight_dist(a.value->str);
      continue;
    }
    const std::size_t x = need_size(ev.eval(*a.value, env), a.loc, a.name);
    if (a.name == "params") s.budgets = {std::to_string(x)};
    else if (a.name == "tokens") s.tokens = {x};
    else if (a.name == "heads") s.heads = {x};
    else if (a.name == "degree") s.degrees = {x};
    else if (a.name == "max_depth") s.max_depth = x;
    else if (a.name == "max_width") s.max_width = x;
    else if (a.name == "seed") seed = x;
  }
  if (s.budgets.empty() || s.budgets[0] == "0") fail(e.loc, "equal_budget(...) needs params = B, a positive count");
  if (s.max_depth < 1 || s.max_depth > 64 || s.max_width < 1 || s.max_width > 4096)
    fail(e.loc, "equal_budget(...): max_depth must be in [1, 64] and max_width in [1, 4096]");
  std::vector<Value> out;
  for (const auto& c : budget_configs(s)) {
    PresetOptions o = preset_options(c.params, seed, 0, s.weights);
    Model m = make_preset(o);
    NetFamily fam{.known = true, .shape = c.params};
    fam.shape.tokens = m.tokens;
    std::string desc = std::string(arch_name(c.params.arch)) + "(layers = " + std::to_string(c.params.layers) +
                       ", width = " + std::to_string(c.params.width);
    if (c.params.arch == Arch::attention) desc += ", heads = " + std::to_string(c.params.heads);
    if (c.params.arch != Arch::mlp) desc += ", tokens = " + std::to_string(c.params.tokens);
    if (c.params.arch == Arch::product) desc += ", degree = " + std::to_string(c.params.block_degree());
    desc += ", seed = " + std::to_string(seed) + (s.weights == WeightDist::generic ? "" : std::string(", weights = ") +
                                                     weight_dist_name(s.weights)) + ")";
    out.push_back(make_net(std::move(m), fam, desc));
  }
  if (out.empty()) ev.notes.push_back(e.text + ": no shape fits this budget");
  return out;
}

std::vector<Value> gen_model(Evaluator& ev, const Expr& e, const Env&) {
  const auto pos = positional(e);
  std::string path = pos[0]->value->str;
  if (!path.empty() && path[0] != '/') path = ev.claim().base_dir + "/" + path;
  Model m = read_model(path);
  NetFamily fam = infer_family(m);
  return {make_net(std::move(m), fam, "model(\"" + pos[0]->value->str + "\")")};
}

Value wide_sparse_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const auto& pos = a.pos;
  Value t = a.arg(0);
  const NetVal& n = need_net(t, pos[0]->loc, "wide_sparse(...)");
  WideSparseOptions o;
  o.column = word(named(e, "vec"), "row") == "column";
  o.block_diagonal = word(named(e, "blocks"), "kron") == "diagonal";
  if (const Arg* m = named(e, "merge")) o.merge = need_int(ev.eval(*m->value, env), m->loc, "merge") != 0;
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

Value permute_prefix(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const auto& pos = a.pos;
  const std::string& f = e.str;
  Value t = a.arg(0);
  const NetVal& n = need_net(t, pos[0]->loc, f + "(...)");
  Model m;
  std::string desc;
  if (f == "permute") {
    Value l = a.arg(1);
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
    const std::size_t k = need_size(a.arg(1), pos[1]->loc, "prefix length");
    try {
      m = prefix_network(n.model, k);
    } catch (const InputError& x) {
      fail(e.loc, x.what());
    }
    desc = "prefix(" + n.desc + ", " + std::to_string(k) + ")";
  }
  NetFamily fam = infer_family(m);
  if (n.fam.known && fam.known && fam.shape.arch == n.fam.shape.arch) {
    fam.shape.heads = n.fam.shape.heads;
    fam.shape.degree = n.fam.shape.degree;
  }
  return make_net(std::move(m), fam, desc);
}

Value net_measure(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const auto& pos = a.pos;
  const std::string& f = e.str;
  const Value t = a.arg(0);  // owns the network while n refers to it (layers(prefix(net, 2)))
  const NetVal& n = need_net(t, pos[0]->loc, f + "(...)");
  if (f == "layers") return make_int(static_cast<slong>(n.fam.shape.layers));
  if (f == "width") return make_int(static_cast<slong>(n.model.width));
  if (f == "heads") return make_int(static_cast<slong>(n.fam.shape.heads));
  if (f == "tokens") return make_int(static_cast<slong>(n.model.tokens));
  if (f == "params") return make_int(static_cast<slong>(parameter_count(n.model)));
  if (f == "nonzeros") return make_int(static_cast<slong>(nonzero_count(n.model)));
  if (f == "block_degree") return make_int(static_cast<slong>(n.fam.shape.degree));
  return make_int(n.fam.shape.residual ? 1 : 0);
}

}  // namespace

std::vector<FunctionInfo> network_constructors() {
  using P = FunctionInfo::Part;
  return {
      {"attention",
       0,
       0,
       P::none,
       {"layers", "width", "heads", "tokens", "degree", "seed", "residual", "range", "weights"},
       {"weights"},
       "self-attention presets (netpoly make attention; degree = k: AO's degree-k blocks); a range in any parameter "
       "gives every combination", nullptr, gen_presets},
      {"mixer",
       0,
       0,
       P::none,
       {"layers", "tokens", "width", "seed", "residual", "permuted", "perm_sum", "range", "activation", "weights"},
       {"activation", "weights"},
       "MLP-Mixer presets (NB Def 3.2); activation = square (default) or none; permuted = true: NB eq. (3) "
       "(random pi_o, pi_e before each layer, pi_r in each residual); perm_sum = s: ViP-style sums of s "
       "permutations (NB Remark 3.2)", nullptr, gen_presets},
      {"mlp",
       0,
       0,
       P::none,
       {"layers", "width", "seed", "residual", "permuted", "perm_sum", "range", "activation", "weights"},
       {"activation", "weights"},
       "MLP presets (NB Def 3.1), one token", nullptr, gen_presets},
      {"product",
       0,
       0,
       P::none,
       {"degree", "layers", "width", "tokens", "seed", "residual", "range", "weights"},
       {"weights"},
       "degree-k product block presets (AO)", nullptr, gen_presets},
      {"equal_budget",
       0,
       0,
       P::none,
       {"arch", "params", "tokens", "heads", "degree", "max_depth", "max_width", "seed", "weights"},
       {"arch", "weights"},
       "the shapes of one architecture within a parameter budget, every depth (table --param-budget)", nullptr,
       gen_equal_budget},
      {"model", 1, 1, P::none, {}, {}, "a model file, relative to the .np file", nullptr, gen_model},
  };
}

std::vector<FunctionInfo> network_transforms() {
  using P = FunctionInfo::Part;
  return {
      {"permute",
       2,
       2,
       P::none,
       {"at"},
       {"at"},
       "net with a permute layer appended (at = output, default) or prepended (at = input)", permute_prefix},
      {"prefix", 2, 2, P::none, {}, {}, "the network made of the first k layers", permute_prefix},
      {"wide_sparse",
       1,
       1,
       P::none,
       {"vec", "blocks", "merge"},
       {"vec", "blocks"},
       "WS: the one-token wide sparse MLP form of a mixer/MLP/product network", wide_sparse_fn},
  };
}

std::vector<FunctionInfo> network_measures() {
  using P = FunctionInfo::Part;
  return {
      {"layers", 1, 1, P::none, {}, {}, "depth of a network", net_measure},
      {"width", 1, 1, P::none, {}, {}, "input width d of a network", net_measure},
      {"heads", 1, 1, P::none, {}, {}, "heads of an attention network (1 otherwise)", net_measure},
      {"tokens", 1, 1, P::none, {}, {}, "tokens N of a network", net_measure},
      {"params", 1, 1, P::none, {}, {}, "number of weights of a network", net_measure},
      {"nonzeros", 1, 1, P::none, {}, {}, "number of non-zero weights of a network", net_measure},
      {"block_degree", 1, 1, P::none, {}, {}, "degree k of a product network's blocks", net_measure},
      {"residual", 1, 1, P::none, {}, {}, "1 if some layer has a residual connection, else 0", net_measure},
  };
}

}  // namespace netpoly::claims_detail
