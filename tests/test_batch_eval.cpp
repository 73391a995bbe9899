// The black-box's batched evaluator (methods/blackbox_rounds.hpp: BatchEval,
// over BatchF64Ring with its fused products and chunked rows) against an
// independent path: one point at a time over ModpRing (scalar nmod
// arithmetic, no batches, no lazy sums). Same prime, same points: the same
// residues, on random models of every layer kind (attention with heads,
// residuals and biases, token and channel mixers, products, permutations,
// branches) and on the presets.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "analysis/methods/blackbox_rounds.hpp"
#include "analysis/methods/method.hpp"
#include "model/forward.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/rings.hpp"
#include "random_models.hpp"
#include "runtime/random.hpp"

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
void check_rows(const Model& m, const Partition& P, ulong p, SplitMix64& g, std::size_t n) {
  const Entry e{g.below(m.tokens), g.below(m.output_width())};
  const auto eval = methods::make_batch_eval(m, e, P, p);
  const std::size_t na = methods::side_vars(P, true).size(), nb = methods::side_vars(P, false).size();
  std::vector<ulong> a(na);
  for (auto& x : a) x = g.below(p);
  std::vector<std::vector<ulong>> B(n, std::vector<ulong>(nb));
  for (auto& b : B)
    for (auto& x : b) x = g.below(p);
  const std::size_t j0 = g.below(3);
  const auto want = scalar_row(m, e, P, p, a, std::vector<std::vector<ulong>>(B.begin() + static_cast<long>(j0), B.end()));
  const auto got = eval->row(a, B, j0, n);
  INFO(m.name << ", p = " << p << ", output " << e.token << "," << e.channel << ", ring " << eval->ring());
  REQUIRE(got.size() == want.size());
  std::size_t differ = 0;
  for (std::size_t j = 0; j < got.size(); ++j) differ += got[j] != want[j];
  CHECK(differ == 0);
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
