#include "netpoly/presets.hpp"

#include "netpoly/error.hpp"
#include "netpoly/limits.hpp"

namespace netpoly {

PresetOptions preset_options(const BoundParams& p, std::uint64_t seed, std::int64_t range) {
  return PresetOptions{.arch = arch_name(p.arch),
                       .layers = p.layers,
                       .width = p.width,
                       .heads = p.heads,
                       .tokens = p.tokens,
                       .degree = p.degree,
                       .residual = p.residual,
                       .seed = seed,
                       .range = range};
}

namespace {

Mat<Fmpq> random_mat(SplitMix64& g, std::size_t r, std::size_t c, std::int64_t range) {
  Mat<Fmpq> m(r, c);
  for (auto& x : m.a) x = Fmpq(static_cast<slong>(g.symmetric(range)));
  return m;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw InputError("make: " + what);
}

}  // namespace

Model make_preset(const PresetOptions& o) {
  require(o.layers >= 1 && o.layers <= 64, "--layers must be in [1, 64]");
  require(o.width >= 1 && o.width <= 4096, "--width must be in [1, 4096]");
  require(o.tokens >= 1 && o.tokens <= 4096, "--tokens must be in [1, 4096]");
  require(o.range >= 1 && o.range <= (INT64_C(1) << 40), "--range must be in [1, 2^40]");
  // Refused up front beyond the memory limit: at most 4 d^2 (attention, a
  // product of up to 64 factors 64 d^2), N^2 or d^2 weights a layer, each an
  // fmpq (16 bytes) held about three times (the model, and a copy per ring
  // the work runs in).
  {
    const double d = static_cast<double>(o.width), N = static_cast<double>(o.tokens);
    const double k = static_cast<double>(std::max<std::size_t>(o.degree, 4));
    const double weights = static_cast<double>(o.layers) * std::max(k * d * d, N * N);
    check_memory_estimate(weights * 48.0, "a preset with up to " + std::to_string(static_cast<long long>(weights)) +
                                              " weights");
  }
  SplitMix64 g(o.seed);
  Model m;
  m.width = o.width;
  m.tokens = o.tokens;
  const std::string res = o.residual ? "-res" : "";
  if (o.arch == "attention") {
    require(o.heads >= 1 && o.width % o.heads == 0, "--heads must divide --width");
    const std::size_t da = o.width / o.heads;
    for (std::size_t l = 0; l < o.layers; ++l) {
      Attention<Fmpq> a;
      for (std::size_t h = 0; h < o.heads; ++h)
        a.heads.push_back({random_mat(g, da, o.width, o.range), random_mat(g, da, o.width, o.range),
                           random_mat(g, da, o.width, o.range), random_mat(g, o.width, da, o.range)});
      m.layers.push_back({std::move(a), o.residual});
    }
    m.name = "attention-L" + std::to_string(o.layers) + "-d" + std::to_string(o.width) + "-H" +
             std::to_string(o.heads) + "-N" + std::to_string(o.tokens) + res;
  } else if (o.arch == "mixer") {
    // NB Def 3.2: odd layers mix tokens (sigma2(W X)), even layers mix channels (sigma2(X W)).
    for (std::size_t l = 0; l < o.layers; ++l) {
      if (l % 2 == 0) {
        TokenMix<Fmpq> t;
        t.W = random_mat(g, o.tokens, o.tokens, o.range);
        t.activation = Activation::square;
        m.layers.push_back({std::move(t), o.residual});
      } else {
        ChannelMix<Fmpq> c;
        c.W = random_mat(g, o.width, o.width, o.range);
        c.activation = Activation::square;
        m.layers.push_back({std::move(c), o.residual});
      }
    }
    m.name = "mixer-p" + std::to_string(o.layers) + "-N" + std::to_string(o.tokens) + "-d" +
             std::to_string(o.width) + res;
  } else if (o.arch == "mlp") {
    // NB Def 3.1: L_i(x) = sigma2(W_i x) (+ x with residuals), one token.
    m.tokens = 1;
    for (std::size_t l = 0; l < o.layers; ++l) {
      ChannelMix<Fmpq> c;
      c.W = random_mat(g, o.width, o.width, o.range);
      c.activation = Activation::square;
      m.layers.push_back({std::move(c), o.residual});
    }
    m.name = "mlp-p" + std::to_string(o.layers) + "-d" + std::to_string(o.width) + res;
  } else if (o.arch == "product") {
    require(o.degree >= 1 && o.degree <= 16, "--degree must be in [1, 16]");
    for (std::size_t l = 0; l < o.layers; ++l) {
      Product<Fmpq> p;
      for (std::size_t k = 0; k < o.degree; ++k) p.Ws.push_back(random_mat(g, o.width, o.width, o.range));
      m.layers.push_back({std::move(p), o.residual});
    }
    m.name = "product-k" + std::to_string(o.degree) + "-L" + std::to_string(o.layers) + "-d" +
             std::to_string(o.width) + (o.tokens > 1 ? "-N" + std::to_string(o.tokens) : "") + res;
  } else {
    throw InputError("make: unknown architecture \"" + o.arch + "\" (expected attention, mixer, mlp or product)");
  }
  // Analyses default to y[0][0]; `--all` covers every entry.
  m.output = Entry{0, 0};
  return m;
}

}  // namespace netpoly
