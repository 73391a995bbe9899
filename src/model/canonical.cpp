// The canonical form of a model (docs/model-format.md, "Canonical form"):
// the same function, with every part that a layer kind expresses written as
// that layer, whatever wrote the model (a tracer, a NumPy script, a hand).
//
// The rewrites, each an identity of functions:
//   - a bias of zeros is no bias;
//   - a layer (or a sum of branches, or a list of layers) that is an affine
//     map of each token's channels is one channel_mix without activation, and
//     the identity is no layer at all;
//   - adjacent affine maps compose; an affine map folds into the matrices
//     that read it (Q, K, V and the extra score pairs of attention, W of a
//     channel_mix, every W of a product) and into the matrices that write
//     the layer before it (O or C of attention, W2 of a channel_mix), where
//     the format's widths allow;
//   - a sum of branches adds its affine branches into one map, its
//     single-layer attention branches into one layer of all their heads, and
//     its σ₂ channel MLPs into one MLP of all their hidden units; what is
//     left of it as one layer plus the identity is that layer with its
//     residual flag.
// Everything else stays as it is: a `branches` layer remains only for what
// no layer kind expresses. Gaussian models are returned unchanged (their
// real and imaginary networks would have to be rewritten together).
#include <algorithm>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "domains/flint_linalg.hpp"
#include "netpoly/error.hpp"
#include "netpoly/model.hpp"

namespace netpoly {
namespace {

using M = Mat<Fmpq>;
using B = Bias<Fmpq>;
using L = Layer<Fmpq>;
using Layers = std::vector<L>;

// ------------------------------------------------------------ matrices (FLINT's fmpq_mat)
FmpqMat to_flint(const M& A) {
  FmpqMat F(static_cast<slong>(A.rows), static_cast<slong>(A.cols));
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t j = 0; j < A.cols; ++j) fmpq_set(F.at(static_cast<slong>(i), static_cast<slong>(j)), A(i, j).get());
  return F;
}

M from_flint(const FmpqMat& F) {
  M A(static_cast<std::size_t>(F.rows()), static_cast<std::size_t>(F.cols()));
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t j = 0; j < A.cols; ++j) fmpq_set(A(i, j).get(), F.at(static_cast<slong>(i), static_cast<slong>(j)));
  return A;
}

M mul(const M& A, const M& C) {
  FmpqMat P(static_cast<slong>(A.rows), static_cast<slong>(C.cols));
  fmpq_mat_mul(P.get(), to_flint(A).get(), to_flint(C).get());
  return from_flint(P);
}

M plus(const M& A, const M& C) {
  FmpqMat S(static_cast<slong>(A.rows), static_cast<slong>(A.cols));
  fmpq_mat_add(S.get(), to_flint(A).get(), to_flint(C).get());
  return from_flint(S);
}

M transpose(const M& A) {
  M T(A.cols, A.rows);
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t j = 0; j < A.cols; ++j) T(j, i) = A(i, j);
  return T;
}

M eye(std::size_t n) {
  M I(n, n);
  for (std::size_t i = 0; i < n; ++i) I(i, i) = Fmpq(1);
  return I;
}

bool zero(const M& A) {
  for (const auto& x : A.a)
    if (!x.is_zero()) return false;
  return true;
}

// Rows of A, then rows of C (the same number of columns).
M stack_rows(const M& A, const M& C) {
  M S(A.rows + C.rows, A.cols);
  for (std::size_t k = 0; k < A.a.size(); ++k) S.a[k] = A.a[k];
  for (std::size_t k = 0; k < C.a.size(); ++k) S.a[A.a.size() + k] = C.a[k];
  return S;
}

M stack_cols(const M& A, const M& C) { return transpose(stack_rows(transpose(A), transpose(C))); }

// W b (none without b) and b + c (none when both are none).
B times(const M& W, const B& b) { return b ? B(mul(W, *b)) : std::nullopt; }
B add(const B& b, const B& c) {
  if (!b) return c;
  if (!c) return b;
  return plus(*b, *c);
}
B nonzero(B b) { return b && zero(*b) ? std::nullopt : b; }
M padded(const B& b, std::size_t rows) { return b ? *b : M(rows, 1); }

// ------------------------------------------------------------ affine maps of a token's channels
struct Aff {
  M W;  // out x in
  B b;
  bool identity() const { return W.rows == W.cols && W == eye(W.rows) && !b; }
};

Aff compose(const Aff& outer, const Aff& inner) {
  return {mul(outer.W, inner.W), nonzero(add(times(outer.W, inner.b), outer.b))};
}
Aff sum(const Aff& x, const Aff& y) { return {plus(x.W, y.W), nonzero(add(x.b, y.b))}; }

std::optional<Aff> affine_of(const Layers& ls, std::size_t d);

std::optional<Aff> affine_of(const L& l, std::size_t d) {
  std::optional<Aff> a;
  if (const auto* c = std::get_if<ChannelMix<Fmpq>>(&l.op); c && c->activation == Activation::none) {
    a = Aff{c->W, c->b};
    if (c->W2) a = compose(Aff{*c->W2, c->b2}, *a);
  } else if (const auto* br = std::get_if<Branches<Fmpq>>(&l.op); br && !br->branches.empty()) {
    for (const auto& b : br->branches) {
      auto x = affine_of(b, d);
      if (!x) return std::nullopt;
      a = a ? sum(*a, *x) : *x;
    }
  }
  if (a && l.residual) a->W = plus(a->W, eye(d));
  if (a) a->b = nonzero(a->b);
  return a;
}

std::optional<Aff> affine_of(const Layers& ls, std::size_t d) {
  Aff acc{eye(d), std::nullopt};
  for (const auto& l : ls) {
    auto a = affine_of(l, d);
    if (!a) return std::nullopt;
    acc = compose(*a, acc);
    d = l.out_width(d);
  }
  return acc;
}

L affine_layer(const Aff& a) {
  ChannelMix<Fmpq> c;
  c.W = a.W;
  c.b = a.b;
  return L{c, false};
}

// A plain affine layer of the canonical list (what affine_layer writes).
const ChannelMix<Fmpq>* plain_affine(const L& l) {
  const auto* c = std::get_if<ChannelMix<Fmpq>>(&l.op);
  return c && !l.residual && c->activation == Activation::none && !c->W2 ? c : nullptr;
}

// ------------------------------------------------------------ zero biases
void strip_zero_biases(L& l) {
  std::visit([](auto& o) {
    using T = std::decay_t<decltype(o)>;
    if constexpr (std::is_same_v<T, ChannelMix<Fmpq>> || std::is_same_v<T, TokenMix<Fmpq>>) {
      o.b = nonzero(o.b);
      o.b2 = nonzero(o.b2);
    } else if constexpr (std::is_same_v<T, Product<Fmpq>>) {
      bool any = false;
      for (auto& b : o.bs) any = (b = nonzero(b)).has_value() || any;
      if (!any) o.bs.clear();
    } else if constexpr (std::is_same_v<T, Attention<Fmpq>>) {
      for (auto& h : o.heads) {
        for (B* b : {&h.bQ, &h.bK, &h.bV, &h.bO}) *b = nonzero(*b);
        for (auto& e : h.extra) {
          e.bQ = nonzero(e.bQ);
          e.bK = nonzero(e.bK);
        }
      }
    }
  }, l.op);
}

// ------------------------------------------------------------ folds
// The attention layer reading a (d0 -> dm) in place of its input.
void fold_into_reads(Attention<Fmpq>& at, const Aff& a) {
  auto read = [&](M& W, B& b) {
    b = nonzero(add(times(W, a.b), b));
    W = mul(W, a.W);
  };
  for (auto& h : at.heads) {
    read(h.Q, h.bQ);
    read(h.K, h.bK);
    if (!h.C) read(h.V, h.bV);
    for (auto& e : h.extra) {
      read(e.Q, e.bQ);
      read(e.K, e.bK);
    }
  }
}

// The attention layer followed by a; false (and `at` unchanged) when a's
// constant has no head to go to (every head even, with C and no bO).
bool fold_into_writes(Attention<Fmpq>& at, const Aff& a) {
  auto odd = std::find_if(at.heads.begin(), at.heads.end(), [](const auto& h) { return !h.C; });
  if (a.b && odd == at.heads.end()) return false;
  for (auto& h : at.heads) {
    if (h.C) {
      h.C = mul(*h.C, transpose(a.W));
    } else {
      h.O = mul(a.W, h.O);
      h.bO = times(a.W, h.bO);
    }
  }
  if (a.b) odd->bO = add(odd->bO, a.b);
  for (auto& h : at.heads) h.bO = nonzero(h.bO);
  return true;
}

std::vector<std::size_t> in_widths(const Layers& ls, std::size_t d) {
  std::vector<std::size_t> w;
  for (const auto& l : ls) {
    w.push_back(d);
    d = l.out_width(d);
  }
  w.push_back(d);
  return w;
}

// One fold at layer i, if one applies there.
bool fold_once(Layers& ls, std::size_t i, const std::vector<std::size_t>& w) {
  const auto* a = plain_affine(ls[i]);
  const bool has_next = i + 1 < ls.size();
  const auto* next_a = has_next ? plain_affine(ls[i + 1]) : nullptr;
  if (a && next_a) {
    const Aff c = compose(Aff{next_a->W, next_a->b}, Aff{a->W, a->b});
    ls.erase(ls.begin() + static_cast<std::ptrdiff_t>(i), ls.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    if (!c.identity()) ls.insert(ls.begin() + static_cast<std::ptrdiff_t>(i), affine_layer(c));
    return true;
  }
  if (a && has_next && !ls[i + 1].residual) {
    const Aff pre{a->W, a->b};
    if (auto* c = std::get_if<ChannelMix<Fmpq>>(&ls[i + 1].op)) {
      c->b = nonzero(add(times(c->W, pre.b), c->b));
      c->W = mul(c->W, pre.W);
    } else if (auto* p = std::get_if<Product<Fmpq>>(&ls[i + 1].op)) {
      if (p->bs.empty()) p->bs.resize(p->Ws.size());
      for (std::size_t k = 0; k < p->Ws.size(); ++k) {
        p->bs[k] = nonzero(add(times(p->Ws[k], pre.b), p->bs[k]));
        p->Ws[k] = mul(p->Ws[k], pre.W);
      }
      if (std::none_of(p->bs.begin(), p->bs.end(), [](const B& b) { return b.has_value(); })) p->bs.clear();
    } else {
      return false;
    }
    ls.erase(ls.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  if (auto* c = std::get_if<ChannelMix<Fmpq>>(&ls[i].op);
      c && next_a && !ls[i].residual && c->activation == Activation::square) {
    const Aff post{next_a->W, next_a->b};
    if (c->W2) {
      c->b2 = nonzero(add(times(post.W, c->b2), post.b));
      c->W2 = mul(post.W, *c->W2);
    } else {
      c->W2 = post.W;
      c->b2 = post.b;
    }
    ls.erase(ls.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    return true;
  }
  auto* at = std::get_if<Attention<Fmpq>>(&ls[i].op);
  if (!at || ls[i].residual) return false;
  const auto* pre = i > 0 ? plain_affine(ls[i - 1]) : nullptr;
  const std::size_t dm = w[i], d0 = pre ? w[i - 1] : dm, d2 = next_a ? next_a->W.rows : dm;
  const bool both = pre && next_a && d0 == d2, only_pre = pre && d0 == dm, only_post = next_a && d2 == dm;
  if (!both && !only_pre && !only_post) return false;
  Attention<Fmpq> out = *at;
  if ((both || only_post) && !fold_into_writes(out, Aff{next_a->W, next_a->b})) {
    if (!only_pre) return false;
    out = *at;
    fold_into_reads(out, Aff{pre->W, pre->b});
    ls[i].op = std::move(out);
    ls.erase(ls.begin() + static_cast<std::ptrdiff_t>(i) - 1);
    return true;
  }
  if (both || only_pre) fold_into_reads(out, Aff{pre->W, pre->b});
  ls[i].op = std::move(out);
  if (both || only_post) ls.erase(ls.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  if (both || only_pre) ls.erase(ls.begin() + static_cast<std::ptrdiff_t>(i) - 1);
  return true;
}

void fold(Layers& ls, std::size_t d) {
  for (bool changed = true; changed;) {
    changed = false;
    const auto w = in_widths(ls, d);
    for (std::size_t i = 0; i < ls.size() && !changed; ++i) changed = fold_once(ls, i, w);
  }
}

// ------------------------------------------------------------ sums of branches
Layers canon(const Layers& ls, std::size_t d);

// σ₂ channel MLPs side by side: one MLP with all their hidden units.
L merged_mlps(const std::vector<const ChannelMix<Fmpq>*>& ms) {
  ChannelMix<Fmpq> r;
  r.activation = Activation::square;
  bool bias = false;
  for (const auto* m : ms) bias = bias || m->b;
  for (std::size_t k = 0; k < ms.size(); ++k) {
    const auto& m = *ms[k];
    const M W2 = m.W2 ? *m.W2 : eye(m.W.rows);
    if (k == 0) {
      r.W = m.W;
      r.W2 = W2;
      if (bias) r.b = padded(m.b, m.W.rows);
    } else {
      r.W = stack_rows(r.W, m.W);
      r.W2 = stack_cols(*r.W2, W2);
      if (bias) r.b = stack_rows(*r.b, padded(m.b, m.W.rows));
    }
    r.b2 = add(r.b2, m.b2);
  }
  r.b2 = nonzero(r.b2);
  return L{r, false};
}

// The layers a sum of (canonical) branches is, at input width d.
Layers merge(const std::vector<Layers>& branches, bool residual, std::size_t d) {
  std::optional<Aff> aff;
  if (residual) aff = Aff{eye(d), std::nullopt};
  std::optional<Attention<Fmpq>> att;
  std::vector<const ChannelMix<Fmpq>*> mlps;
  std::vector<Layers> rest;
  if (branches.empty()) return {L{Branches<Fmpq>{}, residual}};
  for (const auto& b : branches) {
    if (auto a = affine_of(b, d)) {
      aff = aff ? sum(*aff, *a) : *a;
      continue;
    }
    if (b.size() == 1 && !b[0].residual) {
      if (const auto* x = std::get_if<Attention<Fmpq>>(&b[0].op);
          x && !x->heads.empty() && (!att || (att->degree() == x->degree() && att->causal == x->causal))) {
        if (!att) att = *x;
        else att->heads.insert(att->heads.end(), x->heads.begin(), x->heads.end());
        continue;
      }
      if (const auto* c = std::get_if<ChannelMix<Fmpq>>(&b[0].op); c && c->activation == Activation::square) {
        mlps.push_back(c);
        continue;
      }
    }
    rest.push_back(b);
  }
  std::vector<Layers> terms;
  if (att) terms.push_back({L{*att, false}});
  if (mlps.size() == 1) terms.push_back({L{*mlps[0], false}});
  if (mlps.size() > 1) terms.push_back({merged_mlps(mlps)});
  for (auto& r : rest) terms.push_back(std::move(r));
  if (aff && zero(aff->W) && !aff->b && !terms.empty()) aff.reset();
  if (terms.empty()) return aff->identity() ? Layers{} : Layers{affine_layer(*aff)};
  if (terms.size() == 1 && !aff) return terms[0];
  if (terms.size() == 1 && aff->identity() && terms[0].size() == 1 && !terms[0][0].residual) {
    L l = terms[0][0];
    l.residual = true;
    return {l};
  }
  Branches<Fmpq> br;
  br.branches = std::move(terms);
  if (aff) br.branches.push_back(aff->identity() ? Layers{} : Layers{affine_layer(*aff)});
  return {L{br, false}};
}

Layers canon(const Layers& ls, std::size_t d) {
  Layers out;
  std::size_t w = d;
  for (const L& l0 : ls) {
    L l = l0;
    strip_zero_biases(l);
    if (auto a = affine_of(l, w)) {
      if (!a->identity()) out.push_back(affine_layer(*a));
    } else if (const auto* br = std::get_if<Branches<Fmpq>>(&l.op)) {
      std::vector<Layers> bs;
      for (const auto& b : br->branches) bs.push_back(canon(b, w));
      for (auto& m : merge(bs, l.residual, w)) out.push_back(std::move(m));
    } else {
      out.push_back(std::move(l));
    }
    w = l0.out_width(w);
  }
  fold(out, d);
  return out;
}

}  // namespace

Model canonical_form(const Model& m) {
  if (m.gaussian()) return m;
  Model c = m;
  c.layers = canon(m.layers, m.width);
  try {
    validate_model(c, "the canonical form of " + m.name);
  } catch (const InputError& e) {
    throw InternalError(std::string("canonical form: ") + e.what());
  }
  return c;
}

}  // namespace netpoly
