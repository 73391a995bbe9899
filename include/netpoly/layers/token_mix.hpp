// Token mixing (NB Def 3.2): Y = W2 act(W X), mixing the N tokens of each
// channel. Format: {"type": "token_mix", "W", "W2"?, "activation"?, "b"?,
// "b2"?}: without W2, W is N x N; with W2 (a two-layer MLP over the tokens,
// WS's expansion factor), W is h x N and W2 N x h for a hidden number of
// tokens h; activation "none" or "square". With biases
// Y = W2 act(W X + b 1^T) + b2 1^T (b: one entry per row of W, b2: N entries,
// the same for every channel: a PyTorch Linear over the token axis).
#pragma once
#include <optional>
#include <string>
#include <utility>

#include "netpoly/layers/common.hpp"

namespace netpoly {

template <class S>
struct TokenMix : MixWeights<S> {
  using MixWeights<S>::W;
  using MixWeights<S>::W2;
  using MixWeights<S>::activation;
  static constexpr const char* kind = "token_mix";
  static constexpr LayerRole role = LayerRole::token_mixing;

  template <class F>
  auto map(F&& f) const {
    TokenMix<decltype(f(std::declval<S>()))> r;
    this->map_into(r, f);
    return r;
  }
  std::size_t out_width(std::size_t d) const { return d; }

  template <class Rd, class Json>
  static TokenMix read(const Rd& r, const Json& o, const std::string& lp, std::size_t N, std::size_t) {
    r.keys(o, lp, {"type", "residual", "W", "W2", "activation", "b", "b2"}, {"W"});
    TokenMix tm;
    if (o.contains("W2")) {
      const std::size_t h = r.row_count(o["W"], Rd::join(lp, "W"));
      tm.W = r.matrix(o["W"], Rd::join(lp, "W"), h, N, "W is h x N (h hidden tokens)");
      tm.W2 = r.matrix(o["W2"], Rd::join(lp, "W2"), N, h, "W2 is N x h (h the rows of W)");
    } else {
      tm.W = r.matrix(o["W"], Rd::join(lp, "W"), N, N, "W is N x N");
    }
    tm.activation = r.activation(o, lp);
    tm.read_biases(r, o, lp);
    return tm;
  }

  template <class Ring>
  std::vector<typename Ring::Elem> apply(const Ring& R, const std::vector<typename Ring::Elem>& X, std::size_t N,
                                         std::size_t d, const Need& need) const {
    using E = typename Ring::Elem;
    using detail::wanted, detail::lin_row;
    const std::size_t h = W.rows;  // hidden tokens (N without W2)
    Need needZ(h * d, need.empty() ? 1 : 0);
    if (!need.empty())
      for (std::size_t i = 0; i < N; ++i)
        for (std::size_t c = 0; c < d; ++c) {
          if (!need[i * d + c]) continue;
          if (!W2) { needZ[i * d + c] = 1; continue; }
          for (std::size_t k = 0; k < h; ++k)
            if (!R.is_zero((*W2)(i, k))) needZ[k * d + c] = 1;
        }
    std::vector<E> Z(h * d, R.zero());
    detail::tasks(R, h * d, [&](std::size_t k) {
      if (!needZ[k]) return;
      detail::affine_row(R, Z[k], W, this->b, k / d, X, k % d, d);
      detail::activate(R, Z[k], activation);
    }, !detail::worth_threads(R, X[0], X[0]));
    if (!W2) return Z;
    std::vector<E> Y(N * d, R.zero());
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t c = 0; c < d; ++c)
        if (wanted(need, i * d + c)) detail::affine_row(R, Y[i * d + c], *W2, this->b2, i, Z, c, d);
    return Y;
  }

  bool operator==(const TokenMix&) const = default;
};

}  // namespace netpoly
