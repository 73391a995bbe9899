// Random small models for the randomized tests (test_differential.cpp,
// test_gauss.cpp, test_gram.cpp): every layer kind (attention, token_mix,
// channel_mix with rectangular weights, product, permute, sums of branches),
// rational or Gaussian weights, residual connections, as netpoly-model/1
// JSON.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/gauss.hpp"
#include "runtime/random.hpp"

namespace netpoly::test_models {

using json = nlohmann::json;

// A random Gaussian weight: small integer or rational parts, either part often 0.
inline std::string gaussian_weight(SplitMix64& g) {
  Fmpq re(static_cast<slong>(g.symmetric(2))), im(static_cast<slong>(g.symmetric(2)));
  if (g.below(4) == 0) re = Fmpq(static_cast<slong>(g.symmetric(3)), 2);
  return gaussian_text(re, im);
}

// The layer kinds random_layers draws from (a mask of these bits).
enum Kinds : unsigned {
  kAttention = 1,
  kTokenMix = 2,
  kChannelMix = 4,
  kProduct = 8,
  kPermute = 16,
  kBranches = 32,
  kAll = 63,
};

struct Gen {
  SplitMix64 g;
  // Biases come from a stream of their own: the models' layers and matrices
  // are those the generator drew before it had biases, with biases added.
  SplitMix64 gb;
  bool gaussian = false;  // weights a+bi
  bool with_biases = true;
  explicit Gen(std::uint64_t seed, bool gauss = false)
      : g(seed), gb(seed * 104729 + 1), gaussian(gauss) {}
  std::uint64_t below(std::uint64_t n) { return g.below(n); }
  // Mostly small integers, sometimes a rational "p/q", sometimes 0.
  json weight(SplitMix64& s) {
    if (gaussian) return gaussian_weight(s);
    const auto r = s.below(10);
    if (r == 0) return 0;
    const std::int64_t p = s.symmetric(3);
    if (r <= 2 && p != 0) return std::to_string(p) + "/" + std::to_string(2 + s.below(3));
    return p;
  }
  json weight() { return weight(g); }
  // A bias of n entries in o[key], half the time.
  void maybe_bias(json& o, const char* key, std::size_t n) {
    if (gb.below(2)) return;
    json b = json::array();
    for (std::size_t i = 0; i < n; ++i) b.push_back(weight(gb));
    o[key] = b;
  }
  // Biases on a third of the layers: any of the layer's bias fields.
  void biases(json& L, std::size_t N, std::size_t dout) {
    if (!with_biases || gb.below(3)) return;
    const std::string t = L["type"];
    if (t == "attention") {
      for (auto& h : L["heads"]) {
        const std::size_t da = h["Q"].size(), d = h["O"].size();
        maybe_bias(h, "bQ", da);
        maybe_bias(h, "bK", da);
        maybe_bias(h, "bV", da);
        maybe_bias(h, "bO", d);
      }
    } else if (t == "token_mix") {
      maybe_bias(L, "b", N);
      if (L.contains("W2")) maybe_bias(L, "b2", N);
    } else if (t == "channel_mix") {
      maybe_bias(L, "b", L["W"].size());
      if (L.contains("W2")) maybe_bias(L, "b2", dout);
    } else if (t == "product") {
      if (gb.below(2)) return;
      L["bs"] = json::array();
      for (std::size_t k = 0; k < L["Ws"].size(); ++k) {
        json b = json::array();
        for (std::size_t i = 0; i < dout; ++i) b.push_back(weight(gb));
        L["bs"].push_back(b);
      }
    }
  }
  json matrix(std::size_t rows, std::size_t cols) {
    json m = json::array();
    for (std::size_t i = 0; i < rows; ++i) {
      json row = json::array();
      for (std::size_t j = 0; j < cols; ++j) row.push_back(weight());
      m.push_back(row);
    }
    return m;
  }
};

// A random list of `count` layers from width d (updated to the end width),
// keeping the total degree (degree, updated) at most 12; `nest` levels of
// sums of branches may still open.
inline json random_layers(Gen& G, std::size_t N, std::size_t& d, std::size_t& degree, std::size_t count, int nest,
                          unsigned kinds = kAll) {
  json layers = json::array();
  for (std::size_t l = 0; l < count; ++l) {
    json L;
    std::size_t f = 1, dout = d;
    std::uint64_t kind = G.below(nest > 0 ? 6 : 5);
    for (int t = 0; t < 64 && !((kinds >> kind) & 1U); ++t) kind = G.below(nest > 0 ? 6 : 5);
    if (!((kinds >> kind) & 1U)) continue;
    switch (kind) {
      case 0: {  // attention, 1-2 heads
        if (degree * 3 > 12) continue;
        L["type"] = "attention";
        L["heads"] = json::array();
        const std::size_t H = 1 + G.below(2);
        for (std::size_t h = 0; h < H; ++h) {
          const std::size_t da = 1 + G.below(2);
          L["heads"].push_back({{"Q", G.matrix(da, d)}, {"K", G.matrix(da, d)}, {"V", G.matrix(da, d)},
                                {"O", G.matrix(d, da)}});
        }
        f = 3;
        break;
      }
      case 1: {  // token_mix
        L["type"] = "token_mix";
        L["W"] = G.matrix(N, N);
        if (G.below(2)) L["W2"] = G.matrix(N, N);
        const bool sq = G.below(2) && degree * 2 <= 12;
        L["activation"] = sq ? "square" : "none";
        f = sq ? 2 : 1;
        break;
      }
      case 2: {  // channel_mix, possibly rectangular
        L["type"] = "channel_mix";
        const std::size_t h = 1 + G.below(3);
        L["W"] = G.matrix(h, d);
        dout = h;
        if (G.below(2)) {
          dout = 1 + G.below(3);
          L["W2"] = G.matrix(dout, h);
        }
        const bool sq = G.below(2) && degree * 2 <= 12;
        L["activation"] = sq ? "square" : "none";
        f = sq ? 2 : 1;
        break;
      }
      case 3: {  // product of k = 2..3 factors
        const std::size_t k = 2 + G.below(2);
        if (degree * k > 12) continue;
        L["type"] = "product";
        dout = 1 + G.below(3);
        L["Ws"] = json::array();
        for (std::size_t q = 0; q < k; ++q) L["Ws"].push_back(G.matrix(dout, d));
        f = k;
        break;
      }
      case 4: {  // permute
        L["type"] = "permute";
        std::vector<std::size_t> perm(N * d);
        for (std::size_t t = 0; t < perm.size(); ++t) perm[t] = t;
        for (std::size_t t = perm.size(); t > 1; --t) std::swap(perm[t - 1], perm[G.below(t)]);
        L["perm"] = perm;
        break;
      }
      default: {  // branches: 1-3 lists of 0-2 layers, each ending at the first one's width
        L["type"] = "branches";
        L["branches"] = json::array();
        const std::size_t r = 1 + G.below(3);
        std::size_t fmax = 1;
        for (std::size_t b = 0; b < r; ++b)
          for (int attempt = 0; attempt < 20; ++attempt) {  // a later branch must end at branch 0's width
            std::size_t db = d, gb = degree;
            json bl = random_layers(G, N, db, gb, G.below(3), nest - 1);
            if (b == 0) dout = db;
            if (db != dout) continue;
            L["branches"].push_back(bl);
            fmax = std::max(fmax, gb / degree);
            break;
          }
        f = fmax;
        break;
      }
    }
    if (dout == d && G.below(3) == 0) L["residual"] = true;
    G.biases(L, N, dout);
    degree *= f;
    d = dout;
    layers.push_back(L);
  }
  return layers;
}

// A random model with N tokens and d channels, of total degree at most 12.
inline json random_model(std::uint64_t seed) {
  Gen G(seed);
  const std::size_t N = 1 + G.below(3), d0 = 1 + G.below(3);
  std::size_t d = d0, degree = 1;
  json layers = random_layers(G, N, d, degree, 1 + G.below(3), 2);
  json m = {{"format", "netpoly-model/1"},
            {"name", "random-" + std::to_string(seed)},
            {"input", {{"tokens", N}, {"width", d0}}},
            {"layers", layers}};
  return m;
}

// A random model of attention layers only (1-2 heads of width 1-2, residuals
// sometimes): N tokens (1-4), d channels (1-4), degree at most 9.
inline json random_attention_model(std::uint64_t seed, bool gaussian = false) {
  Gen G(seed, gaussian);
  G.with_biases = false;  // gram's form x_o * Phi(M) holds without biases (gram declines them)
  const std::size_t N = 1 + G.below(4), d0 = 1 + G.below(4);
  std::size_t d = d0, degree = 1;
  json layers;
  for (int t = 0; t < 8 && (layers.is_null() || layers.empty()); ++t)
    layers = random_layers(G, N, d, degree, 1 + G.below(2), 0, kAttention);
  return {{"format", "netpoly-model/1"},
          {"name", "random-attention-" + std::to_string(seed)},
          {"input", {{"tokens", N}, {"width", d0}}},
          {"layers", layers}};
}

}  // namespace netpoly::test_models
