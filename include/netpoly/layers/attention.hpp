// Softmax-free multi-head self-attention (LV eq. (1)): per head
// y_i = O (sum_j (V x_j)(K x_j)^T) Q x_i, the heads summed. Degree 3.
// Format: {"type": "attention", "heads": [{"Q", "K", "V", "O"}, ...]},
// Q, K, V da x d and O d x da. A head may carry biases "bQ", "bK", "bV" (da
// entries each) and "bO" (d): q_i = Q x_i + bQ, k_j = K x_j + bK, v_j =
// V x_j + bV, and y_i = sum_j <q_i, k_j> O v_j + bO (the heads summed, each
// head's bO added once) — attention written with PyTorch Linear layers.
//
// The degree-k block (AO eq. (2), read as a token-mixing block; the choice
// and why: docs/model-format.md): per head, score matrices
// S_j = (X Q_j^T)(X K_j^T)^T (N x N, degree 2 each, j = 1..m; S_1 from Q, K,
// S_2.. from "extra"), then
//   odd k = 2m + 1:  Y = S_1 S_2 ... S_m X V^T O^T          (k = 3: attention)
//   even k = 2m:     Y = S_1 S_2 ... S_m C, C an N x d matrix of learned values.
// Format: a head may add "extra": [{"Q", "K"}, ...] and give "C" (N x d)
// instead of "V" and "O"; the layer may state "degree": k (checked).
//
// "causal": true masks every score matrix below its diagonal, as decoder-only
// models do (LV §5): S[i][j] = 0 for j > i, so token i reads tokens 0..i only
// (y_i = sum_{j <= i} <q_i, k_j> O v_j for a degree-3 head).
#pragma once
#include <optional>
#include <string>
#include <utility>

#include "netpoly/layers/common.hpp"

namespace netpoly {

template <class S>
struct ScorePair {
  Mat<S> Q, K;  // da x d each: one score matrix (X Q^T)(X K^T)^T
  Bias<S> bQ, bK;  // optional: (X Q^T + 1 bQ^T)(X K^T + 1 bK^T)^T
  bool operator==(const ScorePair&) const = default;
};

template <class S>
struct AttentionHead {
  Mat<S> Q, K, V, O;             // Q,K,V: da x d; O: d x da (V, O empty when C is given)
  std::vector<ScorePair<S>> extra;  // the score matrices after the first (degree-k blocks)
  std::optional<Mat<S>> C;        // even degree: learned values, N x d
  Bias<S> bQ, bK, bV, bO;         // optional biases of Q, K, V (da entries) and O (d); none with C
  bool operator==(const AttentionHead&) const = default;
  // 2 per score matrix, 1 for the values X V^T O^T (none for C).
  std::size_t degree() const { return 2 * (1 + extra.size()) + (C ? 0 : 1); }
  bool plain() const { return extra.empty() && !C; }
  bool has_bias() const {
    bool any = bQ || bK || bV || bO;
    for (const auto& e : extra) any = any || e.bQ || e.bK;
    return any;
  }
};

template <class S>
struct Attention {
  static constexpr const char* kind = "attention";
  static constexpr LayerRole role = LayerRole::attention;
  std::vector<AttentionHead<S>> heads;
  bool causal = false;  // scores masked to j <= i

  template <class F>
  auto map(F&& f) const {
    using T = decltype(f(std::declval<S>()));
    Attention<T> r;
    r.causal = causal;
    for (const auto& h : heads) {
      AttentionHead<T> m;
      m.Q = h.Q.map(f);
      m.K = h.K.map(f);
      m.V = h.V.map(f);
      m.O = h.O.map(f);
      for (const auto& e : h.extra) {
        ScorePair<T> p;
        p.Q = e.Q.map(f);
        p.K = e.K.map(f);
        p.bQ = map_bias(e.bQ, f);
        p.bK = map_bias(e.bK, f);
        m.extra.push_back(std::move(p));
      }
      if (h.C) m.C = h.C->map(f);
      m.bQ = map_bias(h.bQ, f);
      m.bK = map_bias(h.bK, f);
      m.bV = map_bias(h.bV, f);
      m.bO = map_bias(h.bO, f);
      r.heads.push_back(std::move(m));
    }
    return r;
  }
  std::size_t out_width(std::size_t d) const { return d; }
  double degree() const { return heads.empty() ? 3 : static_cast<double>(heads[0].degree()); }
  // The family's size parameter: heads.
  std::size_t family_size() const { return heads.size(); }
  bool has_bias() const {
    for (const auto& h : heads)
      if (h.has_bias()) return true;
    return false;
  }
  bool homogeneous() const { return !has_bias(); }
  // The matrices the papers name, f(name, head, M): head 1..H for a per-head
  // matrix, 0 for the layer's own (the claim language's weights(net, layer,
  // name [, head])). Biases are not named.
  template <class F>
  void for_each_named_matrix(F&& f) const {
    for (std::size_t k = 0; k < heads.size(); ++k) {
      const AttentionHead<S>& h = heads[k];
      f(std::string("Q"), k + 1, h.Q);
      f(std::string("K"), k + 1, h.K);
      if (h.C) {
        f(std::string("C"), k + 1, *h.C);
      } else {
        f(std::string("V"), k + 1, h.V);
        f(std::string("O"), k + 1, h.O);
      }
      for (std::size_t j = 0; j < h.extra.size(); ++j) {  // Q2, K2, ...: the later score pairs
        f("Q" + std::to_string(j + 2), k + 1, h.extra[j].Q);
        f("K" + std::to_string(j + 2), k + 1, h.extra[j].K);
      }
    }
  }
  template <class F>
  void for_each_matrix(F&& f) const {
    auto opt = [&](const Bias<S>& b) {
      if (b) f(*b);
    };
    for (const auto& h : heads) {
      f(h.Q);
      f(h.K);
      for (const auto& e : h.extra) {
        f(e.Q);
        f(e.K);
        opt(e.bQ);
        opt(e.bK);
      }
      if (h.C) {
        f(*h.C);
      } else {
        f(h.V);
        f(h.O);
      }
      opt(h.bQ);
      opt(h.bK);
      opt(h.bV);
      opt(h.bO);
    }
  }

  template <class Rd, class Json>
  static Attention read(const Rd& r, const Json& o, const std::string& lp, std::size_t N, std::size_t d) {
    r.keys(o, lp, {"type", "residual", "heads", "degree", "causal"}, {"heads"});
    const Json& hs = o["heads"];
    std::string hp = Rd::join(lp, "heads");
    if (!hs.is_array() || hs.empty()) r.fail(hp, "expected a non-empty list of heads, got " + Rd::kind(hs));
    Attention a;
    if (o.contains("causal")) {
      if (!o["causal"].is_boolean()) r.fail(Rd::join(lp, "causal"), "expected true or false, got " + Rd::kind(o["causal"]));
      a.causal = o["causal"].template get<bool>();
    }
    for (std::size_t h = 0; h < hs.size(); ++h) {
      std::string p = Rd::idx(hp, h);
      const Json& hd = hs[h];
      const bool has_c = hd.is_object() && hd.contains("C");
      if (has_c)  // an even-degree head: learned values C in place of V and O (and their biases)
        r.keys(hd, p, {"Q", "K", "extra", "C", "bQ", "bK"}, {"Q", "K", "C"});
      else
        r.keys(hd, p, {"Q", "K", "V", "O", "extra", "C", "bQ", "bK", "bV", "bO"}, {"Q", "K", "V", "O"});
      std::size_t da = r.row_count(hd["Q"], Rd::join(p, "Q"));
      AttentionHead<S> x;
      x.Q = r.matrix(hd["Q"], Rd::join(p, "Q"), da, d, "Q is da x d");
      x.K = r.matrix(hd["K"], Rd::join(p, "K"), da, d, "K is da x d");
      x.bQ = r.bias(hd, p, "bQ", da, "bQ has one entry per row of Q (da)");
      x.bK = r.bias(hd, p, "bK", da, "bK has one entry per row of K (da)");
      if (has_c) {
        x.C = r.matrix(hd["C"], Rd::join(p, "C"), N, d, "C is N x d");
      } else {
        x.V = r.matrix(hd["V"], Rd::join(p, "V"), da, d, "V is da x d");
        x.O = r.matrix(hd["O"], Rd::join(p, "O"), d, da, "O is d x da");
        x.bV = r.bias(hd, p, "bV", da, "bV has one entry per row of V (da)");
        x.bO = r.bias(hd, p, "bO", d, "bO has one entry per row of O (d)");
      }
      if (hd.contains("extra")) {
        const Json& ex = hd["extra"];
        const std::string ep = Rd::join(p, "extra");
        if (!ex.is_array()) r.fail(ep, "expected a list of {\"Q\", \"K\"} score pairs, got " + Rd::kind(ex));
        for (std::size_t j = 0; j < ex.size(); ++j) {
          const std::string q = Rd::idx(ep, j);
          r.keys(ex[j], q, {"Q", "K", "bQ", "bK"}, {"Q", "K"});
          ScorePair<S> sp;
          sp.Q = r.matrix(ex[j]["Q"], Rd::join(q, "Q"), da, d, "Q is da x d");
          sp.K = r.matrix(ex[j]["K"], Rd::join(q, "K"), da, d, "K is da x d");
          sp.bQ = r.bias(ex[j], q, "bQ", da, "bQ has one entry per row of Q (da)");
          sp.bK = r.bias(ex[j], q, "bK", da, "bK has one entry per row of K (da)");
          x.extra.push_back(std::move(sp));
        }
      }
      if (h > 0 && x.degree() != a.heads[0].degree())
        r.fail(p, "every head of a layer has the same degree: head 0 has degree " +
                      std::to_string(a.heads[0].degree()) + ", this one " + std::to_string(x.degree()));
      a.heads.push_back(std::move(x));
    }
    if (o.contains("degree")) {
      const std::string dp = Rd::join(lp, "degree");
      const Json& k = o["degree"];
      if (!k.is_number_unsigned() || k.template get<std::size_t>() != a.heads[0].degree())
        r.fail(dp, "expected the heads' degree " + std::to_string(a.heads[0].degree()) +
                       " (2 per score pair, +1 for V and O), got " + k.dump());
    }
    return a;
  }

  template <class Wr>
  void write(Wr& w) const {
    if (degree() != 3) w.os << ",\n" << w.in << "\"degree\": " << static_cast<std::size_t>(degree());
    if (causal) w.os << ",\n" << w.in << "\"causal\": true";
    w.os << ",\n" << w.in << "\"heads\": [";
    for (std::size_t h = 0; h < heads.size(); ++h) {
      const auto& hd = heads[h];
      const std::string hi = w.in + "  ";
      w.os << (h ? ",\n" : "\n") << hi << "{";
      std::vector<std::pair<const char*, const Mat<S>*>> mats{{"Q", &hd.Q}, {"K", &hd.K}};
      if (!hd.C) {
        mats.push_back({"V", &hd.V});
        mats.push_back({"O", &hd.O});
      }
      for (std::size_t k = 0; k < mats.size(); ++k) {
        w.os << (k ? ",\n" + hi + " " : "") << "\"" << mats[k].first << "\": ";
        w.matrix(*mats[k].second, hi + std::string(6, ' '));
      }
      if (hd.C) {
        w.os << ",\n" << hi << " \"C\": ";
        w.matrix(*hd.C, hi + std::string(6, ' '));
      }
      for (const auto& [name, b] : {std::pair{"bQ", &hd.bQ}, {"bK", &hd.bK}, {"bV", &hd.bV}, {"bO", &hd.bO}})
        if (*b) w.bias(name, **b, hi + " ");
      if (!hd.extra.empty()) {
        w.os << ",\n" << hi << " \"extra\": [";
        for (std::size_t j = 0; j < hd.extra.size(); ++j) {
          const auto& e = hd.extra[j];
          w.os << (j ? ",\n" : "\n") << hi << "   {\"Q\": ";
          w.matrix(e.Q, hi + std::string(9, ' '));
          w.os << ",\n" << hi << "    \"K\": ";
          w.matrix(e.K, hi + std::string(9, ' '));
          if (e.bQ) w.bias("bQ", *e.bQ, hi + "    ");
          if (e.bK) w.bias("bK", *e.bK, hi + "    ");
          w.os << "}";
        }
        w.os << "]";
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
    using detail::wanted, detail::lin_row, detail::affine_row, detail::tasks, detail::worth_threads;
    std::vector<E> Y(N * d, R.zero());
    std::size_t needed = 0;
    for (std::size_t k = 0; k < N * d; ++k) needed += wanted(need, k);
    for (const auto& h : heads) {
      if (!h.plain() || causal) {  // a mask needs the score matrix itself
        apply_block(R, h, X, N, d, need, Y, causal);
        continue;
      }
      const std::size_t da = h.Q.rows;
      std::vector<E> Kx(N * da, R.zero()), Vx(N * da, R.zero());
      for (std::size_t j = 0; j < N; ++j)
        for (std::size_t a = 0; a < da; ++a) {
          affine_row(R, Kx[j * da + a], h.K, h.bK, a, X, j * d, 1);
          affine_row(R, Vx[j * da + a], h.V, h.bV, a, X, j * d, 1);
        }
      auto query = [&](std::size_t i) {
        std::vector<E> q(da, R.zero());
        for (std::size_t b = 0; b < da; ++b) affine_row(R, q[b], h.Q, h.bQ, b, X, i * d, 1);
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
            detail::addmuls(R, w[b], s, 0, 1, Kx, b, da, N);
          }, !worth_threads(R, s[0], Kx[0]));
          for (std::size_t i = 0; i < N; ++i) {
            if (!wanted(need, i * d + c)) continue;
            detail::dot(R, Y[i * d + c], w, query(i));
            detail::add_bias(R, Y[i * d + c], h.bO, c);
          }
        }
        continue;
      }
      std::vector<E> M(da * da, R.zero());  // M[a][b] = sum_j (V x_j)[a] (K x_j)[b]
      tasks(R, da * da, [&](std::size_t k) {
        detail::addmuls(R, M[k], Vx, k / da, da, Kx, k % da, da, N);
      }, !worth_threads(R, Vx[0], Kx[0]));
      for (std::size_t i = 0; i < N; ++i) {
        bool any = false;
        for (std::size_t c = 0; c < d; ++c) any = any || wanted(need, i * d + c);
        if (!any) continue;
        auto q = query(i);
        std::vector<E> u(da, R.zero());  // u = M q_i
        tasks(R, da, [&](std::size_t a) {
          detail::addmuls(R, u[a], M, a * da, 1, q, 0, 1, da);
        }, !worth_threads(R, M[0], q[0]));
        for (std::size_t c = 0; c < d; ++c)
          if (wanted(need, i * d + c)) affine_row(R, Y[i * d + c], h.O, h.bO, c, u, 0, 1);
      }
    }
    return Y;
  }

  bool operator==(const Attention&) const = default;

 private:
  // One head of a degree-k block: P = S_1 S_2 ... S_m (N x N), then
  // Y_i += sum_t P[i][t] v_t with v_t = O V x_t (odd) or C_t (even).
  // Causal: every S_j is masked (S_j[i][t] = 0 for t > i), so P is too.
  template <class Ring>
  static void apply_block(const Ring& R, const AttentionHead<S>& h, const std::vector<typename Ring::Elem>& X,
                          std::size_t N, std::size_t d, const Need& need, std::vector<typename Ring::Elem>& Y,
                          bool causal) {
    using E = typename Ring::Elem;
    using detail::wanted, detail::affine_row;
    const std::size_t da = h.Q.rows;
    auto scores = [&](const Mat<S>& Q, const Bias<S>& bQ, const Mat<S>& K, const Bias<S>& bK) {
      std::vector<E> q(N * da, R.zero()), k(N * da, R.zero()), Sm(N * N, R.zero());
      for (std::size_t t = 0; t < N; ++t)
        for (std::size_t a = 0; a < da; ++a) {
          affine_row(R, q[t * da + a], Q, bQ, a, X, t * d, 1);
          affine_row(R, k[t * da + a], K, bK, a, X, t * d, 1);
        }
      detail::tasks(R, N * N, [&](std::size_t x) {
        const std::size_t i = x / N, t = x % N;
        if (!causal || t <= i) detail::addmuls(R, Sm[x], q, i * da, 1, k, t * da, 1, da);
      });
      return Sm;
    };
    std::vector<E> P = scores(h.Q, h.bQ, h.K, h.bK);
    for (const auto& e : h.extra) {
      const std::vector<E> Sj = scores(e.Q, e.bQ, e.K, e.bK);
      std::vector<E> Pn(N * N, R.zero());
      detail::tasks(R, N * N, [&](std::size_t x) {
        const std::size_t i = x / N, t = x % N;
        detail::addmuls(R, Pn[x], P, i * N, 1, Sj, t, N, N);
      });
      P = std::move(Pn);
    }
    std::vector<E> v;  // odd degree: v[t * d + c] = (O V x_t)[c]
    if (!h.C) {
      v.assign(N * d, R.zero());
      std::vector<E> Vx(N * da, R.zero());
      for (std::size_t t = 0; t < N; ++t)
        for (std::size_t a = 0; a < da; ++a) affine_row(R, Vx[t * da + a], h.V, h.bV, a, X, t * d, 1);
      for (std::size_t t = 0; t < N; ++t)
        for (std::size_t c = 0; c < d; ++c) detail::lin_row(R, v[t * d + c], h.O, c, Vx, t * da, 1);
    }
    detail::tasks(R, N * d, [&](std::size_t x) {
      if (!wanted(need, x)) return;
      const std::size_t i = x / d, c = x % d;
      if (h.C) {
        for (std::size_t t = 0; t < N; ++t) {
          const S& w = (*h.C)(t, c);
          if (!R.is_zero(w)) R.axpy(Y[x], w, P[i * N + t]);
        }
      } else {
        detail::addmuls(R, Y[x], P, i * N, 1, v, c, d, N);
      }
      detail::add_bias(R, Y[x], h.bO, c);  // once per head, outside the sum over t
    });
  }
};

}  // namespace netpoly
