// The gram bound (src/analysis/engines/gram.hpp, docs/math.md §4.2): its counts
// against the dimensions of explicit spans (an evaluator written here), its
// soundness on random small models of every layer kind (rational and
// Gaussian weights, residuals, permutations, branches: the bound is never
// below the certified exact rank, and it declines the networks it does not
// cover), the black-box's block caps it feeds, and known answers where it is
// tight.
#include <catch2/catch.hpp>
#include <flint/nmod_mat.h>

#include <set>

#include "analysis/engines/gram.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/presets.hpp"
#include "runtime/random.hpp"
#include "netpoly/seprank.hpp"
#include "random_models.hpp"

using namespace netpoly;
using json = nlohmann::json;

namespace {

constexpr ulong kP = 1073741789;  // a prime below 2^30

// Monomials of degree k in s coordinates, as sorted index tuples.
std::vector<std::vector<std::size_t>> all_monomials(std::size_t s, std::size_t k) {
  std::vector<std::vector<std::size_t>> out{{}};
  for (std::size_t step = 0; step < k; ++step) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto& m : out)
      for (std::size_t v = m.empty() ? 0 : m.back(); v < s; ++v) {
        auto x = m;
        x.push_back(v);
        next.push_back(std::move(x));
      }
    out = std::move(next);
  }
  return out;
}

// rank mod kP of the span of { f(X) : f } over random points X (n x d): a
// lower bound on the span's dimension over Q (and equal for enough points,
// but for a vanishing minor).
std::size_t span_rank(std::size_t n, std::size_t d, std::size_t count,
                      const std::function<ulong(std::size_t, const std::vector<ulong>&)>& f, std::uint64_t seed) {
  SplitMix64 g(seed);
  const std::size_t pts = count + 8;
  nmod_mat_t M;
  nmod_mat_init(M, static_cast<slong>(count), static_cast<slong>(pts), kP);
  for (std::size_t c = 0; c < pts; ++c) {
    std::vector<ulong> X(n * d);
    for (auto& x : X) x = g.below(kP);
    for (std::size_t r = 0; r < count; ++r) nmod_mat_entry(M, static_cast<slong>(r), static_cast<slong>(c)) = f(r, X);
  }
  const auto rank = static_cast<std::size_t>(nmod_mat_rank(M));
  nmod_mat_clear(M);
  return rank;
}

// U_ab(X) = sum_q X[q][a] X[q][b] mod kP, for the coordinates a <= b.
ulong gram_entry(const std::vector<ulong>& X, std::size_t n, std::size_t d, std::size_t a, std::size_t b) {
  ulong acc = 0;
  for (std::size_t q = 0; q < n; ++q) acc = (acc + static_cast<unsigned __int128>(X[q * d + a]) * X[q * d + b]) % kP;
  return acc;
}

std::size_t as_size(const Fmpz& x) { return static_cast<std::size_t>(fmpz_get_ui(x.get())); }

}  // namespace

TEST_CASE("gram counts: Weyl dimensions and the spans of Gram-matrix polynomials", "[gram]") {
  // dim S_(4,2)(C^4) by hand (Weyl: 3 * 3 * 7/3 * 3 * 2 * 1), S_(2,2,1)(C^4) = 20, S_(3)(C^2) = 4.
  CHECK(gram::schur_dim({4, 2}, 4) == Fmpz(126));
  CHECK(gram::schur_dim({2, 2, 1}, 4) == Fmpz(20));
  CHECK(gram::schur_dim({3}, 2) == Fmpz(4));
  CHECK(gram::schur_dim({1, 1, 1}, 2) == Fmpz(0));
  // Littlewood: with no relations the sum over mu is every monomial of the entries.
  for (std::size_t d = 1; d <= 4; ++d)
    for (std::size_t k = 0; k <= 6; ++k) {
      Fmpz sum;
      std::function<void(std::vector<std::size_t>&, std::size_t, std::size_t)> parts =
          [&](std::vector<std::size_t>& mu, std::size_t left, std::size_t cap) {
            if (left == 0) {
              std::vector<std::size_t> lam = mu;
              for (auto& x : lam) x *= 2;
              fmpz_add(sum.get(), sum.get(), gram::schur_dim(lam, d).get());
              return;
            }
            for (std::size_t x = std::min(left, cap); x >= 1; --x) {
              mu.push_back(x);
              parts(mu, left - x, x);
              mu.pop_back();
            }
          };
      std::vector<std::size_t> mu;
      parts(mu, k, k);
      CHECK(sum == gram::monomials(d * (d + 1) / 2, k));
    }
  // The counts equal the dimension of the explicit spans (rank mod a prime of
  // their values at random points, a lower bound that is tight here).
  for (std::size_t d = 2; d <= 4; ++d)
    for (std::size_t r = 1; r <= d + 1; ++r)
      for (std::size_t k = 0; k <= (d == 4 ? 3 : 4); ++k) {
        std::vector<std::pair<std::size_t, std::size_t>> co;
        for (std::size_t a = 0; a < d; ++a)
          for (std::size_t b = a; b < d; ++b) co.emplace_back(a, b);
        const auto mons = all_monomials(co.size(), k);
        const std::size_t rank = span_rank(r, d, mons.size(), [&](std::size_t i, const std::vector<ulong>& X) {
          ulong v = 1;
          for (std::size_t x : mons[i]) v = static_cast<ulong>(static_cast<unsigned __int128>(v) * gram_entry(X, r, d, co[x].first, co[x].second) % kP);
          return v;
        }, 11 * d + 7 * r + k);
        INFO("d " << d << " r " << r << " k " << k);
        CHECK(rank == as_size(*gram::gram_dim(k, d, r)));
        const auto cov = all_monomials(co.size(), k);
        const std::size_t crank = span_rank(r, d, d * cov.size(), [&](std::size_t i, const std::vector<ulong>& X) {
          ulong v = X[i % d];  // x_(0, e), e = i mod d
          for (std::size_t x : cov[i / d]) v = static_cast<ulong>(static_cast<unsigned __int128>(v) * gram_entry(X, r, d, co[x].first, co[x].second) % kP);
          return v;
        }, 13 * d + 5 * r + k);
        CHECK(crank == as_size(*gram::covariant_dim(k, d, r)));
      }
}

namespace {

// The exact rank (the exact method: a certified rank over Q, over Q(i) through
// the realified matrix for Gaussian weights).
std::size_t exact_rank(const Model& m, const Entry& e, const Partition& P) {
  SepOptions o;
  o.methods = {Method::exact};
  const auto r = analyse_network(m, {e}, {P}, o)[0];
  REQUIRE(r.status == BracketStatus::exact);
  return *r.lower.value;
}

// gram's run on (e, P), or nothing when it declines the network (an input error).
std::optional<MethodRun> gram_run(const Model& m, const Entry& e, const Partition& P) {
  SepOptions o;
  o.methods = {Method("gram")};
  try {
    return analyse_network(m, {e}, {P}, o)[0].runs.at(0);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

// Token partitions of N tokens: every nonempty proper subset with token 0 in A
// (each unordered pair once), and A = every token.
std::vector<Partition> token_partitions(std::size_t N, std::size_t d) {
  std::vector<Partition> out;
  for (std::size_t mask = 1; mask < (std::size_t{1} << N); mask += 2) {
    std::vector<std::size_t> A;
    for (std::size_t t = 0; t < N; ++t)
      if ((mask >> t) & 1U) A.push_back(t);
    out.push_back(partition_from_tokens(A, N, d));
  }
  return out;
}

// Attention layers only, none with a bias (a bias breaks the form x_o * Phi(M)).
bool pure_attention(const json& j) {
  for (const auto& L : j["layers"]) {
    if (L["type"] != "attention") return false;
    for (const auto& h : L["heads"])
      for (const char* b : {"bQ", "bK", "bV", "bO"})
        if (h.contains(b)) return false;
  }
  return !j["layers"].empty();
}

}  // namespace

TEST_CASE("gram on random models of every layer kind: never below the exact rank, declined where it does not apply",
          "[gram][differential]") {
  int applied = 0, declined = 0;
  for (int s = 1; s <= 200; ++s) {
    const json j = test_models::random_model(static_cast<std::uint64_t>(5000 + s));
    INFO(j.dump());
    const Model m = parse_model(j.dump(), "random");
    if (m.num_inputs() < 2) continue;
    const Partition P = parse_partition("half", m.tokens, m.width);
    const auto run = gram_run(m, {0, 0}, P);
    if (!run) {
      ++declined;
      CHECK((!pure_attention(j) || m.tokens == 1));  // only non-attention layers or a split token
      continue;
    }
    ++applied;
    REQUIRE(run->value);
    CHECK(*run->value >= exact_rank(m, {0, 0}, P));
  }
  CHECK(applied >= 5);  // a third of the layers have biases now, which gram declines
  CHECK(declined >= 100);
}

TEST_CASE("gram declines attention with a bias", "[gram]") {
  // y = x0 + 1 (a bias bO = 1 on a one-head, one-token-pair layer whose head
  // is zero): the output is not odd in its token, so the form x_o * Phi(M)
  // the bound rests on does not hold.
  const Model m = parse_model(R"({"format":"netpoly-model/1","input":{"tokens":2,"width":1},"layers":[
    {"type":"attention","heads":[{"Q":[[1]],"K":[[1]],"V":[[1]],"O":[[1]],"bO":[1]}]}]})",
                              "bias");
  const Partition P = parse_partition("half", m.tokens, m.width);
  CHECK_FALSE(gram_run(m, {0, 0}, P));
}

TEST_CASE("gram on random attention networks: never below the exact rank, for every output and token partition",
          "[gram][differential]") {
  int models = 0, pairs = 0, tight = 0, with_codims = 0, codims_binding = 0;
  for (int s = 1; s <= 360; ++s) {
    const json j = test_models::random_attention_model(static_cast<std::uint64_t>(7000 + s));
    INFO(j.dump());
    const Model m = parse_model(j.dump(), "random");
    if (m.tokens < 2 || estimate_expansion(m).terms > 3e3) continue;  // exact ranks stay cheap
    ++models;
    const std::vector<Entry> outs{{0, 0}, {m.tokens - 1, m.width - 1}};
    for (const Entry& e : outs)
      for (const Partition& P : token_partitions(m.tokens, m.width)) {
        INFO("output " << e.token << "," << e.channel << " partition " << P.label());
        const auto run = gram_run(m, e, P);
        REQUIRE(run);
        REQUIRE(run->value);
        const std::size_t r = exact_rank(m, e, P);
        CHECK(*run->value >= r);
        CHECK(std::stoull(run->details["generic_bound"].get<std::string>()) >= *run->value);
        ++pairs;
        tight += *run->value == r;
        const json& c = run->details["codimensions"];
        const bool used = !c["output_side"].empty() || !c["other_side"].empty();
        with_codims += used;
        codims_binding += used && *run->value < std::stoull(run->details["generic_bound"].get<std::string>());
      }
  }
  CHECK(models >= 200);
  CHECK(pairs >= 1000);
  CHECK(tight >= pairs / 2);  // tight on most (the weights here are small and often 0)
  CHECK(with_codims >= 10);   // the points of the first layer's kernel were used
  CHECK(codims_binding >= 1);
}

TEST_CASE("gram with Gaussian weights: never below the exact rank over Q(i)", "[gram][gauss]") {
  int pairs = 0;
  for (int s = 1; s <= 60; ++s) {
    const json j = test_models::random_attention_model(static_cast<std::uint64_t>(9000 + s), true);
    INFO(j.dump());
    const Model m = parse_model(j.dump(), "random");
    if (m.tokens < 2 || estimate_expansion(m).terms > 1e3) continue;  // the realified expansion stays small
    for (const Partition& P : token_partitions(m.tokens, m.width)) {
      const auto run = gram_run(m, {0, 0}, P);
      REQUIRE(run);
      REQUIRE(run->value);
      CHECK_FALSE(run->details["weight_dependent"].get<bool>());
      CHECK(*run->value >= exact_rank(m, {0, 0}, P));
      ++pairs;
    }
  }
  CHECK(pairs >= 30);
}

TEST_CASE("the black-box's blocks capped by gram's degree weights: its bracket contains the exact rank",
          "[gram][blackbox]") {
  int closed = 0, pairs = 0;
  for (int s = 1; s <= 60; ++s) {
    const json j = test_models::random_attention_model(static_cast<std::uint64_t>(8000 + s));
    INFO(j.dump());
    const Model m = parse_model(j.dump(), "random");
    if (m.tokens < 2 || estimate_expansion(m).terms > 3e3) continue;
    const Partition P = parse_partition("half", m.tokens, m.width);
    const std::size_t r = exact_rank(m, {0, 0}, P);
    SepOptions o;
    o.methods = {Method("gram"), Method::blackbox};
    o.blackbox_seed = static_cast<std::uint64_t>(s);
    const auto res = analyse_network(m, {{0, 0}}, {P}, o)[0];
    ++pairs;
    REQUIRE(res.lower.value);
    CHECK(*res.lower.value <= r);
    CHECK(*res.upper.value >= r);
    if (res.status == BracketStatus::exact) {
      ++closed;
      CHECK(*res.lower.value == r);
    }
  }
  CHECK(pairs >= 30);
  CHECK(closed >= pairs / 2);
}

// The columns of the pencil functionals: a sample of distinct degree-k
// monomials in s coordinates. The old sampler sorted s independent uniform
// indices, which is not uniform (x_0^k has probability s^-k), and drew until
// `want` distinct ones were seen: with 900 wanted of the 1,891 degree-60
// monomials in 3 coordinates it did not end, and neither did gram on the
// fuzzer's 4-layer, width-2 network below (fuzz_python, seed 29).
TEST_CASE("gram's monomial sample: distinct valid monomials, all of them when there are few", "[gram]") {
  auto count = [](std::size_t s, std::size_t k) {  // binom(k + s - 1, k), by Pascal's rule
    std::vector<std::vector<double>> c(k + s, std::vector<double>(k + s, 0));
    for (std::size_t n = 0; n < k + s; ++n) {
      c[n][0] = 1;
      for (std::size_t r = 1; r <= n; ++r) c[n][r] = c[n - 1][r - 1] + (r < n ? c[n - 1][r] : 0);
    }
    return c[k + s - 1][k];
  };
  struct Case {
    std::size_t s, k, want;
  };
  SplitMix64 g(7);
  for (const Case& x : {Case{3, 4, 10}, Case{3, 4, 100}, Case{3, 60, 900}, Case{3, 60, 1891}, Case{6, 5, 50},
                        Case{21, 9, 600}, Case{1, 7, 3}}) {
    INFO("s = " << x.s << ", k = " << x.k << ", want = " << x.want);
    const auto out = gram::monomial_sample(x.s, x.k, x.want, g);
    CHECK(static_cast<double>(out.size()) == std::min<double>(static_cast<double>(x.want), count(x.s, x.k)));
    std::set<std::vector<std::size_t>> distinct(out.begin(), out.end());
    CHECK(distinct.size() == out.size());
    for (const auto& c : out) {
      REQUIRE(c.size() == x.k);
      CHECK(std::is_sorted(c.begin(), c.end()));
      CHECK(std::all_of(c.begin(), c.end(), [&](std::size_t v) { return v < x.s; }));
    }
  }
  // The network the fuzzer found: gram ends, and its bound is at least the
  // black-box's certified lower bound (the small prime's ranks).
  const Model m = read_model(std::string(NETPOLY_SOURCE_DIR) + "/tests/data/attention-L4-d2-H2-N3-fuzz.json");
  SepOptions so;
  so.methods = {Method("gram"), Method::blackbox};
  so.blackbox_seed = 1;
  const auto res = analyse_network(m, {{0, 0}}, {parse_partition("half", 3, 2)}, so)[0];
  REQUIRE(res.upper.method == "gram");
  CHECK(*res.upper.value >= *res.lower.value);
  CHECK(*res.lower.value >= 1000);  // the black-box reaches 1,050 here; a check that it ran
}

TEST_CASE("gram is tight on the small attention rungs (known answers)", "[gram]") {
  struct Rung {
    std::size_t L, d, H, N, sep;
  };
  // sep by the exact method (certified rank of the coefficient matrix), as in bench/studies/ladder.md.
  for (const Rung& x : {Rung{2, 3, 1, 4, 49}, Rung{2, 4, 2, 4, 107}}) {
    PresetOptions o{.shape = {.arch = parse_arch("attention"), .layers = x.L, .width = x.d, .heads = x.H, .tokens = x.N},
                    .seed = 1};
    const Model m = make_preset(o);
    const Partition P = parse_partition("half", x.N, x.d);
    const auto run = gram_run(m, {0, 0}, P);
    REQUIRE(run);
    CHECK(run->value == exact_rank(m, {0, 0}, P));
    CHECK(run->value == x.sep);
  }
  // Attention (3,2,1,4): degree 27, not expanded; the small prime's certified
  // lower bound meets gram's 232 (support says 2,380).
  PresetOptions o{.shape = {.arch = parse_arch("attention"), .layers = 3, .width = 2, .heads = 1, .tokens = 4}, .seed = 1};
  const Model m = make_preset(o);
  SepOptions so;
  so.methods = {Method::support, Method("gram"), Method::blackbox};
  so.blackbox_seed = 1;
  const auto res = analyse_network(m, {{0, 0}}, {parse_partition("half", 4, 2)}, so)[0];
  CHECK(res.status == BracketStatus::exact);
  CHECK(res.lower.value == std::size_t{232});
  CHECK(res.upper.method == "gram");
  CHECK(res.runs.back().details.contains("small_prime"));
  CHECK(!res.runs.back().details.contains("failure_probability"));  // certified, no probability
}

TEST_CASE("the default plan certifies before an expansion it would not need", "[gram][seprank]") {
  // Attention L = 3, d = 4, H = 1, N = 2: expandable (about 2.7e6 terms
  // estimated), and gram (= support here) is tight, so the small prime's
  // ranks meet it and the coefficient matrix is never built. The exact value
  // 2,380 = support = gram is the sum of min(binom(2k+3, 3), binom(30-2k, 3))
  // over the blocks k = 0..13 (x_1-monomials of degree 2k, x_0-monomials of
  // degree 27 - 2k), met here by a certified lower bound.
  PresetOptions o{.shape = {.arch = parse_arch("attention"), .layers = 3, .width = 4, .heads = 1, .tokens = 2}, .seed = 1};
  const Model m = make_preset(o);
  REQUIRE(estimate_expansion(m).terms > 1e6);
  SepOptions so;
  so.blackbox_seed = 1;
  const auto res = analyse_network(m, {{0, 0}}, {parse_partition("half", 2, 4)}, so)[0];
  CHECK(res.status == BracketStatus::exact);
  CHECK(res.lower.value == std::size_t{2380});
  CHECK_FALSE(res.sizes.contains("terms"));  // nothing was expanded
  CHECK(res.lower.method == "blackbox");
}
