// The `support` upper bound (support.hpp): a case worked by hand, the
// bidegree pass against the bidegrees of the exact expansion (a second
// method), the max-flow cover against a brute-force minimum over every cover,
// soundness against the exact rank on every preset family, and a separation
// rank made exact without expansion (black-box lower = support upper).
#include <catch2/catch.hpp>
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "netpoly/expand.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/seprank.hpp"
#include "analysis/engines/support.hpp"
#include "runtime/random.hpp"

using namespace netpoly;

namespace {

Fmpz binom(std::size_t k, std::size_t n) {  // monomials of degree k in n variables
  Fmpz c;
  if (n == 0) fmpz_set_ui(c.get(), k == 0 ? 1 : 0);
  else fmpz_bin_uiui(c.get(), k + n - 1, n - 1);
  return c;
}

// Independent minimum: every subset S of the A-degrees; T must then hold
// every B-degree joined to an A-degree outside S.
Fmpz brute_force_cover(const Bidegrees& bd, std::size_t nA, std::size_t nB) {
  std::vector<std::size_t> as;
  for (const auto& [a, b] : bd) as.push_back(a);
  std::sort(as.begin(), as.end());
  as.erase(std::unique(as.begin(), as.end()), as.end());
  REQUIRE(as.size() <= 16);
  std::optional<Fmpz> best;
  for (std::size_t mask = 0; mask < (std::size_t{1} << as.size()); ++mask) {
    Fmpz cost;
    std::set<std::size_t> T;
    for (std::size_t k = 0; k < as.size(); ++k)
      if (mask >> k & 1) fmpz_add(cost.get(), cost.get(), binom(as[k], nA).get());
    for (const auto& [a, b] : bd) {
      const auto k = static_cast<std::size_t>(std::lower_bound(as.begin(), as.end(), a) - as.begin());
      if (!(mask >> k & 1)) T.insert(b);
    }
    for (std::size_t b : T) fmpz_add(cost.get(), cost.get(), binom(b, nB).get());
    if (!best || fmpz_cmp(cost.get(), best->get()) < 0) best = cost;
  }
  return best.value_or(Fmpz());
}

std::size_t exact_sep(const Model& m, const Partition& P) {
  SepOptions o;
  o.methods = {Method::exact};
  auto r = analyse_network(m, {Entry{0, 0}}, {P}, o);
  REQUIRE(r[0].status == BracketStatus::exact);
  return *r[0].lower.value;
}

}  // namespace

TEST_CASE("support: one attention layer of width 1 on two tokens, by hand", "[support]") {
  // y_0 = o * sum_j (q x0)(k x_j)(v x_j) = oqkv (x0^3 + x0 x1^2): with
  // A = {x0}, B = {x1} the bidegrees are (3,0) and (1,2). Each side has one
  // variable, so every degree holds one monomial, and the two edges 3-0 and
  // 1-2 share no vertex: every cover needs two vertices, bound 2. The
  // coefficient matrix (rows x0^3, x0; columns 1, x1^2) is oqkv * I, rank 2.
  PresetOptions po;
  po.shape.arch = Arch::attention;
  po.shape.layers = 1;
  po.shape.width = 1;
  po.shape.tokens = 2;
  po.seed = 1;  // y0 = 18 x0^3 + 18 x0 x1^2 (netpoly expand)
  const Model m = make_preset(po);
  const auto P = parse_partition("half", 2, 1);
  const auto bd = support_bidegrees(m, Entry{0, 0}, P);
  CHECK(bd == Bidegrees{{1, 2}, {3, 0}});
  const auto sb = support_bound(bd, P);
  CHECK(fmpz_equal_si(sb.value.get(), 2));
  CHECK(sb.degree == 3);
  PolyRing R(2);
  const auto y = expand(R, m, {Entry{0, 0}})[0];
  REQUIRE(y.length() == 2);  // the weights are nonzero for this seed
  CHECK(exact_sep(m, P) == 2);
  // Seed 5 draws a zero weight: y0 = 0, no bidegrees, bound 0.
  po.seed = 5;
  const Model z = make_preset(po);
  CHECK(expand(R, z, {Entry{0, 0}})[0].length() == 0);
  CHECK(support_bidegrees(z, Entry{0, 0}, P).empty());
  CHECK(support_bound(support_bidegrees(z, Entry{0, 0}, P), P).value.is_zero());
}

TEST_CASE("support: the bidegree pass contains the expansion's bidegrees; the bound is sound", "[support]") {
  struct Case {
    const char* arch;
    std::size_t layers, width, heads, tokens, degree;
    bool residual;
  };
  const std::vector<Case> cases = {
      {"attention", 1, 4, 2, 4, 2, false}, {"attention", 2, 2, 1, 4, 2, false}, {"attention", 2, 2, 1, 2, 2, true},
      {"attention", 3, 2, 1, 2, 2, false}, {"mixer", 2, 2, 1, 4, 2, false},     {"mixer", 2, 2, 1, 2, 2, true},
      {"mlp", 2, 4, 1, 1, 2, false},       {"mlp", 2, 4, 1, 1, 2, true},        {"product", 2, 4, 1, 1, 3, false},
  };
  for (const auto& c : cases)
    for (std::uint64_t seed : {1, 2}) {
      const Model m = make_preset(
          preset_options({parse_arch(c.arch), c.layers, c.width, c.heads, c.tokens, c.degree, c.residual}, seed));
      const auto P = parse_partition("half", m.tokens, m.width);
      INFO(c.arch << " L=" << c.layers << " d=" << c.width << " N=" << c.tokens << (c.residual ? " residual" : "")
                  << " seed " << seed);
      const auto bd = support_bidegrees(m, Entry{0, 0}, P);
      PolyRing R(static_cast<slong>(m.num_inputs()));
      const auto y = expand(R, m, {Entry{0, 0}})[0];
      const auto actual = polynomial_bidegrees(y, P);
      CHECK(std::includes(bd.begin(), bd.end(), actual.begin(), actual.end()));
      const auto sb = support_bound(bd, P);
      const std::size_t nA = P.size_A(), nB = P.in_A.size() - nA;
      CHECK(fmpz_equal(sb.value.get(), brute_force_cover(bd, nA, nB).get()));
      CHECK(fmpz_cmp_ui(sb.value.get(), exact_sep(m, P)) >= 0);
    }
}

TEST_CASE("support: max-flow cover equals the brute-force minimum on random bidegree sets", "[support]") {
  SplitMix64 g(7);
  for (int trial = 0; trial < 200; ++trial) {
    Bidegrees bd;
    const std::size_t D = 1 + g.below(12), n = 1 + g.below(20);
    for (std::size_t k = 0; k < n; ++k) bd.emplace_back(g.below(D + 1), g.below(D + 1));
    std::sort(bd.begin(), bd.end());
    bd.erase(std::unique(bd.begin(), bd.end()), bd.end());
    const std::size_t nA = g.below(5), nB = 1 + g.below(5);  // nA = 0: only degree 0 has a monomial
    INFO("trial " << trial);
    CHECK(fmpz_equal(support_bound(bd, nA, nB).value.get(), brute_force_cover(bd, nA, nB).get()));
  }
  // Homogeneous of degree D (a matching): sum_a min(n_a, m_{D-a}).
  Bidegrees hom;
  for (std::size_t a = 0; a <= 27; ++a) hom.emplace_back(a, 27 - a);
  Fmpz want;
  for (std::size_t a = 0; a <= 27; ++a) {
    Fmpz x = binom(a, 8), y = binom(27 - a, 8);
    fmpz_add(want.get(), want.get(), fmpz_cmp(x.get(), y.get()) < 0 ? x.get() : y.get());
  }
  CHECK(fmpz_equal(support_bound(hom, 8, 8).value.get(), want.get()));
  CHECK(support_bound(Bidegrees{}, 3, 3).value.is_zero());
}

TEST_CASE("support: black-box lower bound meets the support bound, exact without expansion", "[support]") {
  // attention L=3, d=2, H=1, N=2 (degree 27): the bidegrees are (a, 27-a)
  // with a odd; with one token (2 variables) per side n_a = a + 1, so the
  // bound is sum over odd a of min(a + 1, 28 - a) = 105, and the exact rank
  // of the expansion is 105 as well.
  PresetOptions po{.shape = {.arch = Arch::attention, .layers = 3, .width = 2, .tokens = 2}};
  const Model m = make_preset(po);
  const auto P = parse_partition("half", 2, 2);
  SepOptions o;
  o.methods = {Method::support, Method::blackbox};
  auto r = analyse_network(m, {Entry{0, 0}}, {P}, o);
  REQUIRE(r[0].status == BracketStatus::exact);
  CHECK(r[0].upper.method == "support");
  CHECK(r[0].lower.method == "blackbox");
  CHECK(*r[0].lower.value == 105);
  CHECK(exact_sep(m, P) == 105);
  std::size_t hand = 0;
  for (std::size_t a = 1; a <= 27; a += 2) hand += std::min(a + 1, 28 - a);
  CHECK(hand == 105);
}

TEST_CASE("blackbox split by A-degree blocks agrees with the plain black-box and the exact rank", "[support]") {
  struct Case {
    const char* arch;
    std::size_t layers, width, tokens;
    bool residual;
  };
  // Attention and mixers without residuals split into several blocks; with
  // residuals the bidegree graph is connected and the split is not used.
  for (const Case& c : {Case{"attention", 2, 2, 4, false}, Case{"attention", 2, 3, 2, false},
                        Case{"mixer", 2, 2, 4, false}, Case{"attention", 2, 2, 2, true}, Case{"mlp", 2, 4, 1, false}}) {
    PresetOptions po{.shape = {.arch = parse_arch(c.arch), .layers = c.layers, .width = c.width, .tokens = c.tokens, .residual = c.residual}};
    const Model m = make_preset(po);
    const auto P = parse_partition("half", m.tokens, m.width);
    INFO(c.arch << " L=" << c.layers << " d=" << c.width << " N=" << c.tokens << (c.residual ? " residual" : ""));
    SepOptions o;
    o.methods = {Method::blackbox};
    const auto split = analyse_network(m, {Entry{0, 0}}, {P}, o);
    o.blackbox_split = false;
    const auto plain = analyse_network(m, {Entry{0, 0}}, {P}, o);
    const std::size_t ex = exact_sep(m, P);
    CHECK(*split[0].lower.value == ex);
    CHECK(*plain[0].lower.value == ex);
    CHECK(split[0].status == BracketStatus::probabilistic);
    const auto& d = split[0].runs[0].details;
    if (d.contains("split")) {
      std::size_t sum = 0;
      for (const auto& b : d["block_ranks"]) sum += b["rank"].get<std::size_t>();
      CHECK(sum == ex);
      CHECK(d["blocks"].get<std::size_t>() >= 2);
    }
    if (c.residual) CHECK(!d.contains("split"));
    if (std::string(c.arch) == "attention" && !c.residual) CHECK(d.contains("split"));
  }
}
