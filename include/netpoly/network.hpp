// The network description, templated over the weight scalar so that one
// structure serves every number domain: the model file gives Network<Fmpq>,
// and map_weights converts it once into a domain's scalars (mod p residues,
// doubles, ...) before evaluation.
//
// Each layer kind is one header under layers/ holding everything about it
// (weights, mapping, width, degree, matrices, JSON name and fields, forward
// pass). LayerOp below lists the kinds; every other place reaches them by
// std::visit, so adding a kind means its header, one line here, and its test.
#pragma once
#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "netpoly/layers/attention.hpp"
#include "netpoly/layers/branches.hpp"
#include "netpoly/layers/channel_mix.hpp"
#include "netpoly/layers/common.hpp"
#include "netpoly/layers/permute.hpp"
#include "netpoly/layers/product.hpp"
#include "netpoly/layers/token_mix.hpp"

namespace netpoly {

// The layer kinds, in the order the format document lists them.
template <class S>
using LayerOp = std::variant<Attention<S>, TokenMix<S>, ChannelMix<S>, Product<S>, Permute, Branches<S>>;

// What every layer kind must provide besides its templates (read, write,
// apply, map), which the model reader, writer and forward pass instantiate
// for every alternative of LayerOp.
template <class L>
concept LayerKind = requires(const L& l, std::size_t d) {
  { L::kind } -> std::convertible_to<const char*>;
  { L::role } -> std::convertible_to<LayerRole>;
  { l.out_width(d) } -> std::same_as<std::size_t>;
  { l.degree() } -> std::same_as<double>;
  { l.family_size() } -> std::same_as<std::size_t>;
  l.for_each_matrix([](const auto&) {});
  l.for_each_named_matrix([](const std::string&, std::size_t, const auto&) {});
};

template <class V>
struct all_layer_kinds;
template <class... L>
struct all_layer_kinds<std::variant<L...>> : std::bool_constant<(LayerKind<L> && ...)> {};

template <class S>
struct Layer {
  LayerOp<S> op;
  bool residual = false;
  static_assert(all_layer_kinds<LayerOp<S>>::value, "every layer kind provides the LayerKind parts");

  // The return type is spelled out: a sum of branches maps its layers with
  // this same function while its type is being deduced.
  template <class F>
  auto map(F&& f) const -> Layer<decltype(f(std::declval<S>()))> {
    using T = decltype(f(std::declval<S>()));
    Layer<T> r;
    r.residual = residual;
    std::visit([&](const auto& o) { r.op = o.map(f); }, op);
    return r;
  }
  std::size_t out_width(std::size_t d) const {
    return std::visit([&](const auto& o) { return o.out_width(d); }, op);
  }
  double degree() const {
    return std::visit([](const auto& o) { return o.degree(); }, op);
  }
  // Whether the layer (without its residual) maps homogeneous inputs to
  // homogeneous outputs of one degree; kinds without the hook always do.
  bool homogeneous() const {
    return std::visit([](const auto& o) {
      if constexpr (requires { o.homogeneous(); }) return o.homogeneous();
      else return true;
    }, op);
  }
  // Whether the layer has a bias (an affine map somewhere in it): the papers'
  // networks have none; kinds without the hook never do.
  bool has_bias() const {
    return std::visit([](const auto& o) {
      if constexpr (requires { o.has_bias(); }) return o.has_bias();
      else return false;
    }, op);
  }
  const char* kind() const {
    return std::visit([](const auto& o) -> const char* { return std::decay_t<decltype(o)>::kind; }, op);
  }
  LayerRole role() const {
    return std::visit([](const auto& o) { return std::decay_t<decltype(o)>::role; }, op);
  }
  std::size_t family_size() const {
    return std::visit([](const auto& o) { return o.family_size(); }, op);
  }
  template <class F>
  void for_each_matrix(F&& f) const {
    std::visit([&](const auto& o) { o.for_each_matrix(f); }, op);
  }
  bool operator==(const Layer&) const = default;
};

template <class Ring>
std::vector<typename Ring::Elem> apply_layers(const Ring& R, const std::vector<Layer<typename Ring::Scalar>>& layers,
                                              std::vector<typename Ring::Elem> X, std::size_t N, std::size_t d,
                                              const Need& need) {
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const auto& layer = layers[l];
    const Need& nd = (l + 1 == layers.size()) ? need : Need{};
    auto Y = std::visit([&](const auto& op) { return op.apply(R, X, N, d, nd); }, layer.op);
    if (layer.residual)
      for (std::size_t k = 0; k < Y.size(); ++k)
        if (detail::wanted(nd, k)) R.add(Y[k], std::move(X[k]));  // X is not used again
    d = layer.out_width(d);
    X = std::move(Y);
  }
  return X;
}

// The kinds' JSON names, in LayerOp's order.
template <class S, std::size_t... I>
std::vector<std::string> layer_kind_names_impl(std::index_sequence<I...>) {
  return {std::variant_alternative_t<I, LayerOp<S>>::kind...};
}
template <class S = int>
std::vector<std::string> layer_kind_names() {
  return layer_kind_names_impl<S>(std::make_index_sequence<std::variant_size_v<LayerOp<S>>>{});
}

struct Entry {
  std::size_t token = 0, channel = 0;
  bool operator==(const Entry&) const = default;
  auto operator<=>(const Entry&) const = default;
  // "y<token>_<channel>", as every output names it.
  std::string name() const { return "y" + std::to_string(token) + "_" + std::to_string(channel); }
};

template <class S>
struct Network {
  std::string name;
  std::size_t tokens = 0, width = 0;
  std::vector<Layer<S>> layers;
  // Gaussian weights (gauss.hpp): the imaginary parts, the same layers with
  // the imaginary part of every weight; empty for a real model.
  std::vector<Layer<S>> imag;
  std::optional<Entry> output;
  bool gaussian() const { return !imag.empty(); }

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
    for (const auto& l : imag) r.imag.push_back(l.map(f));
    return r;
  }
  bool operator==(const Network&) const = default;
};

// Number of weights (every entry of every matrix).
template <class S>
std::size_t parameter_count(const Network<S>& m) {
  std::size_t n = 0;
  for (const auto& l : m.layers) l.for_each_matrix([&](const Mat<S>& W) { n += W.a.size(); });
  return n;
}

// Number of non-zero weights.
template <class S>
std::size_t nonzero_count(const Network<S>& m) {
  std::size_t n = 0;
  for (const auto& l : m.layers)
    l.for_each_matrix([&](const Mat<S>& W) {
      for (const auto& x : W.a) n += !x.is_zero();
    });
  return n;
}

}  // namespace netpoly
