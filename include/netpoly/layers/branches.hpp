// A sum of branches: Y = B_1(X) + ... + B_r(X), each branch a list of layers
// applied to the same input (an empty list is the identity). This is NB
// eq. (3)'s general layer, 1_O sigma2(W^o pi_o(X)) + 1_R pi_r(X) — a branch
// [permute pi_o, token_mix W^o] and a branch [permute pi_r] — and NB Remark
// 3.2's variants (ViP) that sum several permutations or sub-networks of the
// same input before the MLP. Format:
//   {"type": "branches", "branches": [[layer, ...], [layer, ...], ...]}
// with at least one branch; every branch ends at the same width.
#pragma once
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "netpoly/layers/common.hpp"

namespace netpoly {

template <class S>
struct Layer;  // network.hpp

// Applies a list of layers to X (N x d); at the last layer only the entries
// in `need` are computed. Defined in network.hpp (the forward pass of a
// whole network is this on its layers).
template <class Ring>
std::vector<typename Ring::Elem> apply_layers(const Ring& R, const std::vector<Layer<typename Ring::Scalar>>& layers,
                                              std::vector<typename Ring::Elem> X, std::size_t N, std::size_t d,
                                              const Need& need);

template <class S>
struct Branches {
  static constexpr const char* kind = "branches";
  static constexpr LayerRole role = LayerRole::composite;
  std::vector<std::vector<Layer<S>>> branches;

  template <class F>
  auto map(F&& f) const {
    using T = decltype(f(std::declval<S>()));
    Branches<T> r;
    for (const auto& b : branches) {
      r.branches.emplace_back();
      for (const auto& l : b) r.branches.back().push_back(l.map(f));
    }
    return r;
  }
  std::size_t out_width(std::size_t d) const {
    if (branches.empty()) return d;
    for (const auto& l : branches[0]) d = l.out_width(d);
    return d;
  }
  // The largest degree of a branch (the product of its layers' degrees; a
  // residual adds lower degrees only).
  double degree() const {
    double best = 0;
    for (const auto& b : branches) {
      double g = 1;
      for (const auto& l : b) g *= l.degree();
      best = std::max(best, g);
    }
    return best;
  }
  // Whether every branch is homogeneous of the same degree (a sum of a degree-2
  // and a degree-1 branch is not).
  bool homogeneous() const {
    double first = -1;
    for (const auto& b : branches) {
      double g = 1;
      for (const auto& l : b) {
        if (!l.homogeneous() || (l.residual && l.degree() != 1)) return false;
        g *= l.degree();
      }
      if (first >= 0 && g != first) return false;
      first = g;
    }
    return true;
  }
  std::size_t family_size() const { return 0; }
  bool has_bias() const {
    for (const auto& b : branches)
      for (const auto& l : b)
        if (l.has_bias()) return true;
    return false;
  }
  template <class F>
  void for_each_named_matrix(F&&) const {}  // its layers' matrices are theirs, not named through the sum
  template <class F>
  void for_each_matrix(F&& f) const {
    for (const auto& b : branches)
      for (const auto& l : b) l.for_each_matrix(f);
  }

  // NB eq. (3)'s form, as family inference reads it: one branch of permute
  // layers and then one counted layer (the mixing layer), and at most one
  // more branch of permute layers only (the residual pi_r(X)). Returns that
  // counted layer and sets *residual, or nullptr for any other sum.
  const Layer<S>* single_layer(bool* residual) const {
    const Layer<S>* main = nullptr;
    std::size_t structure_only = 0;
    for (const auto& b : branches) {
      const Layer<S>* counted = nullptr;
      for (const auto& l : b) {
        if (l.role() == LayerRole::structure && !l.residual) continue;
        if (counted || l.role() == LayerRole::structure || l.role() == LayerRole::composite) return nullptr;
        counted = &l;
      }
      if (counted) {
        if (main || counted != &b.back()) return nullptr;
        main = counted;
      } else {
        ++structure_only;
      }
    }
    if (!main || structure_only > 1) return nullptr;
    *residual = structure_only == 1 || main->residual;
    return main;
  }

  template <class Rd, class Json>
  static Branches read(const Rd& r, const Json& o, const std::string& lp, std::size_t N, std::size_t d) {
    r.keys(o, lp, {"type", "residual", "branches"}, {"branches"});
    const Json& bs = o["branches"];
    const std::string bp = Rd::join(lp, "branches");
    if (!bs.is_array() || bs.empty())
      r.fail(bp, "expected a non-empty list of branches (each a list of layers), got " + Rd::kind(bs));
    Branches br;
    std::size_t dout = 0;
    for (std::size_t k = 0; k < bs.size(); ++k) {
      std::size_t dk = d;
      br.branches.push_back(r.layers(bs[k], Rd::idx(bp, k), N, dk));
      if (k == 0) dout = dk;
      else if (dk != dout)
        r.fail(Rd::idx(bp, k), "every branch must end at the same width: branch 0 ends at width " +
                                   std::to_string(dout) + ", this one at " + std::to_string(dk));
    }
    return br;
  }

  template <class Wr>
  void write(Wr& w) const {
    w.os << ",\n" << w.in << "\"branches\": [";
    for (std::size_t k = 0; k < branches.size(); ++k) {
      w.os << (k ? ",\n" : "\n") << w.in << "  ";
      w.layers(branches[k], w.in + "    ");
    }
    w.os << "\n" << w.in << "]";
  }

  template <class Ring>
  std::vector<typename Ring::Elem> apply(const Ring& R, const std::vector<typename Ring::Elem>& X, std::size_t N,
                                         std::size_t d, const Need& need) const {
    std::vector<typename Ring::Elem> Y;
    for (const auto& b : branches) {
      auto Z = apply_layers(R, b, X, N, d, need);
      if (Y.empty()) {
        Y = std::move(Z);
        continue;
      }
      for (std::size_t k = 0; k < Y.size(); ++k)
        if (detail::wanted(need, k)) R.add(Y[k], std::move(Z[k]));
    }
    return Y;
  }

  bool operator==(const Branches&) const = default;
};

}  // namespace netpoly
