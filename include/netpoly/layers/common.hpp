// What every layer kind shares: the weight matrix, the activation, the
// "which outputs are needed" mask, the role a kind plays when a model's
// family is inferred, and the kernels the forward passes are written with.
//
// Each layer kind is one header in this folder: its weights, how to map them
// into another number domain, its output width and degree, its matrices (for
// parameter and nonzero counts), its JSON name and fields (read and write)
// and its forward pass, written once for every Ring (rings.hpp). network.hpp
// lists the kinds in one variant; every place that needs to know about
// layers reaches them by std::visit, so a kind that misses a part does not
// compile. docs/architecture.md says how to add one.
#pragma once
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "netpoly/parallel.hpp"

namespace netpoly {

// A dense row-major matrix of scalars (PyTorch `Linear` convention: out x in).
template <class S>
struct Mat {
  std::size_t rows = 0, cols = 0;
  std::vector<S> a;
  Mat() = default;
  Mat(std::size_t r, std::size_t c) : rows(r), cols(c), a(r * c) {}
  S& operator()(std::size_t i, std::size_t j) { return a[i * cols + j]; }
  const S& operator()(std::size_t i, std::size_t j) const { return a[i * cols + j]; }
  template <class F>
  auto map(F&& f) const {
    Mat<decltype(f(a[0]))> m(rows, cols);
    for (std::size_t k = 0; k < a.size(); ++k) m.a[k] = f(a[k]);
    return m;
  }
  bool operator==(const Mat&) const = default;
};

enum class Activation { none, square };

// A bias: the constant vector an affine map adds after its matrix (PyTorch
// `Linear`'s b), one entry per row of the matrix, held as a column (n x 1)
// so that parameter counts and weight maps see it like any matrix. Every
// bias field of the format is optional (docs/model-format.md, "Biases");
// without one the map is linear, as before. A bias adds a degree-0 term:
// the layer's outputs are then inhomogeneous (homogeneous() is false), and
// the structural rings see it through Ring::one() (the constant 1).
template <class S>
using Bias = std::optional<Mat<S>>;

template <class S, class F>
Bias<decltype(std::declval<F>()(std::declval<S>()))> map_bias(const Bias<S>& b, F&& f) {
  if (!b) return std::nullopt;
  return b->map(f);
}

// Which output entries a layer must produce: empty = all of them.
using Need = std::vector<char>;

// How a layer kind counts when the family of a model is inferred (claims,
// tables): attention, a mixing layer (token or channel), a product block,
// structure that is not counted as a layer (permutations), or a composite of
// layers (a sum of branches, read through its single_layer()).
enum class LayerRole { attention, token_mixing, channel_mixing, product, structure, composite };

// The weights of a mixing layer, act(W .) then W2 (optional): what token and
// channel mixing share (they differ in the axis they mix, hence in reading
// shapes and in the forward pass).
template <class S>
struct MixWeights {
  Mat<S> W;
  std::optional<Mat<S>> W2;
  Activation activation = Activation::none;
  Bias<S> b, b2;  // optional biases of W (before the activation) and of W2

  double degree() const { return activation == Activation::square ? 2 : 1; }
  std::size_t family_size() const { return 0; }
  bool has_bias() const { return b || b2; }
  bool homogeneous() const { return !has_bias(); }
  // The matrices the papers name, f(name, head, M): head 1..H for a per-head
  // matrix, 0 for the layer's own (the claim language's weights(net, layer,
  // name [, head])). Biases are not named.
  template <class F>
  void for_each_named_matrix(F&& f) const {
    f(std::string("W"), std::size_t{0}, W);
    if (W2) f(std::string("W2"), std::size_t{0}, *W2);
  }
  template <class F>
  void for_each_matrix(F&& f) const {
    f(W);
    if (W2) f(*W2);
    if (b) f(*b);
    if (b2) f(*b2);
  }
  // The same weights in another scalar, into `r` (a mixing layer of that scalar).
  template <class R, class F>
  void map_into(R& r, F&& f) const {
    r.W = W.map(f);
    if (W2) r.W2 = W2->map(f);
    r.activation = activation;
    r.b = map_bias(b, f);
    r.b2 = map_bias(b2, f);
  }
  // The biases' fields (their lengths: rows of W and of W2); b2 needs W2.
  template <class Rd, class Json>
  void read_biases(const Rd& r, const Json& o, const std::string& lp) {
    b = r.bias(o, lp, "b", W.rows, "b has one entry per row of W");
    if (o.contains("b2") && !W2) r.fail(Rd::join(lp, "b2"), "b2 is the bias of W2: give W2 too");
    if (W2) b2 = r.bias(o, lp, "b2", W2->rows, "b2 has one entry per row of W2");
  }
  template <class Wr>
  void write(Wr& w) const {
    w.os << ",\n" << w.in << "\"W\": ";
    w.matrix(W, w.in + "     ");
    if (b) w.bias("b", *b);
    if (W2) {
      w.os << ",\n" << w.in << "\"W2\": ";
      w.matrix(*W2, w.in + "      ");
    }
    if (b2) w.bias("b2", *b2);
    w.activation(activation);
  }
  bool operator==(const MixWeights&) const = default;
};

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

// r += sum_{k < n} a[aoff + k*as] * b[boff + k*bs]: in one fused pass where
// the ring has one (BatchF64Ring::addmuls), else addmul term by term.
template <class Ring>
void addmuls(const Ring& R, typename Ring::Elem& r, const std::vector<typename Ring::Elem>& a, std::size_t aoff,
             std::size_t as, const std::vector<typename Ring::Elem>& b, std::size_t boff, std::size_t bs,
             std::size_t n) {
  if constexpr (requires(std::vector<const typename Ring::Elem*> p) { R.addmuls(r, p, p); }) {
    thread_local std::vector<const typename Ring::Elem*> pa, pb;
    pa.clear();
    pb.clear();
    for (std::size_t k = 0; k < n; ++k) {
      pa.push_back(&a[aoff + k * as]);
      pb.push_back(&b[boff + k * bs]);
    }
    if (n) R.addmuls(r, pa, pb);
    return;
  }
  for (std::size_t k = 0; k < n; ++k) R.addmul(r, a[aoff + k * as], b[boff + k * bs]);
}

// r += sum_k a[k] * b[k]: the products as tasks (side by side for parallel
// rings), then their sum; a ring with dot_balanced (PolyRing) may instead cut
// them into equal shares per thread when they do not divide evenly.
template <class Ring>
void dot(const Ring& R, typename Ring::Elem& r, const std::vector<typename Ring::Elem>& a,
         const std::vector<typename Ring::Elem>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  if (n == 0) return;
  if constexpr (requires(std::vector<const typename Ring::Elem*> p) { R.addmuls(r, p, p); }) {
    return addmuls(R, r, a, 0, 1, b, 0, 1, n);
  }
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

// r += sum_k w(row, k) * x[xoff + k*xstride]; in one fused pass where the
// ring has one (BatchF64Ring::lincomb), else term by term.
template <class Ring>
void lin_row(const Ring& R, typename Ring::Elem& r, const Mat<typename Ring::Scalar>& w, std::size_t row,
             const std::vector<typename Ring::Elem>& x, std::size_t xoff, std::size_t xstride) {
  if constexpr (requires(std::vector<typename Ring::Scalar> s, std::vector<const typename Ring::Elem*> p) {
                  R.lincomb(r, s, p);
                }) {
    // Scratch reused across calls on this thread (small batches: no malloc per row).
    thread_local std::vector<typename Ring::Scalar> s;
    thread_local std::vector<const typename Ring::Elem*> p;
    s.clear();
    p.clear();
    for (std::size_t k = 0; k < w.cols; ++k)
      if (!R.is_zero(w(row, k))) {
        s.push_back(w(row, k));
        p.push_back(&x[xoff + k * xstride]);
      }
    if (!s.empty()) R.lincomb(r, s, p);
    return;
  }
  for (std::size_t k = 0; k < w.cols; ++k) {
    const auto& s = w(row, k);
    if (!R.is_zero(s)) R.axpy(r, s, x[xoff + k * xstride]);
  }
}

// r += b[row]: the constant term of an affine map (nothing without a bias).
template <class Ring>
void add_bias(const Ring& R, typename Ring::Elem& r, const Bias<typename Ring::Scalar>& b, std::size_t row) {
  if (b && !R.is_zero((*b)(row, 0))) R.axpy(r, (*b)(row, 0), R.one());
}

// r += (w x)[row] + b[row]: lin_row and the bias, one row of an affine map.
template <class Ring>
void affine_row(const Ring& R, typename Ring::Elem& r, const Mat<typename Ring::Scalar>& w,
                const Bias<typename Ring::Scalar>& b, std::size_t row, const std::vector<typename Ring::Elem>& x,
                std::size_t xoff, std::size_t xstride) {
  lin_row(R, r, w, row, x, xoff, xstride);
  add_bias(R, r, b, row);
}

template <class Ring>
void activate(const Ring& R, typename Ring::Elem& z, Activation a) {
  if (a == Activation::square) z = R.mul(z, z);
}

}  // namespace detail
}  // namespace netpoly
