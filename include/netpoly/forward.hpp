// The forward pass, written once for every Ring (rings.hpp): exact
// polynomials, exact rationals, integers mod p, doubles.
//
// Activations are an N x d row-major vector of Ring::Elem. At the last layer
// only the output entries in `need` are computed (the rest stay zero).
#pragma once
#include <algorithm>
#include <cstddef>
#include <variant>
#include <vector>

#include "netpoly/network.hpp"
#include "netpoly/parallel.hpp"

namespace netpoly {

namespace detail {

inline bool wanted(const Need& need, std::size_t k) { return need.empty() || need[k]; }

// Rings of big elements (polynomials) opt in with `static constexpr bool
// parallel = true`: their independent products within a layer then run on
// thread_count() threads (the ring's operations must be safe to call at once
// on distinct results). Each task writes only its own slot and slots are
// summed in a fixed order, so the result does not depend on the thread count.
template <class Ring>
constexpr bool parallel_ring() {
  if constexpr (requires { Ring::parallel; }) return Ring::parallel;
  else return false;
}

template <class Ring, class F>
void tasks(const Ring&, std::size_t n, F&& fn, bool serial = false) {
  if constexpr (parallel_ring<Ring>())
    if (!serial) return parallel_for(n, fn);
  for (std::size_t i = 0; i < n; ++i) fn(i);
}

// Whether products like a * b are big enough to be worth a thread (starting
// one costs tens of microseconds); rings without the hook always are.
template <class Ring, class E>
bool worth_threads(const Ring& R, const E& a, const E& b) {
  if constexpr (requires { R.worth_threads(a, b); }) return R.worth_threads(a, b);
  else return true;
}

// Whether one of the products a[k] * b[k] is large enough for the ring's
// multiplication to use every thread by itself (then they run one by one).
template <class Ring, class E>
bool threads_itself(const Ring& R, const std::vector<E>& a, const std::vector<E>& b) {
  if constexpr (requires { R.threads_itself(a[0], b[0]); }) {
    for (std::size_t k = 0; k < a.size() && k < b.size(); ++k)
      if (R.threads_itself(a[k], b[k])) return true;
  }
  return false;
}

// r += sum_k a[k] * b[k]: the products as tasks (side by side for parallel
// rings), then their sum; a ring with dot_balanced (PolyRing) may instead cut
// them into equal shares per thread when they do not divide evenly.
template <class Ring>
void dot(const Ring& R, typename Ring::Elem& r, const std::vector<typename Ring::Elem>& a,
         const std::vector<typename Ring::Elem>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  if (n == 0) return;
  if constexpr (requires(std::vector<const typename Ring::Elem*> p) { R.dot_balanced(r, p, p); }) {
    std::vector<const typename Ring::Elem*> pa, pb;
    for (std::size_t k = 0; k < n; ++k) {
      pa.push_back(&a[k]);
      pb.push_back(&b[k]);
    }
    if (R.dot_balanced(r, pa, pb)) return;
  }
  std::vector<typename Ring::Elem> t(n, R.zero());
  tasks(R, n, [&](std::size_t k) { t[k] = R.mul(a[k], b[k]); },
        threads_itself(R, a, b) || !worth_threads(R, a[0], b[0]));
  for (auto& x : t) R.add(r, std::move(x));
}

// r += sum_k w(row, k) * x[xoff + k*xstride]
template <class Ring>
void lin_row(const Ring& R, typename Ring::Elem& r, const Mat<typename Ring::Scalar>& w, std::size_t row,
             const std::vector<typename Ring::Elem>& x, std::size_t xoff, std::size_t xstride) {
  for (std::size_t k = 0; k < w.cols; ++k) {
    const auto& s = w(row, k);
    if (!R.is_zero(s)) R.axpy(r, s, x[xoff + k * xstride]);
  }
}

template <class Ring>
void activate(const Ring& R, typename Ring::Elem& z, Activation a) {
  if (a == Activation::square) z = R.mul(z, z);
}

// --- attention: per head M = sum_j (V x_j)(K x_j)^T, then y_i = O M Q x_i.
template <class Ring>
std::vector<typename Ring::Elem> apply(const Ring& R, const Attention<typename Ring::Scalar>& L,
                                       const std::vector<typename Ring::Elem>& X, std::size_t N,
                                       std::size_t d, const Need& need) {
  using E = typename Ring::Elem;
  std::vector<E> Y(N * d, R.zero());
  std::size_t needed = 0;
  for (std::size_t k = 0; k < N * d; ++k) needed += wanted(need, k);
  for (const auto& h : L.heads) {
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
          dot(R, Y[i * d + c], w, query(i));
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

// --- token mixing: Y = W2 act(W X)
template <class Ring>
std::vector<typename Ring::Elem> apply(const Ring& R, const TokenMix<typename Ring::Scalar>& L,
                                       const std::vector<typename Ring::Elem>& X, std::size_t N,
                                       std::size_t d, const Need& need) {
  using E = typename Ring::Elem;
  Need needZ(N * d, need.empty() ? 1 : 0);
  if (!need.empty())
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t c = 0; c < d; ++c) {
        if (!need[i * d + c]) continue;
        if (!L.W2) { needZ[i * d + c] = 1; continue; }
        for (std::size_t k = 0; k < N; ++k)
          if (!R.is_zero((*L.W2)(i, k))) needZ[k * d + c] = 1;
      }
  std::vector<E> Z(N * d, R.zero());
  tasks(R, N * d, [&](std::size_t k) {
    if (!needZ[k]) return;
    lin_row(R, Z[k], L.W, k / d, X, k % d, d);
    activate(R, Z[k], L.activation);
  }, !worth_threads(R, X[0], X[0]));
  if (!L.W2) return Z;
  std::vector<E> Y(N * d, R.zero());
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t c = 0; c < d; ++c)
      if (wanted(need, i * d + c)) lin_row(R, Y[i * d + c], *L.W2, i, Z, c, d);
  return Y;
}

// --- channel mixing: Y = act(X W^T) W2^T
template <class Ring>
std::vector<typename Ring::Elem> apply(const Ring& R, const ChannelMix<typename Ring::Scalar>& L,
                                       const std::vector<typename Ring::Elem>& X, std::size_t N,
                                       std::size_t d, const Need& need) {
  using E = typename Ring::Elem;
  const std::size_t h = L.W.rows, dout = L.out_width(d);
  Need needZ(N * h, need.empty() ? 1 : 0);
  if (!need.empty())
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t c = 0; c < dout; ++c) {
        if (!need[i * dout + c]) continue;
        if (!L.W2) { needZ[i * h + c] = 1; continue; }
        for (std::size_t k = 0; k < h; ++k)
          if (!R.is_zero((*L.W2)(c, k))) needZ[i * h + k] = 1;
      }
  std::vector<E> Z(N * h, R.zero());
  tasks(R, N * h, [&](std::size_t t) {
    if (!needZ[t]) return;
    lin_row(R, Z[t], L.W, t % h, X, (t / h) * d, 1);
    activate(R, Z[t], L.activation);
  }, !worth_threads(R, X[0], X[0]));
  if (!L.W2) return Z;
  std::vector<E> Y(N * dout, R.zero());
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t c = 0; c < dout; ++c)
      if (wanted(need, i * dout + c)) lin_row(R, Y[i * dout + c], *L.W2, c, Z, i * h, 1);
  return Y;
}

// --- degree-k product block: Y = (X W1^T) ⊙ ... ⊙ (X Wk^T)
template <class Ring>
std::vector<typename Ring::Elem> apply(const Ring& R, const Product<typename Ring::Scalar>& L,
                                       const std::vector<typename Ring::Elem>& X, std::size_t N,
                                       std::size_t d, const Need& need) {
  using E = typename Ring::Elem;
  const std::size_t dout = L.out_width(d);
  std::vector<E> Y(N * dout, R.zero());
  tasks(R, N * dout, [&](std::size_t t) {
    if (!wanted(need, t)) return;
    const std::size_t i = t / dout, c = t % dout;
    for (std::size_t k = 0; k < L.Ws.size(); ++k) {
      E f = R.zero();
      lin_row(R, f, L.Ws[k], c, X, i * d, 1);
      Y[t] = k == 0 ? std::move(f) : R.mul(Y[t], f);
    }
  }, !worth_threads(R, X[0], X[0]));
  return Y;
}

// --- permutation of the row-major entries
template <class Ring>
std::vector<typename Ring::Elem> apply(const Ring& R, const Permute& L, const std::vector<typename Ring::Elem>& X,
                                       std::size_t N, std::size_t d, const Need& need) {
  std::vector<typename Ring::Elem> Y(N * d, R.zero());
  for (std::size_t t = 0; t < N * d; ++t)
    if (wanted(need, t)) Y[t] = X[L.perm[t]];
  return Y;
}

}  // namespace detail

// Evaluates `net` on the input X (N x d row-major). Returns the N x d_out
// output; at the last layer only entries with need[k] != 0 are computed
// (need empty: all). Earlier layers compute everything.
template <class Ring>
std::vector<typename Ring::Elem> forward(const Ring& R, const Network<typename Ring::Scalar>& net,
                                         std::vector<typename Ring::Elem> X, const Need& need = {}) {
  std::size_t d = net.width;
  const std::size_t N = net.tokens;
  for (std::size_t l = 0; l < net.layers.size(); ++l) {
    const auto& layer = net.layers[l];
    const Need& nd = (l + 1 == net.layers.size()) ? need : Need{};
    auto Y = std::visit([&](const auto& op) { return detail::apply(R, op, X, N, d, nd); }, layer.op);
    if (layer.residual)
      for (std::size_t k = 0; k < Y.size(); ++k)
        if (detail::wanted(nd, k)) R.add(Y[k], std::move(X[k]));  // X is not used again
    d = layer.out_width(d);
    X = std::move(Y);
  }
  return X;
}

// Converts exact weights into a ring's scalars once (before many evaluations).
template <class Ring, class S>
Network<typename Ring::Scalar> prepare(const Ring& R, const Network<S>& net) {
  return net.map_weights([&](const S& w) { return R.scalar(w); });
}

}  // namespace netpoly
