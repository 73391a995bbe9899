// The network description, templated over the weight scalar so that one
// structure serves every number domain: the model file gives Network<Fmpq>,
// and map_weights converts it once into a domain's scalars (mod p residues,
// doubles, ...) before evaluation.
//
// Each layer type is one struct holding its weights, how to map them, its
// output width, and its forward pass (written once, for every Ring).
// Adding a layer type means adding a struct here and its JSON fields in
// model_io.cpp.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

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

// Which output entries a layer must produce: empty = all of them.
using Need = std::vector<char>;

// --------------------------------------------------------------- attention
template <class S>
struct AttentionHead {
  Mat<S> Q, K, V, O;  // Q,K,V: da x d; O: d x da
  bool operator==(const AttentionHead&) const = default;
};

template <class S>
struct Attention {
  std::vector<AttentionHead<S>> heads;
  template <class F>
  auto map(F&& f) const {
    Attention<decltype(f(std::declval<S>()))> r;
    for (const auto& h : heads) r.heads.push_back({h.Q.map(f), h.K.map(f), h.V.map(f), h.O.map(f)});
    return r;
  }
  std::size_t out_width(std::size_t d) const { return d; }
  bool operator==(const Attention&) const = default;
};

// ---------------------------------------------------------- token mixing
template <class S>
struct TokenMix {
  Mat<S> W;                  // N x N
  std::optional<Mat<S>> W2;  // N x N
  Activation activation = Activation::none;
  template <class F>
  auto map(F&& f) const {
    TokenMix<decltype(f(std::declval<S>()))> r;
    r.W = W.map(f);
    if (W2) r.W2 = W2->map(f);
    r.activation = activation;
    return r;
  }
  std::size_t out_width(std::size_t d) const { return d; }
  bool operator==(const TokenMix&) const = default;
};

// -------------------------------------------------------- channel mixing
template <class S>
struct ChannelMix {
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
  bool operator==(const ChannelMix&) const = default;
};

// --------------------------------------------------- degree-k product block
template <class S>
struct Product {
  std::vector<Mat<S>> Ws;  // k matrices, each d' x d
  template <class F>
  auto map(F&& f) const {
    Product<decltype(f(std::declval<S>()))> r;
    for (const auto& w : Ws) r.Ws.push_back(w.map(f));
    return r;
  }
  std::size_t out_width(std::size_t) const { return Ws.empty() ? 0 : Ws[0].rows; }
  bool operator==(const Product&) const = default;
};

// ----------------------------------------------------------- permutation
struct Permute {
  std::vector<std::size_t> perm;  // vec(Y)[t] = vec(X)[perm[t]], row-major
  template <class F>
  Permute map(F&&) const { return *this; }
  std::size_t out_width(std::size_t d) const { return d; }
  bool operator==(const Permute&) const = default;
};

template <class S>
struct Layer {
  std::variant<Attention<S>, TokenMix<S>, ChannelMix<S>, Product<S>, Permute> op;
  bool residual = false;
  template <class F>
  auto map(F&& f) const {
    using T = decltype(f(std::declval<S>()));
    Layer<T> r;
    r.residual = residual;
    std::visit([&](const auto& o) { r.op = o.map(f); }, op);
    return r;
  }
  std::size_t out_width(std::size_t d) const {
    return std::visit([&](const auto& o) { return o.out_width(d); }, op);
  }
  bool operator==(const Layer&) const = default;
};

struct Entry {
  std::size_t token = 0, channel = 0;
  bool operator==(const Entry&) const = default;
  auto operator<=>(const Entry&) const = default;
};

template <class S>
struct Network {
  std::string name;
  std::size_t tokens = 0, width = 0;
  std::vector<Layer<S>> layers;
  std::optional<Entry> output;

  std::size_t output_width() const {
    std::size_t d = width;
    for (const auto& l : layers) d = l.out_width(d);
    return d;
  }
  std::size_t num_inputs() const { return tokens * width; }
  template <class F>
  auto map_weights(F&& f) const {
    Network<decltype(f(std::declval<S>()))> r;
    r.name = name;
    r.tokens = tokens;
    r.width = width;
    r.output = output;
    for (const auto& l : layers) r.layers.push_back(l.map(f));
    return r;
  }
  bool operator==(const Network&) const = default;
};

const char* layer_type_name(std::size_t variant_index);

}  // namespace netpoly
