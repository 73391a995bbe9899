// Channel mixing (NB Def 3.1/3.2): Y = act(X W^T) W2^T, the same MLP on every
// token. Format: {"type": "channel_mix", "W", "W2"?, "activation"?}, W h x d,
// W2 d' x h, activation "none" or "square".
#pragma once
#include <optional>
#include <string>
#include <utility>

#include "netpoly/layers/common.hpp"

namespace netpoly {

template <class S>
struct ChannelMix {
  static constexpr const char* kind = "channel_mix";
  static constexpr LayerRole role = LayerRole::channel_mixing;
  Mat<S> W;                  // h x d
  std::optional<Mat<S>> W2;  // d' x h
  Activation activation = Activation::none;

  template <class F>
  auto map(F&& f) const {
    ChannelMix<decltype(f(std::declval<S>()))> r;
    r.W = W.map(f);
    if (W2) r.W2 = W2->map(f);
    r.activation = activation;
    return r;
  }
  std::size_t out_width(std::size_t) const { return W2 ? W2->rows : W.rows; }
  double degree() const { return activation == Activation::square ? 2 : 1; }
  std::size_t family_size() const { return 0; }
  template <class F>
  void for_each_matrix(F&& f) const {
    f(W);
    if (W2) f(*W2);
  }

  template <class Rd, class Json>
  static ChannelMix read(const Rd& r, const Json& o, const std::string& lp, std::size_t, std::size_t d) {
    r.keys(o, lp, {"type", "residual", "W", "W2", "activation"}, {"W"});
    ChannelMix cm;
    std::size_t h = r.row_count(o["W"], Rd::join(lp, "W"));
    cm.W = r.matrix(o["W"], Rd::join(lp, "W"), h, d, "W is h x d");
    if (o.contains("W2")) {
      std::size_t dd = r.row_count(o["W2"], Rd::join(lp, "W2"));
      cm.W2 = r.matrix(o["W2"], Rd::join(lp, "W2"), dd, h, "W2 is d' x h");
    }
    cm.activation = r.activation(o, lp);
    return cm;
  }

  template <class Wr>
  void write(Wr& w) const {
    w.os << ",\n" << w.in << "\"W\": ";
    w.matrix(W, w.in + "     ");
    if (W2) {
      w.os << ",\n" << w.in << "\"W2\": ";
      w.matrix(*W2, w.in + "      ");
    }
    w.activation(activation);
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
      lin_row(R, Z[t], W, t % h, X, (t / h) * d, 1);
      detail::activate(R, Z[t], activation);
    }, !detail::worth_threads(R, X[0], X[0]));
    if (!W2) return Z;
    std::vector<E> Y(N * dout, R.zero());
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t c = 0; c < dout; ++c)
        if (wanted(need, i * dout + c)) lin_row(R, Y[i * dout + c], *W2, c, Z, i * h, 1);
    return Y;
  }

  bool operator==(const ChannelMix&) const = default;
};

}  // namespace netpoly
