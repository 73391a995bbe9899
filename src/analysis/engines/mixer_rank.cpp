#include "analysis/engines/mixer_rank.hpp"

#include <cmath>

#include <algorithm>
#include <type_traits>
#include <variant>

#include "model/forward.hpp"

namespace netpoly::mixer_rank {

Fmpz sym_dim(std::size_t m, std::size_t k) {
  Fmpz c;
  if (k == 0) fmpz_one(c.get());
  else if (m > 0) fmpz_bin_uiui(c.get(), m + k - 1, k);
  return c;
}

namespace {

void bits_or(std::vector<std::uint64_t>& r, const std::vector<std::uint64_t>& x) {
  if (x.size() > r.size()) r.resize(x.size(), 0);
  for (std::size_t w = 0; w < x.size(); ++w) r[w] |= x[w];
}

std::size_t popcount(const std::vector<std::uint64_t>& x) {
  std::size_t n = 0;
  for (const std::uint64_t w : x) n += static_cast<std::size_t>(__builtin_popcountll(w));
  return n;
}

// The variables of one side as a bitset.
std::vector<std::uint64_t> side_bits(const std::vector<std::uint64_t>& vars, const std::vector<std::uint64_t>& maskA,
                                     bool a) {
  std::vector<std::uint64_t> r(vars.size());
  for (std::size_t w = 0; w < vars.size(); ++w) {
    const std::uint64_t m = w < maskA.size() ? maskA[w] : 0;
    r[w] = vars[w] & (a ? m : ~m);
  }
  return r;
}

bool block_less(const RankRing::Block& x, const RankRing::Block& y) {
  return x.a != y.a ? x.a < y.a : x.b < y.b;
}

void min_into(Fmpz& r, const Fmpz& cap) {
  if (fmpz_cmp(cap.get(), r.get()) < 0) r = cap;
}

}  // namespace

RankRing::RankRing(const Partition& P)
    : maskA((P.in_A.size() + 63) / 64, 0), next_name(std::make_shared<std::atomic<std::size_t>>(P.in_A.size())) {
  for (std::size_t v = 0; v < P.in_A.size(); ++v)
    if (P.in_A[v]) maskA[v / 64] |= std::uint64_t{1} << (v % 64);
}

// k new names (numbered after the input variables).
std::vector<std::uint64_t> RankRing::fresh(std::size_t k) const {
  const std::size_t first = next_name->fetch_add(k);
  if (first + k > max_names)
    throw TooCostly("its linear forms need more than " + std::to_string(max_names) + " names");
  std::vector<std::uint64_t> g((first + k + 63) / 64, 0);
  for (std::size_t n = first; n < first + k; ++n) g[n / 64] |= std::uint64_t{1} << (n % 64);
  return g;
}

RankRing::Elem RankRing::variable(std::size_t v) const {
  Elem e;
  const bool a = v / 64 < maskA.size() && ((maskA[v / 64] >> (v % 64)) & 1U);
  e.blocks.push_back({a ? 1u : 0u, a ? 0u : 1u, Fmpz(1)});
  (a ? e.mA : e.mB) = 1;
  e.vars.assign(v / 64 + 1, 0);
  e.vars[v / 64] = std::uint64_t{1} << (v % 64);
  (a ? e.gA : e.gB) = e.vars;  // the variable names itself
  return e;
}

RankRing::Elem RankRing::one() const {
  Elem e;
  e.blocks.push_back({0, 0, Fmpz(1)});
  return e;
}

// The caps of docs/math.md, repeated until none lowers anything: G_A is
// replaced by the A-variables f depends on, or, when f has A-degree at most
// 1 (L_A then spanned by the linear forms of its blocks at a = 1, at most
// sum_b r_1b of them), by that many fresh names, whichever is strictly
// smaller; r_ab <= dim Sym^a(L_A), dim Sym^b(L_B). (A span cap may follow a
// block cap: the order of the sums must not matter.)
void RankRing::normalize(Elem& e) const {
  for (bool changed = true; changed;) {
    changed = false;
    for (const bool side_a : {true, false}) {
      auto& g = side_a ? e.gA : e.gB;
      std::size_t m = popcount(g);
      auto own = side_bits(e.vars, maskA, side_a);
      if (const std::size_t n = popcount(own); n < m) {
        g = std::move(own);
        m = n;
        changed = true;
      }
      std::size_t top = 0;
      Fmpz linear;
      for (const Block& k : e.blocks) {
        const std::size_t deg = side_a ? k.a : k.b;
        top = std::max(top, deg);
        if (deg == 1) fmpz_add(linear.get(), linear.get(), k.r.get());
      }
      if (top <= 1 && fmpz_cmp_ui(linear.get(), m) < 0) {
        g = fresh(fmpz_get_ui(linear.get()));
        changed = true;
      }
    }
    const std::size_t mA = popcount(e.gA), mB = popcount(e.gB);
    for (Block& k : e.blocks)
      for (const Fmpz& cap : {sym_dim(mA, k.a), sym_dim(mB, k.b)})
        if (fmpz_cmp(cap.get(), k.r.get()) < 0) {
          k.r = cap;
          changed = true;
        }
    std::erase_if(e.blocks, [](const Block& k) { return k.r.is_zero(); });
  }
  e.mA = popcount(e.gA);
  e.mB = popcount(e.gB);
}

void RankRing::add(Elem& r, const Elem& x) const {
  if (x.empty()) return;
  std::vector<Block> merged;
  merged.reserve(r.blocks.size() + x.blocks.size());
  std::size_t i = 0, j = 0;
  while (i < r.blocks.size() || j < x.blocks.size()) {
    if (j == x.blocks.size() || (i < r.blocks.size() && block_less(r.blocks[i], x.blocks[j]))) {
      merged.push_back(std::move(r.blocks[i++]));
    } else if (i == r.blocks.size() || block_less(x.blocks[j], r.blocks[i])) {
      merged.push_back(x.blocks[j++]);
    } else {  // the same bidegree: ranks add
      merged.push_back(std::move(r.blocks[i++]));
      fmpz_add(merged.back().r.get(), merged.back().r.get(), x.blocks[j++].r.get());
    }
  }
  r.blocks = std::move(merged);
  bits_or(r.gA, x.gA);  // L_A(f + g) within L_A(f) + L_A(g): the names of both
  bits_or(r.gB, x.gB);
  bits_or(r.vars, x.vars);
  normalize(r);
}

RankRing::Elem RankRing::mul(const Elem& x, const Elem& y) const {
  if (x.empty() || y.empty()) return {};
  const bool square = &x == &y;
  auto top_b = [](const Elem& f) {
    std::size_t t = 0;
    for (const Block& k : f.blocks) t = std::max(t, k.b);
    return t;
  };
  if (x.blocks.back().a + y.blocks.back().a > max_degree || top_b(x) + top_b(y) > max_degree)
    throw TooCostly("degrees above " + std::to_string(max_degree) + " make the rank blocks too costly");
  work += static_cast<double>(x.blocks.size()) * static_cast<double>(y.blocks.size());
  if (work > max_work)
    throw TooCostly("the rank blocks need more than " + std::to_string(static_cast<long long>(max_work)) +
                    " block products");
  std::map<std::pair<std::size_t, std::size_t>, Fmpz> acc;
  Fmpz t;
  for (std::size_t i = 0; i < x.blocks.size(); ++i)
    for (std::size_t j = square ? i : 0; j < y.blocks.size(); ++j) {
      const Block &p = x.blocks[i], &q = y.blocks[j];
      if (square && i == j) {  // (sum of r separable terms)^2: r(r + 1)/2 products
        fmpz_add_ui(t.get(), p.r.get(), 1);
        fmpz_mul(t.get(), t.get(), p.r.get());
        fmpz_fdiv_q_2exp(t.get(), t.get(), 1);
      } else {  // f_p f_q (and f_q f_p, the same product, once)
        fmpz_mul(t.get(), p.r.get(), q.r.get());
      }
      Fmpz& into = acc[{p.a + q.a, p.b + q.b}];
      fmpz_add(into.get(), into.get(), t.get());
    }
  Elem r;
  for (auto& [ab, rank] : acc) r.blocks.push_back({ab.first, ab.second, std::move(rank)});
  r.gA = x.gA;  // L_A(f g) within L_A(f) + L_A(g)
  bits_or(r.gA, y.gA);
  r.gB = x.gB;
  bits_or(r.gB, y.gB);
  r.vars = x.vars;
  bits_or(r.vars, y.vars);
  normalize(r);
  return r;
}

namespace {

// Only mixing layers, permutations and sums of branches of them (NB eq. (3)).
template <class S>
bool mixer_layers(const std::vector<Layer<S>>& layers, std::string& why) {
  for (const auto& layer : layers) {
    const bool ok = std::visit(
        [&](const auto& op) {
          using Op = std::decay_t<decltype(op)>;
          if constexpr (std::is_same_v<Op, Branches<S>>) {
            for (const auto& b : op.branches)
              if (!mixer_layers(b, why)) return false;
            return true;
          } else {
            const std::string kind = op.kind;
            if (kind == "token_mix" || kind == "channel_mix" || kind == "permute") return true;
            why = "offered by default for mixers only (token_mix, channel_mix, permute layers and branches of "
                  "them), not " + kind + " layers";
            return false;
          }
        },
        layer.op);
    if (!ok) return false;
  }
  return true;
}

}  // namespace

bool is_mixer(const Model& m, std::string& why) {
  if (m.gaussian()) {
    why = "needs real weights";
    return false;
  }
  return mixer_layers(m.layers, why);
}

Bound mixer_bound(const Model& m, const Entry& e, const Partition& P, const Bidegrees* support_bd) {
  // Every element carries a bitset of the inputs, and a layer holds an
  // element per activation: refused before allocating when the inputs and
  // one layer's activations (at the input's or the output's width) would
  // need more than 256 MiB of them (a 1024 x 1024 input: about 256 GiB).
  const double n = static_cast<double>(m.num_inputs()), words = std::ceil(n / 64);
  const double layer = static_cast<double>(m.tokens) * static_cast<double>(std::max(m.width, m.output_width()));
  const double bytes = 8 * words * (n + layer);
  if (bytes > 256.0 * 1024 * 1024)
    throw RankRing::TooCostly("its variable sets would need about " + std::to_string(static_cast<long long>(bytes / (1 << 20))) +
                    " MiB (" + std::to_string(m.num_inputs()) + " inputs)");
  RankRing R(P);
  std::vector<RankRing::Elem> X(m.num_inputs());
  for (std::size_t v = 0; v < X.size(); ++v) X[v] = R.variable(v);
  const std::size_t w = m.output_width(), out = e.token * w + e.channel;
  Need need(m.tokens * w, 0);
  need[out] = 1;
  auto y = forward(R, prepare(R, m), std::move(X), need);
  Bound b;
  b.mA = y[out].mA;
  b.mB = y[out].mB;
  for (auto& k : y[out].blocks)
    if (!support_bd || std::binary_search(support_bd->begin(), support_bd->end(), std::pair{k.a, k.b}))
      b.blocks.push_back(std::move(k));
  // A row of A-degree a lies in Sym^a(L_A) and in the sum of the blocks' row
  // spaces at a; likewise the columns. Both are at most the monomials.
  for (const auto& k : b.blocks) {
    for (const bool side_a : {true, false}) {
      auto& into = side_a ? b.wA : b.wB;
      const std::size_t deg = side_a ? k.a : k.b;
      auto [it, fresh] = into.try_emplace(deg);
      fmpz_add(it->second.get(), it->second.get(), k.r.get());
    }
  }
  for (auto& [a, x] : b.wA) min_into(x, sym_dim(b.mA, a));
  for (auto& [bb, x] : b.wB) min_into(x, sym_dim(b.mB, bb));
  Bidegrees edges;
  for (const auto& k : b.blocks) edges.emplace_back(k.a, k.b);
  const EdgeWeight edge = [&](std::size_t a, std::size_t bb) {
    const auto it = std::lower_bound(b.blocks.begin(), b.blocks.end(), RankRing::Block{a, bb, Fmpz()}, block_less);
    return it->r;
  };
  b.cut = support_bound(edges, [&](std::size_t a) { return b.wA.at(a); }, [&](std::size_t bb) { return b.wB.at(bb); },
                        &edge);
  return b;
}

}  // namespace netpoly::mixer_rank
