#include "netpoly/presets.hpp"

#include "netpoly/error.hpp"
#include "runtime/limits.hpp"
#include "runtime/random.hpp"

namespace netpoly {

PresetOptions preset_options(const NetworkShape& p, std::uint64_t seed, std::int64_t range, WeightDist weights) {
  return PresetOptions{.shape = p, .seed = seed, .range = range, .weights = weights};
}

WeightDist parse_weight_dist(const std::string& s) {
  if (s == "small") return WeightDist::small;
  if (s == "wide") return WeightDist::wide;
  if (s == "generic") return WeightDist::generic;
  throw InputError("--weights: expected small, wide or generic, got \"" + s + "\"");
}

const char* weight_dist_name(WeightDist w) {
  switch (w) {
    case WeightDist::small: return "small";
    case WeightDist::wide: return "wide";
    case WeightDist::generic: return "generic";
  }
  return "small";
}

std::int64_t PresetOptions::effective_range() const {
  if (range != 0) return range;
  switch (weights) {
    case WeightDist::small: return 3;
    case WeightDist::wide: return 100;
    case WeightDist::generic: return INT64_C(1) << 10;
  }
  return 3;
}

std::string PresetOptions::weights_text() const {
  const std::string r = std::to_string(effective_range());
  if (weights == WeightDist::small) return "integers in [-" + r + ", " + r + "]";
  return "nonzero integers in [-" + r + ", " + r + "]" + (weights == WeightDist::generic ? " (generic)" : "");
}

PresetOptions second_draw(const PresetOptions& o) {
  PresetOptions t = o;
  // Another SplitMix64 stream: the golden-ratio increment's odd multiple keeps it away from
  // the first draws of nearby seeds.
  t.seed = o.seed ^ 0xd1b54a32d192ed03ULL;
  return t;
}

namespace {

struct WeightDraw {
  SplitMix64& g;
  std::int64_t range;
  bool nonzero;
  slong next() {
    if (!nonzero) return static_cast<slong>(g.symmetric(range));
    // Uniform on [-R, -1] u [1, R].
    const std::int64_t x = static_cast<std::int64_t>(g.below(2 * static_cast<std::uint64_t>(range)));
    return static_cast<slong>(x < range ? x - range : x - range + 1);
  }
};

Mat<Fmpq> random_mat(WeightDraw& g, std::size_t r, std::size_t c) {
  Mat<Fmpq> m(r, c);
  for (auto& x : m.a) x = Fmpq(g.next());
  return m;
}

// A uniform random permutation of 0 … n-1 (Fisher-Yates).
std::vector<std::size_t> random_permutation(SplitMix64& rng, std::size_t n) {
  std::vector<std::size_t> p(n);
  for (std::size_t k = 0; k < n; ++k) p[k] = k;
  for (std::size_t k = n; k-- > 1;) std::swap(p[k], p[rng.below(k + 1)]);
  return p;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw InputError("make: " + what);
}

}  // namespace

Model make_preset(const PresetOptions& o) {
  const NetworkShape& s = o.shape;
  require(s.layers >= 1 && s.layers <= 64, "--layers must be in [1, 64]");
  require(s.width >= 1 && s.width <= 4096, "--width must be in [1, 4096]");
  require(s.tokens >= 1 && s.tokens <= 4096, "--tokens must be in [1, 4096]");
  require(o.range == 0 || (o.range >= 1 && o.range <= (INT64_C(1) << 40)), "--range must be in [1, 2^40]");
  // Refused up front beyond the memory limit: at most 4 d^2 (attention, a
  // product of up to 64 factors 64 d^2), N^2 or d^2 weights a layer, each an
  // fmpq (16 bytes) held about three times (the model, and a copy per ring
  // the work runs in).
  {
    const double d = static_cast<double>(s.width), N = static_cast<double>(s.tokens);
    const double k = static_cast<double>(std::max<std::size_t>(s.block_degree(), 4));
    const double gamma = static_cast<double>(std::max<std::size_t>(1, 2 * o.expansion));
    const double weights = static_cast<double>(s.layers) * std::max(k * d * d, gamma * std::max(N * N, d * d));
    check_memory_estimate(weights * 48.0, "a preset with up to " + std::to_string(static_cast<long long>(weights)) +
                                              " weights");
  }
  require(!o.permuted || s.arch == Arch::mixer || s.arch == Arch::mlp,
          "--permuted (NB eq. (3)'s permutations) is for mixer and mlp presets");
  require(o.perm_sum >= 1 && o.perm_sum <= 16, "--perm-sum must be in [1, 16]");
  require(o.perm_sum == 1 || o.permuted, "--perm-sum needs --permuted");
  require(o.expansion == 0 || s.arch == Arch::mixer || s.arch == Arch::mlp,
          "--expansion (WS's two-layer mixing blocks) is for mixer and mlp presets");
  require(o.expansion <= 64, "--expansion must be in [1, 64]");
  SplitMix64 rng(o.seed);
  WeightDraw g{rng, o.effective_range(), o.weights != WeightDist::small};
  Model m;
  m.width = s.width;
  m.tokens = s.tokens;
  if (s.arch == Arch::attention) {
    require(s.heads >= 1 && s.width % s.heads == 0, "--heads must divide --width");
    const std::size_t da = s.width / s.heads, k = s.block_degree();
    require(k >= 2 && k <= 16, "--degree must be in [2, 16] for attention blocks");
    for (std::size_t l = 0; l < s.layers; ++l) {
      Attention<Fmpq> a;
      for (std::size_t h = 0; h < s.heads; ++h) {
        // Drawn in the order Q, K, V, O (degree 3: the attention presets as
        // always), then the further score pairs; an even degree draws C (N x d)
        // in place of V and O.
        AttentionHead<Fmpq> x;
        x.Q = random_mat(g, da, s.width);
        x.K = random_mat(g, da, s.width);
        if (k % 2) {
          x.V = random_mat(g, da, s.width);
          x.O = random_mat(g, s.width, da);
        } else {
          x.C = random_mat(g, s.tokens, s.width);
        }
        for (std::size_t j = 1; j < k / 2; ++j) {
          ScorePair<Fmpq> p;
          p.Q = random_mat(g, da, s.width);
          p.K = random_mat(g, da, s.width);
          x.extra.push_back(std::move(p));
        }
        a.heads.push_back(std::move(x));
      }
      a.causal = o.causal;
      m.layers.push_back({std::move(a), s.residual});
    }
  } else if (s.arch == Arch::mixer || s.arch == Arch::mlp) {
    // NB Def 3.2: odd layers mix tokens (sigma2(W X)), even layers mix
    // channels (sigma2(X W)); NB Def 3.1 (mlp): L_i(x) = sigma2(W_i x) (+ x
    // with residuals), one token. NB eq. (3) when permuted.
    if (s.arch == Arch::mlp) m.tokens = 1;
    SplitMix64 perm_rng(o.seed ^ UINT64_C(0x9e3779b97f4a7c15));
    for (std::size_t l = 0; l < s.layers; ++l) {
      Layer<Fmpq> mix;
      // With an expansion factor γ: W2 sigma2(W X), W of γ N (γ d) rows, W2 back to N (d).
      const std::size_t gamma = o.expansion;
      if (s.arch == Arch::mixer && l % 2 == 0) {
        TokenMix<Fmpq> t;
        t.W = random_mat(g, gamma ? gamma * s.tokens : s.tokens, s.tokens);
        if (gamma) t.W2 = random_mat(g, s.tokens, gamma * s.tokens);
        t.activation = Activation::square;
        mix.op = std::move(t);
      } else {
        ChannelMix<Fmpq> c;
        c.W = random_mat(g, gamma ? gamma * s.width : s.width, s.width);
        if (gamma) c.W2 = random_mat(g, s.width, gamma * s.width);
        c.activation = Activation::square;
        mix.op = std::move(c);
      }
      if (!o.permuted) {
        mix.residual = s.residual;
        m.layers.push_back(std::move(mix));
        continue;
      }
      // One layer of the model per layer of NB eq. (3) (so prefix(net, k) is
      // its first k layers): [pi_o, the mixing layer] (+ [pi_r]).
      const std::size_t n = m.tokens * s.width;
      Branches<Fmpq> b;
      Layer<Fmpq> pi_o{Permute{random_permutation(perm_rng, n)}, false};
      if (o.perm_sum > 1) {
        Branches<Fmpq> sum;  // pi_1(X) + ... + pi_s(X)
        sum.branches.push_back({std::move(pi_o)});
        for (std::size_t j = 1; j < o.perm_sum; ++j)
          sum.branches.push_back({Layer<Fmpq>{Permute{random_permutation(perm_rng, n)}, false}});
        pi_o = Layer<Fmpq>{std::move(sum), false};
      }
      b.branches.push_back({std::move(pi_o), std::move(mix)});
      if (s.residual) b.branches.push_back({Layer<Fmpq>{Permute{random_permutation(perm_rng, n)}, false}});
      m.layers.push_back({std::move(b), false});
    }
  } else {
    require(s.block_degree() >= 1 && s.block_degree() <= 16, "--degree must be in [1, 16]");
    for (std::size_t l = 0; l < s.layers; ++l) {
      Product<Fmpq> p;
      for (std::size_t k = 0; k < s.block_degree(); ++k) p.Ws.push_back(random_mat(g, s.width, s.width));
      m.layers.push_back({std::move(p), s.residual});
    }
  }
  m.name = shape_label(s, LabelStyle::model_name) + (o.permuted ? "-perm" : "") +
           (o.perm_sum > 1 ? std::to_string(o.perm_sum) : "") + (o.expansion ? "-x" + std::to_string(o.expansion) : "");
  // Analyses default to y[0][0]; `--all` covers every entry.
  m.output = Entry{0, 0};
  return m;
}

}  // namespace netpoly
