// Softmax-free multi-head self-attention (LV eq. (1)): per head
// y_i = O (sum_j (V x_j)(K x_j)^T) Q x_i, the heads summed. Degree 3.
// Format: {"type": "attention", "heads": [{"Q", "K", "V", "O"}, ...]},
// Q, K, V da x d and O d x da.
#pragma once
#include <string>
#include <utility>

#include "netpoly/layers/common.hpp"

namespace netpoly {

template <class S>
struct AttentionHead {
  Mat<S> Q, K, V, O;  // Q,K,V: da x d; O: d x da
  bool operator==(const AttentionHead&) const = default;
};

template <class S>
struct Attention {
  static constexpr const char* kind = "attention";
  static constexpr LayerRole role = LayerRole::attention;
  std::vector<AttentionHead<S>> heads;

  template <class F>
  auto map(F&& f) const {
    Attention<decltype(f(std::declval<S>()))> r;
    for (const auto& h : heads) r.heads.push_back({h.Q.map(f), h.K.map(f), h.V.map(f), h.O.map(f)});
    return r;
  }
  std::size_t out_width(std::size_t d) const { return d; }
  double degree() const { return 3; }
  // The family's size parameter: heads.
  std::size_t family_size() const { return heads.size(); }
  template <class F>
  void for_each_matrix(F&& f) const {
    for (const auto& h : heads) {
      f(h.Q);
      f(h.K);
      f(h.V);
      f(h.O);
    }
  }

  template <class Rd, class Json>
  static Attention read(const Rd& r, const Json& o, const std::string& lp, std::size_t, std::size_t d) {
    r.keys(o, lp, {"type", "residual", "heads"}, {"heads"});
    const Json& hs = o["heads"];
    std::string hp = Rd::join(lp, "heads");
    if (!hs.is_array() || hs.empty()) r.fail(hp, "expected a non-empty list of heads, got " + Rd::kind(hs));
    Attention a;
    for (std::size_t h = 0; h < hs.size(); ++h) {
      std::string p = Rd::idx(hp, h);
      r.keys(hs[h], p, {"Q", "K", "V", "O"}, {"Q", "K", "V", "O"});
      std::size_t da = r.row_count(hs[h]["Q"], Rd::join(p, "Q"));
      a.heads.push_back({r.matrix(hs[h]["Q"], Rd::join(p, "Q"), da, d, "Q is da x d"),
                         r.matrix(hs[h]["K"], Rd::join(p, "K"), da, d, "K is da x d"),
                         r.matrix(hs[h]["V"], Rd::join(p, "V"), da, d, "V is da x d"),
                         r.matrix(hs[h]["O"], Rd::join(p, "O"), d, da, "O is d x da")});
    }
    return a;
  }

  template <class Wr>
  void write(Wr& w) const {
    w.os << ",\n" << w.in << "\"heads\": [";
    for (std::size_t h = 0; h < heads.size(); ++h) {
      const auto& hd = heads[h];
      const std::string hi = w.in + "  ";
      w.os << (h ? ",\n" : "\n") << hi << "{";
      const char* names[] = {"Q", "K", "V", "O"};
      const Mat<S>* mats[] = {&hd.Q, &hd.K, &hd.V, &hd.O};
      for (int k = 0; k < 4; ++k) {
        w.os << (k ? ",\n" + hi + " " : "") << "\"" << names[k] << "\": ";
        w.matrix(*mats[k], hi + std::string(6, ' '));
      }
      w.os << "}";
    }
    w.os << "]";
  }

  // Per head M = sum_j (V x_j)(K x_j)^T, then y_i = O M Q x_i.
  template <class Ring>
  std::vector<typename Ring::Elem> apply(const Ring& R, const std::vector<typename Ring::Elem>& X, std::size_t N,
                                         std::size_t d, const Need& need) const {
    using E = typename Ring::Elem;
    using detail::wanted, detail::lin_row, detail::tasks, detail::worth_threads;
    std::vector<E> Y(N * d, R.zero());
    std::size_t needed = 0;
    for (std::size_t k = 0; k < N * d; ++k) needed += wanted(need, k);
    for (const auto& h : heads) {
      const std::size_t da = h.Q.rows;
      std::vector<E> Kx(N * da, R.zero()), Vx(N * da, R.zero());
      for (std::size_t j = 0; j < N; ++j)
        for (std::size_t a = 0; a < da; ++a) {
          lin_row(R, Kx[j * da + a], h.K, a, X, j * d, 1);
          lin_row(R, Vx[j * da + a], h.V, a, X, j * d, 1);
        }
      auto query = [&](std::size_t i) {
        std::vector<E> q(da, R.zero());
        for (std::size_t b = 0; b < da; ++b) lin_row(R, q[b], h.Q, b, X, i * d, 1);
        return q;
      };
      if (needed <= d) {
        // Few entries asked (the last layer of an analysis): for each channel c,
        // w = (O M)[c,:] = sum_j (O V x_j)[c] (K x_j)^T costs N*da products
        // instead of the N*da^2 of the whole M.
        for (std::size_t c = 0; c < d; ++c) {
          bool any = false;
          for (std::size_t i = 0; i < N; ++i) any = any || wanted(need, i * d + c);
          if (!any) continue;
          std::vector<E> s(N, R.zero());  // s_j = O[c,:] V x_j
          for (std::size_t j = 0; j < N; ++j)
            for (std::size_t a = 0; a < da; ++a)
              if (!R.is_zero(h.O(c, a))) R.axpy(s[j], h.O(c, a), Vx[j * da + a]);
          std::vector<E> w(da, R.zero());
          tasks(R, da, [&](std::size_t b) {
            for (std::size_t j = 0; j < N; ++j) R.addmul(w[b], s[j], Kx[j * da + b]);
          }, !worth_threads(R, s[0], Kx[0]));
          for (std::size_t i = 0; i < N; ++i) {
            if (!wanted(need, i * d + c)) continue;
            detail::dot(R, Y[i * d + c], w, query(i));
          }
        }
        continue;
      }
      std::vector<E> M(da * da, R.zero());  // M[a][b] = sum_j (V x_j)[a] (K x_j)[b]
      tasks(R, da * da, [&](std::size_t k) {
        for (std::size_t j = 0; j < N; ++j) R.addmul(M[k], Vx[j * da + k / da], Kx[j * da + k % da]);
      }, !worth_threads(R, Vx[0], Kx[0]));
      for (std::size_t i = 0; i < N; ++i) {
        bool any = false;
        for (std::size_t c = 0; c < d; ++c) any = any || wanted(need, i * d + c);
        if (!any) continue;
        auto q = query(i);
        std::vector<E> u(da, R.zero());  // u = M q_i
        tasks(R, da, [&](std::size_t a) {
          for (std::size_t b = 0; b < da; ++b) R.addmul(u[a], M[a * da + b], q[b]);
        }, !worth_threads(R, M[0], q[0]));
        for (std::size_t c = 0; c < d; ++c)
          if (wanted(need, i * d + c)) lin_row(R, Y[i * d + c], h.O, c, u, 0, 1);
      }
    }
    return Y;
  }

  bool operator==(const Attention&) const = default;
};

}  // namespace netpoly
