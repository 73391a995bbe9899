// Functions on networks: the presets and model files (generators), the
// transformations (permute, prefix, wide_sparse), and their shape.
#include <type_traits>
#include <variant>

#include "claims/eval/work_limits.hpp"
#include "function.hpp"
#include "claims/eval/claim_transforms.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/jacobian.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/table.hpp"
#include "runtime/number_text.hpp"

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
  // Every combination is a network: at most 10^5 of them, made within --budget.
  double combinations = 1;
  for (const auto& p : ps) combinations *= static_cast<double>(p.values.size());
  if (combinations > 1e5)
    limit_reached(e, fmt_g(combinations) + " combinations of the parameters (at most 10^5)",
                  "no flag raises it: give fewer values");
  WorkClock clock(ev, e);
  std::vector<Value> out;
  std::size_t skipped = 0;
  std::vector<std::size_t> at(ps.size(), 0);
  for (bool done = false; !done;) {
    clock.check();
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
      else if (n == "expansion")
        o.expansion = x;
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
      // ViP-style sum of permutations is not (NB Remark 3.2), nor are WS's
      // two-layer mixing blocks (expansion = γ): no family bounds.
      NetFamily fam{.known = o.perm_sum == 1 && o.expansion == 0, .shape = o.shape};
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
    if (a.name == "param_count") {
      s.param_count = parse_param_count(a.value->str, "param_count");  // the parser checked the word
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
  std::vector<SweepConfig> configs;
  try {
    configs = budget_configs(s);
  } catch (const InputError& x) {
    fail(e.loc, std::string("equal_budget(...): ") + x.what());
  }
  for (const auto& c : configs) {
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
    if (s.param_count != ParamCount::netpoly)
      desc += " (" + parameter_count_text(c.params, s.param_count) + " parameters, " +
              param_count_name(s.param_count) + ")";
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

// WS's dense Kronecker factors, estimated before they are built: a token
// mix's r x c matrix becomes (r d) x (c d), a channel mix's (r N) x (c N)
// (N tokens, d the width at that layer); each entry a rational (about 48
// bytes with its matrix, measured) made in about 5e-7 s (measured: a 2-layer
// 64 x 64 mixer, 3.3e7 entries, 22 s and 1.7 GB). Held to the memory limit
// and to the call's --budget.
void check_wide_sparse_size(const Evaluator& ev, const Expr& e, const Model& m) {
  const double N = static_cast<double>(m.tokens);
  double d = static_cast<double>(m.width), entries = 0;
  auto add = [&](std::size_t r, std::size_t c, double k) { entries += static_cast<double>(r) * static_cast<double>(c) * k * k; };
  for (const auto& L : m.layers) {
    if (const auto* t = std::get_if<TokenMix<Fmpq>>(&L.op)) {
      add(t->W.rows, t->W.cols, d);
      if (t->W2) add(t->W2->rows, t->W2->cols, d);
    } else if (const auto* c = std::get_if<ChannelMix<Fmpq>>(&L.op)) {
      add(c->W.rows, c->W.cols, N);
      if (c->W2) add(c->W2->rows, c->W2->cols, N);
      d = static_cast<double>(L.out_width(static_cast<std::size_t>(d)));
    } else if (const auto* p = std::get_if<Product<Fmpq>>(&L.op)) {
      for (const auto& W : p->Ws) add(W.rows, W.cols, N);
      d = static_cast<double>(L.out_width(static_cast<std::size_t>(d)));
    }
  }
  const std::string what = "wide_sparse's Kronecker factors (" + fmt_g(entries) + " rational entries)";
  check_work_memory(e, entries * 48, what);
  const WorkClock clock(ev, e);
  const double secs = entries * 5e-7;  // nominal: an estimate against the call's nominal budget
  if (secs > clock.nominal_left())
    limit_reached(e, "beyond " + budget_text(ev.defaults()) + ", " + what + " (estimated at " + fmt_g(secs) + " s)",
                  "raise --budget");
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
  check_wide_sparse_size(ev, e, n.model);
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
  if (f == "params") {
    const Arg* pc = named(e, "param_count");
    if (!pc) return make_int(static_cast<slong>(parameter_count(n.model)));
    // Under a counting model: the count of the network's shape (a preset's architecture).
    if (!n.fam.known) fail(e.loc, "params(net, param_count = ...): the network's architecture is not known");
    try {
      Fmpz c = parameter_count(n.fam.shape, parse_param_count(pc->value->str, "param_count"));
      return Value::number(Quantity::exact(XRat(c)));
    } catch (const InputError& x) {
      fail(e.loc, x.what());
    }
  }
  if (f == "nonzeros") ev.drawn_weights(e.loc, "nonzeros(...)");
  if (f == "nonzeros") return make_int(static_cast<slong>(nonzero_count(n.model)));
  if (f == "block_degree") return make_int(static_cast<slong>(n.fam.shape.degree));
  return make_int(n.fam.shape.residual ? 1 : 0);
}

// The named matrix of one layer (1-based layer and head, as the papers write
// W^{Q,l,h}), or a message saying what the layer has: the layer kind names
// its matrices (for_each_named_matrix, netpoly/layers/).
const Mat<Fmpq>* layer_matrix(const Layer<Fmpq>& L, const std::string& name, std::size_t head, bool head_given,
                              std::string& why) {
  const Mat<Fmpq>* out = nullptr;
  std::size_t heads = 0;
  std::string names, kind;
  std::visit(
      [&](const auto& op) {
        kind = std::decay_t<decltype(op)>::kind;
        op.for_each_named_matrix([&](const std::string& n, std::size_t h, const Mat<Fmpq>& M) {
          heads = std::max(heads, h);
          if (h <= 1) names += (names.empty() ? "" : ", ") + n;
          // W1 is W (a mixing layer's first matrix, as NB and WS write it).
          if ((n == name || (n == "W" && name == "W1")) && (h == 0 || h == head)) out = &M;
        });
      },
      L.op);
  const std::string article = kind.find_first_of("aeiou") == 0 ? "an " : "a ";
  if (heads > 1 && !head_given) {
    why = article + kind + " layer of " + std::to_string(heads) + " heads: give the head (1.." + std::to_string(heads) + ")";
    return nullptr;
  }
  if (heads > 0 && (head < 1 || head > heads)) {
    why = "head " + std::to_string(head) + " out of range (1.." + std::to_string(heads) + ")";
    return nullptr;
  }
  if (!out)
    why = names.empty() ? article + kind + " layer has no weight matrix"
                        : article + kind + (heads > 0 ? " head has " : " layer has ") + names;
  return out;
}

// weights(net, layer, name [, head]): a weight matrix as a matrix value (exact
// numbers; over Q(i) the entries with an imaginary part are constants re + I im).
Value weights_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const Value t = a.arg(0);
  const NetVal& n = need_net(t, a.pos[0]->loc, "weights(...)");
  ev.drawn_weights(e.loc, "weights(...)");
  const std::size_t l = need_size(a.arg(1), a.pos[1]->loc, "the layer of weights(net, layer, name)");
  const Value nv = a.arg(2);
  if (nv.kind != Value::Kind::string) fail(a.pos[2]->loc, "weights(net, layer, name): the name is a string (\"Q\")");
  const bool head_given = a.pos.size() > 3;
  const std::size_t h = head_given ? need_size(a.arg(3), a.pos[3]->loc, "the head of weights(...)") : 1;
  const auto& layers = n.model.layers;
  if (l < 1 || l > layers.size())
    fail(a.pos[1]->loc, "weights: layer " + std::to_string(l) + " out of range (1.." + std::to_string(layers.size()) +
                            ", the model's layers counted from 1)");
  std::string why;
  const Mat<Fmpq>* W = layer_matrix(layers[l - 1], nv.str, h, head_given, why);
  if (!W) fail(e.loc, "weights: no matrix \"" + nv.str + "\" in layer " + std::to_string(l) + ": " + why);
  const Mat<Fmpq>* Wi = n.model.gaussian() ? layer_matrix(n.model.imag[l - 1], nv.str, h, head_given, why) : nullptr;
  Matrix M(W->rows);
  for (std::size_t i = 0; i < W->rows; ++i)
    for (std::size_t j = 0; j < W->cols; ++j) {
      Value x = Value::number(Quantity::exact(XRat((*W)(i, j))));
      if (Wi && !(*Wi)(i, j).is_zero()) {
        auto p = std::make_shared<PolyVal>(FmpqMpoly(ev.ctx(1)));
        fmpq_mpoly_set_fmpq(p->p.get(), (*W)(i, j).get(), p->p.c());
        p->im = FmpqMpoly(ev.ctx(1));
        fmpq_mpoly_set_fmpq(p->im->get(), (*Wi)(i, j).get(), p->p.c());
        x = make_poly(p);
      }
      M[i].push_back(std::move(x));
    }
  return matrix_value(M);
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
       {"layers", "tokens", "width", "seed", "residual", "permuted", "perm_sum", "range", "activation", "weights",
        "expansion"},
       {"activation", "weights"},
       "MLP-Mixer presets (NB Def 3.2); activation = square (default) or none; permuted = true: NB eq. (3) "
       "(random pi_o, pi_e before each layer, pi_r in each residual); perm_sum = s: ViP-style sums of s "
       "permutations (NB Remark 3.2); expansion = γ: WS's two-layer mixing blocks W2 sigma2(W X) of hidden "
       "widths γ N and γ d", nullptr, gen_presets},
      {"mlp",
       0,
       0,
       P::none,
       {"layers", "width", "seed", "residual", "permuted", "perm_sum", "range", "activation", "weights", "expansion"},
       {"activation", "weights"},
       "MLP presets (NB Def 3.1), one token; expansion = γ: two-layer blocks of hidden width γ d", nullptr,
       gen_presets},
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
       {"arch", "params", "tokens", "heads", "degree", "max_depth", "max_width", "seed", "weights", "param_count"},
       {"arch", "weights", "param_count"},
       "the shapes of one architecture within a parameter budget, every depth (table --param-budget); param_count = "
       "netpoly (default), ao_eq4, ao_eq2 or lv: how the budget counts a shape (table --param-count)", nullptr,
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

// jacobian_rank(net) / jacobian_rank(net[i, c]): the dimension of the
// network's function family (netpoly/jacobian.hpp), certified [rank, upper],
// = rank with its failure probability.
static Value jacobian_fn(Evaluator& ev, const Expr& e, const Env& env) {
  CallArgs a(ev, e, env);
  const Value v = a.arg(0);
  const NetVal& n = need_net(v, a.pos[0]->loc, "jacobian_rank(...)");
  // all = true: every output entry together (the network's whole function)
  const Arg* all = named(e, "all");
  const bool every = all && need_int(ev.eval(*all->value, env), all->value->loc, "all = true or false") != 0;
  if (every && v.kind == Value::Kind::output) fail(e.loc, "jacobian_rank(net[i, c], all = ...): give the network");
  const std::vector<Entry> outs = v.kind == Value::Kind::output ? std::vector<Entry>{v.entry}
                                  : every ? resolve_outputs(n.model, std::nullopt, true)
                                          : std::vector<Entry>{default_output(n.model)};
  JacobianResult r;
  try {
    r = jacobian_rank(n.model, outs);
  } catch (const InputError& x) {
    fail(e.loc, x.what());
  }
  if (r.rank >= r.upper) return make_int(static_cast<slong>(r.rank));
  Quantity q = Quantity::bracket(XRat(static_cast<slong>(r.rank)), XRat(static_cast<slong>(r.upper)));
  q.trust = Trust::probabilistic;
  q.likely = Interval::point(XRat(static_cast<slong>(r.rank)));
  q.failure_probability = r.failure_probability;
  ev.record(e, "probabilistic");
  return Value::number(q);
}

std::vector<FunctionInfo> network_measures() {
  using P = FunctionInfo::Part;
  return {
      {"layers", 1, 1, P::none, {}, {}, "depth of a network", net_measure},
      {"width", 1, 1, P::none, {}, {}, "input width d of a network", net_measure},
      {"heads", 1, 1, P::none, {}, {}, "heads of an attention network (1 otherwise)", net_measure},
      {"tokens", 1, 1, P::none, {}, {}, "tokens N of a network", net_measure},
      {"params", 1, 1, P::none, {"param_count"}, {"param_count"},
       "number of weights of a network; param_count = ao_eq4, ao_eq2, lv: its shape's count under that model",
       net_measure},
      {"nonzeros", 1, 1, P::none, {}, {}, "number of non-zero weights of a network", net_measure},
      {"block_degree", 1, 1, P::none, {}, {}, "degree k of a product network's blocks", net_measure},
      {"residual", 1, 1, P::none, {}, {}, "1 if some layer has a residual connection, else 0", net_measure},
      {"jacobian_rank", 1, 1, P::none, {"all"}, {},
       "dimension of a network's (or output's) function family: the rank of d(coefficients)/d(weights) mod a random "
       "prime, certified >= it, = it with the probability printed; all = true: every output together",
       jacobian_fn},
      {"weights", 3, 4, P::none, {}, {},
       "weights(net, layer, name [, head]): a weight matrix (\"Q\", \"K\", \"V\", \"O\" of attention head h; \"W\", "
       "\"W2\" of a mixing layer; \"W1\"..\"Wk\" of a product block), layers and heads counted from 1",
       weights_fn},
  };
}

}  // namespace netpoly::claims_detail
