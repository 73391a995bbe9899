// Channel mixing (NB Def 3.1/3.2): Y = act(X W^T) W2^T, the same MLP on every
// token. Format: {"type": "channel_mix", "W", "W2"?, "activation"?, "b"?,
// "b2"?}, W h x d, W2 d' x h, activation "none" or "square"; with biases
// Y = act(X W^T + 1 b^T) W2^T + 1 b2^T (b: h entries, b2: d').
#pragma once
#include <optional>
#include <string>
#include <utility>

#include "netpoly/layers/common.hpp"

namespace netpoly {

template <class S>
struct ChannelMix : MixWeights<S> {
  using MixWeights<S>::W;
  using MixWeights<S>::W2;
  using MixWeights<S>::activation;
  static constexpr const char* kind = "channel_mix";
  static constexpr LayerRole role = LayerRole::channel_mixing;

  template <class F>
  auto map(F&& f) const {
    ChannelMix<decltype(f(std::declval<S>()))> r;
    this->map_into(r, f);
    return r;
  }
  std::size_t out_width(std::size_t) const { return W2 ? W2->rows : W.rows; }

  template <class Rd, class Json>
  static ChannelMix read(const Rd& r, const Json& o, const std::string& lp, std::size_t, std::size_t d) {
    r.keys(o, lp, {"type", "residual", "W", "W2", "activation", "b", "b2"}, {"W"});
    ChannelMix cm;
    std::size_t h = r.row_count(o["W"], Rd::join(lp, "W"));
    cm.W = r.matrix(o["W"], Rd::join(lp, "W"), h, d, "W is h x d");
    if (o.contains("W2")) {
      std::size_t dd = r.row_count(o["W2"], Rd::join(lp, "W2"));
      cm.W2 = r.matrix(o["W2"], Rd::join(lp, "W2"), dd, h, "W2 is d' x h");
    }
    cm.activation = r.activation(o, lp);
    cm.read_biases(r, o, lp);
    return cm;
  }

  template <class Ring>
  std::vector<typename Ring::Elem> apply(const Ring& R, const std::vector<typename Ring::Elem>& X, std::size_t N,
                                         std::size_t d, const Need& need) const {
    using E = typename Ring::Elem;
    using detail::wanted, detail::lin_row;
    const std::size_t h = W.rows, dout = out_width(d);
    Need needZ(N * h, need.empty() ? 1 : 0);
    if (!need.empty())
      for (std::size_t i = 0; i < N; ++i)
        for (std::size_t c = 0; c < dout; ++c) {
          if (!need[i * dout + c]) continue;
          if (!W2) { needZ[i * h + c] = 1; continue; }
          for (std::size_t k = 0; k < h; ++k)
            if (!R.is_zero((*W2)(c, k))) needZ[i * h + k] = 1;
        }
    std::vector<E> Z(N * h, R.zero());
    detail::tasks(R, N * h, [&](std::size_t t) {
      if (!needZ[t]) return;
      detail::affine_row(R, Z[t], W, this->b, t % h, X, (t / h) * d, 1);
      detail::activate(R, Z[t], activation);
    }, !detail::worth_threads(R, X[0], X[0]));
    if (!W2) return Z;
    std::vector<E> Y(N * dout, R.zero());
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t c = 0; c < dout; ++c)
        if (wanted(need, i * dout + c)) detail::affine_row(R, Y[i * dout + c], *W2, this->b2, c, Z, i * h, 1);
    return Y;
  }

  bool operator==(const ChannelMix&) const = default;
};

}  // namespace netpoly
