// Degree-k product block (AO Comment 3.1, per token): Y = (X W1^T) ⊙ ... ⊙
// (X Wk^T). Format: {"type": "product", "Ws": [W1, ..., Wk]}, each d' x d,
// and optionally "bs": [b1, ..., bk] (d' entries each): the factors are then
// X Wj^T + 1 bj^T (products of PyTorch Linear layers).
#pragma once
#include <string>
#include <utility>

#include "netpoly/layers/common.hpp"

namespace netpoly {

template <class S>
struct Product {
  static constexpr const char* kind = "product";
  static constexpr LayerRole role = LayerRole::product;
  std::vector<Mat<S>> Ws;  // k matrices, each d' x d
  std::vector<Bias<S>> bs;  // empty, or one optional bias per factor

  template <class F>
  auto map(F&& f) const {
    Product<decltype(f(std::declval<S>()))> r;
    for (const auto& w : Ws) r.Ws.push_back(w.map(f));
    for (const auto& b : bs) r.bs.push_back(map_bias(b, f));
    return r;
  }
  std::size_t out_width(std::size_t) const { return Ws.empty() ? 0 : Ws[0].rows; }
  double degree() const { return static_cast<double>(Ws.size()); }
  // The family's size parameter: the block degree k.
  std::size_t family_size() const { return Ws.size(); }
  bool has_bias() const {
    for (const auto& b : bs)
      if (b) return true;
    return false;
  }
  bool homogeneous() const { return !has_bias(); }
  // Factor k's bias (none when the layer has no "bs").
  const Bias<S>& bias(std::size_t k) const {
    static const Bias<S> none;
    return k < bs.size() ? bs[k] : none;
  }
  template <class F>
  void for_each_named_matrix(F&& f) const {  // W1 .. Wk
    for (std::size_t k = 0; k < Ws.size(); ++k) f("W" + std::to_string(k + 1), std::size_t{0}, Ws[k]);
  }
  template <class F>
  void for_each_matrix(F&& f) const {
    for (const auto& w : Ws) f(w);
    for (const auto& b : bs)
      if (b) f(*b);
  }

  template <class Rd, class Json>
  static Product read(const Rd& r, const Json& o, const std::string& lp, std::size_t, std::size_t d) {
    r.keys(o, lp, {"type", "residual", "Ws", "bs"}, {"Ws"});
    const Json& ws = o["Ws"];
    std::string wp = Rd::join(lp, "Ws");
    if (!ws.is_array() || ws.empty()) r.fail(wp, "expected a non-empty list of matrices, got " + Rd::kind(ws));
    Product pr;
    std::size_t dd = r.row_count(ws[0], Rd::idx(wp, 0));
    for (std::size_t k = 0; k < ws.size(); ++k)
      pr.Ws.push_back(r.matrix(ws[k], Rd::idx(wp, k), dd, d, "each W is d' x d, all of the same d'"));
    if (o.contains("bs")) {
      const Json& bj = o["bs"];
      const std::string bp = Rd::join(lp, "bs");
      if (!bj.is_array() || bj.size() != ws.size())
        r.fail(bp, "expected a list of " + std::to_string(ws.size()) + " biases (one per matrix of Ws), got " +
                       Rd::kind(bj));
      for (std::size_t k = 0; k < bj.size(); ++k)
        pr.bs.push_back(r.vector(bj[k], Rd::idx(bp, k), dd, "each bias has one entry per row of its W (d')"));
    }
    return pr;
  }

  template <class Wr>
  void write(Wr& w) const {
    w.os << ",\n" << w.in << "\"Ws\": [";
    for (std::size_t k = 0; k < Ws.size(); ++k) {
      if (k) w.os << ",\n" << w.in << "       ";
      w.matrix(Ws[k], w.in + "       ");
    }
    w.os << "]";
    if (!bs.empty()) {
      w.os << ",\n" << w.in << "\"bs\": [";
      for (std::size_t k = 0; k < bs.size(); ++k) {
        if (k) w.os << ", ";
        w.vector(bs[k] ? *bs[k] : Mat<S>(Ws[k].rows, 1));
      }
      w.os << "]";
    }
  }

  template <class Ring>
  std::vector<typename Ring::Elem> apply(const Ring& R, const std::vector<typename Ring::Elem>& X, std::size_t N,
                                         std::size_t d, const Need& need) const {
    using E = typename Ring::Elem;
    const std::size_t dout = out_width(d);
    std::vector<E> Y(N * dout, R.zero());
    detail::tasks(R, N * dout, [&](std::size_t t) {
      if (!detail::wanted(need, t)) return;
      const std::size_t i = t / dout, c = t % dout;
      for (std::size_t k = 0; k < Ws.size(); ++k) {
        E f = R.zero();
        detail::affine_row(R, f, Ws[k], bias(k), c, X, i * d, 1);
        Y[t] = k == 0 ? std::move(f) : R.mul(Y[t], f);
      }
    }, !detail::worth_threads(R, X[0], X[0]));
    return Y;
  }

  bool operator==(const Product&) const = default;
};

}  // namespace netpoly
