// The black-box's batched evaluator (methods/blackbox_rounds.hpp: BatchEval;
// the compiled forward pass of blackbox/tape.hpp with each instruction set
// this CPU has, and the portable BatchModpRing) against an independent path:
// one point at a time over ModpRing (scalar nmod arithmetic, no batches, no
// lazy sums). Same prime, same points: the same
// residues, on random models of every layer kind (attention with heads,
// residuals and biases, token and channel mixers, products, permutations,
// branches) and on the presets.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/blackbox/rounds.hpp"
#include "analysis/blackbox/tape.hpp"
#include "analysis/methods/method.hpp"
#include "model/forward.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/rings.hpp"
#include "random_models.hpp"
#include "runtime/random.hpp"
#include "domains/batch_rings.hpp"

using namespace netpoly;

namespace {

// y_e(a, b_j) mod p point by point over ModpRing (Gaussian weights with the
// square root of -1 the black-box's weights use).
std::vector<ulong> scalar_row(const Model& m, const Entry& e, const Partition& P, ulong p, const std::vector<ulong>& a,
                              const std::vector<std::vector<ulong>>& B) {
  const ModpRing R = m.gaussian() ? ModpRing::gaussian(p) : ModpRing(p);
  const auto net = prepare(R, m);
  const auto va = methods::side_vars(P, true), vb = methods::side_vars(P, false);
  std::vector<ulong> r;
  for (const auto& b : B) {
    std::vector<ulong> x(m.num_inputs());
    for (std::size_t q = 0; q < va.size(); ++q) x[va[q]] = a[q];
    for (std::size_t q = 0; q < vb.size(); ++q) x[vb[q]] = b[q];
    r.push_back(forward(R, net, x)[e.token * m.output_width() + e.channel]);
  }
  return r;
}

// The batched row against the scalar one at `n` random points (more than a
// chunk of the batched evaluator, so its chunk boundary is crossed), from
// column j0 on.
// The kernels this CPU can run (blackbox/tape.hpp: simd_choice), and the
// ring each makes the evaluator report.
std::vector<std::pair<std::string, std::string>> simd_kinds() {
  std::vector<std::pair<std::string, std::string>> k{{"portable", "nmod"}};
  if (BatchF64Ring::supported()) k.push_back({"avx2", "f64-avx2"});
  if (BatchF64Ring::supported() && __builtin_cpu_supports("avx512f")) k.push_back({"", "f64-avx512"});
  return k;
}

// Sets NETPOLY_SIMD for one scope.
struct SimdEnv {
  explicit SimdEnv(const std::string& v) {
    if (v.empty()) unsetenv("NETPOLY_SIMD");
    else setenv("NETPOLY_SIMD", v.c_str(), 1);
  }
  ~SimdEnv() { unsetenv("NETPOLY_SIMD"); }
};

// With `edge`, every point's inputs are p - 2 or (p - 3) / 2 (odd residues
// near the largest and the largest centred ones), else random.
void check_rows(const Model& m, const Partition& P, ulong p, SplitMix64& g, std::size_t n, bool edge = false) {
  const Entry e{g.below(m.tokens), g.below(m.output_width())};
  const std::size_t na = methods::side_vars(P, true).size(), nb = methods::side_vars(P, false).size();
  const auto draw = [&] { return edge ? (g.below(2) ? p - 2 : (p - 3) / 2) : g.below(p); };
  std::vector<ulong> a(na);
  for (auto& x : a) x = draw();
  std::vector<std::vector<ulong>> B(n, std::vector<ulong>(nb));
  for (auto& b : B)
    for (auto& x : b) x = draw();
  const std::size_t j0 = g.below(3);
  const auto want = scalar_row(m, e, P, p, a, std::vector<std::vector<ulong>>(B.begin() + static_cast<long>(j0), B.end()));
  for (const auto& [simd, ring] : simd_kinds()) {
    SimdEnv env(simd);
    const auto eval = methods::make_batch_eval(m, e, P, p);
    INFO(m.name << ", p = " << p << ", output " << e.token << "," << e.channel << ", ring " << eval->ring());
    if (p < BatchF64Ring::kMaxPrime) CHECK(eval->ring() == ring);
    methods::Columns cols(B, nb);
    eval->prepare(cols);
    const auto got = eval->row(a, cols, j0, n);
    REQUIRE(got.size() == want.size());
    std::size_t differ = 0;
    for (std::size_t j = 0; j < got.size(); ++j) differ += got[j] != want[j];
    CHECK(differ == 0);
  }
}

// The small-prime phase's prime (lazy sums) and one from the large primes' range.
constexpr ulong kSmall = 6251881, kLarge = 1125899906842597;

}  // namespace

TEST_CASE("BatchF64Ring::addmuls equals addmul term by term, across lazy reductions and edge values", "[batch_eval]") {
  if (!BatchF64Ring::supported()) {
    WARN("this CPU lacks AVX2/FMA: BatchF64Ring is not used here, nothing to test");
    return;
  }
  SplitMix64 g(41);
  for (const ulong p : {kSmall, UWORD(8388593), kLarge}) {
    BatchF64Ring R(p, 1);
    nmod_t mod;
    nmod_init(&mod, p);
    // Enough terms to cross the lazy reduction count of the small primes.
    for (const std::size_t K : {std::size_t{1}, std::size_t{5}, R.lazy_terms() + 3}) {
      const std::size_t n = 7;  // one AVX2 lane group and a tail
      BatchF64Ring Rn(p, n);
      std::vector<BatchF64Ring::Elem> xa(K, BatchF64Ring::Elem(n)), xb(K, BatchF64Ring::Elem(n));
      std::vector<ulong> want(n);
      BatchF64Ring::Elem r(n);
      for (std::size_t j = 0; j < n; ++j) {
        want[j] = j == 0 ? p - 1 : g.below(p);
        r[j] = static_cast<double>(want[j]);
      }
      std::vector<const BatchF64Ring::Elem*> pa, pb;
      for (std::size_t k = 0; k < K; ++k) {
        for (std::size_t j = 0; j < n; ++j) {
          const ulong u = j < 2 ? p - 1 : g.below(p), v = j < 2 ? p - 1 - k % 2 : g.below(p);
          xa[k][j] = static_cast<double>(u);
          xb[k][j] = static_cast<double>(v);
          want[j] = nmod_add(want[j], nmod_mul(u, v, mod), mod);
        }
        pa.push_back(&xa[k]);
        pb.push_back(&xb[k]);
      }
      Rn.addmuls(r, pa, pb);
      INFO("p = " << p << ", K = " << K);
      for (std::size_t j = 0; j < n; ++j) CHECK(r[j] == static_cast<double>(want[j]));
    }
  }
}

TEST_CASE("the black-box's batched rows equal point-by-point residues on random models of every layer kind",
          "[batch_eval]") {
  int attention = 0, biased = 0, residual = 0;
  for (std::uint64_t s = 1; s <= 40; ++s) {
    const auto j = test_models::random_model(4100 + s);
    const std::string text = j.dump();
    attention += text.find("\"attention\"") != std::string::npos;
    biased += text.find("\"bQ\"") != std::string::npos || text.find("\"b\"") != std::string::npos;
    residual += text.find("\"residual\":true") != std::string::npos;
    const Model m = parse_model(text, "random-" + std::to_string(s));
    if (m.tokens * m.width < 2) continue;  // one variable: no partition
    SplitMix64 g(s);
    const Partition P = parse_partition("half", m.tokens, m.width);
    for (const ulong p : {kSmall, kLarge}) check_rows(m, P, p, g, 600);
  }
  // The generator drew what the test claims to cover.
  CHECK(attention > 5);
  CHECK(biased > 5);
  CHECK(residual > 5);
}

TEST_CASE("the black-box's batched rows equal point-by-point residues on the bench's preset families", "[batch_eval]") {
  // Small members of the bench targets' families: attention (heads, residual,
  // LV's N = 2, H = 1), mixers (with a residual), products.
  std::vector<PresetOptions> shapes;
  auto add = [&](const char* arch, std::size_t L, std::size_t d, std::size_t H, std::size_t N, std::size_t k, bool res) {
    shapes.push_back(PresetOptions{.shape = {.arch = parse_arch(arch), .layers = L, .width = d, .heads = H, .tokens = N,
                                             .degree = k, .residual = res}});
  };
  add("attention", 2, 4, 2, 4, 0, false);
  add("attention", 2, 2, 1, 3, 0, true);
  add("attention", 3, 3, 1, 2, 0, false);
  add("mixer", 3, 4, 0, 4, 0, false);
  add("mixer", 2, 3, 0, 4, 0, true);
  add("product", 2, 3, 0, 2, 3, false);
  SplitMix64 g(7);
  for (const auto& o : shapes) {
    const Model m = make_preset(o);
    for (const char* spec : {"half", "interleaved"}) {
      const Partition P = parse_partition(spec, m.tokens, m.width);
      for (const ulong p : {kSmall, kLarge}) check_rows(m, P, p, g, 530);
    }
  }
}

TEST_CASE("the compiled forward pass is exact at the largest residues and across its reduction counts", "[batch_eval]") {
  // Weights (p - 3) / 2 (centred, near the largest magnitude p/2) and -1,
  // inputs p - 2 and (p - 3) / 2, all odd (a sum of odd products past 2^53
  // is inexact, where even ones could stay exact), and channel maps of 700
  // terms: for the small prime a lazy sum takes about 220 products of up to
  // p^2 / 2, and 700 such products of one sign pass 2^53 (p^2 is about
  // 2^45.2), so a count too large by 4 breaks the first row; squares on top
  // (products of reduced values). The large prime takes the remainder path.
  for (const ulong p : {kSmall, kLarge}) {
    const std::size_t d = 700;
    const std::string big = std::to_string((p - 3) / 2);
    std::string W = "[";
    for (std::size_t i = 0; i < 2; ++i) {
      W += i ? ",[" : "[";
      for (std::size_t k = 0; k < d; ++k) W += (k ? "," : "") + (i == 0 || k % 3 ? big : std::string("-1"));
      W += "]";
    }
    W += "]";
    const std::string text = R"({"format": "netpoly-model/1", "name": "edge", "input": {"tokens": 2, "width": )" +
                             std::to_string(d) + R"(}, "layers": [{"type": "channel_mix", "W": )" + W +
                             R"(, "activation": "square"}, {"type": "token_mix", "W": [[)" + big + R"(, -1], [1, )" +
                             big + R"(]], "activation": "square"}], "output": {"token": 0, "channel": 0}})";
    const Model m = parse_model(text, "edge");
    SplitMix64 g(p);
    for (const char* spec : {"half", "interleaved"}) {
      const Partition P = parse_partition(spec, m.tokens, m.width);
      check_rows(m, P, p, g, 130, true);
      check_rows(m, P, p, g, 70, true);
      check_rows(m, P, p, g, 70, false);
    }
  }
}

TEST_CASE("the compiled forward pass keeps only what the entry needs and runs each side's own work once",
          "[batch_eval]") {
  // Attention (3,4,2,4), output y0_0, tokens {0,1} | {2,3}: the last layer's
  // other entries are not computed; the first layer's projections of side A's
  // tokens run once per row (A) and those of side B once per set of columns
  // (B); what is left per chunk (M) still equals the point-by-point residues
  // (the tests above, with and without the split).
  if (!BatchF64Ring::supported()) return;
  const Model m = make_preset(PresetOptions{.shape = {.arch = parse_arch("attention"), .layers = 3, .width = 4,
                                                      .heads = 2, .tokens = 4}});
  const Partition P = parse_partition("half", m.tokens, m.width);
  SimdEnv env("avx2");
  const auto eval = methods::make_batch_eval(m, Entry{0, 0}, P, kSmall);
  const auto st = methods::tape_stats(*eval), whole = methods::tape_stats(*eval, false);
  INFO("recorded " << st.recorded << "; A " << st.a_ops << ", B " << st.b_ops << ", M " << st.m_ops << " in "
                   << st.m_slots << " slots; without the split M " << whole.m_ops);
  CHECK(st.a_ops > 0);
  CHECK(st.b_ops > 0);
  CHECK(whole.a_ops == st.a_ops);
  CHECK(whole.b_ops == 0);
  // (Without the split, B's instructions run in M, where some are inlined.)
  CHECK(whole.m_ops <= st.m_ops + st.b_ops);
  CHECK(whole.m_ops > st.m_ops);
  CHECK(st.a_ops + st.b_ops + st.m_ops < st.recorded * 2 / 3);
  // Slots are reused: M's slots beyond its inputs (which keep theirs) are far
  // fewer than its instructions per chunk.
  CHECK(st.m_slots - st.a_width - st.b_width < st.m_ops / 2);
  // M's linear instructions read once linearly are inlined into their
  // readers: attention's output projection and residual sums, 56 of the 215
  // instructions M had without it (measured on this network), so M keeps
  // under 3/4 of them.
  CHECK(st.m_ops < 215 * 3 / 4);
}

TEST_CASE("the compiled forward pass equals the point-by-point residues without its side-B split", "[batch_eval]") {
  // The split is dropped when side B's values would not fit beside the
  // columns (blackbox/tape.cpp: kMaxPrepared); that variant is run here
  // directly, on random real models (Gaussian ones map their weights first).
  if (!BatchF64Ring::supported()) return;
  std::size_t tried = 0;
  for (std::uint64_t s = 1; s <= 40; ++s) {
    const Model m = parse_model(test_models::random_model(4100 + s).dump(), "random-" + std::to_string(s));
    if (m.tokens * m.width < 2 || m.gaussian()) continue;
    const Partition P = parse_partition("half", m.tokens, m.width);
    SplitMix64 g(s);
    for (const ulong p : {kSmall, kLarge}) {
      const Entry e{g.below(m.tokens), g.below(m.output_width())};
      const auto va = methods::side_vars(P, true), vb = methods::side_vars(P, false);
      const auto eval = methods::make_tape_eval(prepare(BatchF64Ring(p, 1), m), p, va, vb, methods::single_need(m, e),
                                                e.token * m.output_width() + e.channel);
      REQUIRE(eval);
      std::vector<ulong> a(va.size());
      for (auto& x : a) x = g.below(p);
      std::vector<std::vector<ulong>> B(150, std::vector<ulong>(vb.size()));
      for (auto& b : B)
        for (auto& x : b) x = g.below(p);
      methods::Columns whole(B, vb.size());
      methods::prepare_without_split(*eval, whole);
      CHECK(whole.variant == 1);
      const auto want = scalar_row(m, e, P, p, a, B);
      const auto got = eval->row(a, whole, 0, B.size());
      INFO(m.name << ", p = " << p);
      CHECK(got == want);
      ++tried;
    }
  }
  CHECK(tried > 30);
}
