// wide_sparse (WS), permute, prefix: claim_transforms.hpp.
#include <algorithm>
#include <numeric>

#include "claims/eval/claim_transforms.hpp"
#include "netpoly/error.hpp"

namespace netpoly {

Mat<Fmpq> kron(const Mat<Fmpq>& A, const Mat<Fmpq>& B) {
  Mat<Fmpq> K(A.rows * B.rows, A.cols * B.cols);
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t j = 0; j < A.cols; ++j) {
      const Fmpq& a = A(i, j);
      if (a.is_zero()) continue;
      for (std::size_t k = 0; k < B.rows; ++k)
        for (std::size_t l = 0; l < B.cols; ++l)
          fmpq_mul(K(i * B.rows + k, j * B.cols + l).get(), a.get(), B(k, l).get());
    }
  return K;
}

Mat<Fmpq> identity_mat(std::size_t n) {
  Mat<Fmpq> I(n, n);
  for (std::size_t i = 0; i < n; ++i) I(i, i) = Fmpq(1);
  return I;
}

namespace {

Mat<Fmpq> matmul(const Mat<Fmpq>& A, const Mat<Fmpq>& B) {
  Mat<Fmpq> C(A.rows, B.cols);
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t k = 0; k < A.cols; ++k) {
      if (A(i, k).is_zero()) continue;
      for (std::size_t j = 0; j < B.cols; ++j) fmpq_addmul(C(i, j).get(), A(i, k).get(), B(k, j).get());
    }
  return C;
}

// Row-major index i*d + c  <->  column-major index c*N + i.
std::vector<std::size_t> row_to_column(std::size_t N, std::size_t d) {
  std::vector<std::size_t> p(N * d);  // vec_c[c*N + i] = vec_r[i*d + c]
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t c = 0; c < d; ++c) p[c * N + i] = i * d + c;
  return p;
}

std::vector<std::size_t> column_to_row(std::size_t N, std::size_t d) {
  std::vector<std::size_t> p(N * d);  // vec_r[i*d + c] = vec_c[c*N + i]
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t c = 0; c < d; ++c) p[i * d + c] = c * N + i;
  return p;
}

enum class Order { row, column };

struct Builder {
  std::size_t N;
  std::size_t d;  // current width of the original network
  Order order;
  std::vector<Layer<Fmpq>> out;

  void switch_to(Order o) {
    if (o == order) return;
    out.push_back({Permute{o == Order::column ? row_to_column(N, d) : column_to_row(N, d)}, false});
    order = o;
  }
  void channel(Mat<Fmpq> W, std::optional<Mat<Fmpq>> W2, Activation act, bool residual) {
    ChannelMix<Fmpq> c;
    c.W = std::move(W);
    c.W2 = std::move(W2);
    c.activation = act;
    out.push_back({std::move(c), residual});
  }
};

std::optional<Mat<Fmpq>> kron_opt(const std::optional<Mat<Fmpq>>& W, const Mat<Fmpq>& left, bool w_left,
                                  const Mat<Fmpq>& other) {
  if (!W) return std::nullopt;
  return w_left ? kron(*W, other) : kron(left, *W);
}

Model merged(const Model& m, bool column) {
  const std::size_t N = m.tokens;
  Mat<Fmpq> T = identity_mat(N), C = identity_mat(m.width);
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    const auto& L = m.layers[l];
    const std::string where = "wide_sparse(merge = true): layer " + std::to_string(l);
    if (L.has_bias()) throw InputError(where + " has biases; WS's wide sparse form is for linear maps without biases");
    if (L.residual)
      throw InputError(where + " has a residual connection; merge needs a linear network without residuals");
    if (const auto* t = std::get_if<TokenMix<Fmpq>>(&L.op)) {
      if (t->activation != Activation::none)
        throw InputError(where + " has an activation; merge needs activation none");
      T = matmul(t->W, T);
      if (t->W2) T = matmul(*t->W2, T);
    } else if (const auto* c = std::get_if<ChannelMix<Fmpq>>(&L.op)) {
      if (c->activation != Activation::none)
        throw InputError(where + " has an activation; merge needs activation none");
      C = matmul(c->W, C);
      if (c->W2) C = matmul(*c->W2, C);
    } else {
      throw InputError(where + " is a " + L.kind() +
                       " layer; merge takes token_mix and channel_mix only");
    }
  }
  // Y = T X C^T, so vec_c(Y) = (C ⊗ T) vec_c(X) (V = C^T: V^T ⊗ W) and vec_r(Y) = (T ⊗ C) vec_r(X).
  Model r;
  r.tokens = 1;
  r.width = N * m.width;
  const std::size_t dout = C.rows;
  if (column) {
    r.layers.push_back({Permute{row_to_column(N, m.width)}, false});
    ChannelMix<Fmpq> ch;
    ch.W = kron(C, T);
    r.layers.push_back({std::move(ch), false});
    r.layers.push_back({Permute{column_to_row(N, dout)}, false});
  } else {
    ChannelMix<Fmpq> ch;
    ch.W = kron(T, C);
    r.layers.push_back({std::move(ch), false});
  }
  return r;
}

}  // namespace

Model wide_sparse(const Model& m, const WideSparseOptions& o) {
  const std::size_t N = m.tokens;
  if (m.gaussian()) throw InputError("wide_sparse: " + m.name + " has Gaussian weights (a+bi); WS's form is for real ones");
  Model r;
  if (o.merge) {
    if (o.block_diagonal)
      throw InputError(
          "wide_sparse: merge = true gives one dense Kronecker factor; it cannot be combined with blocks = diagonal");
    r = merged(m, o.column);
  } else {
    Builder b{N, m.width, Order::row, {}};
    if (o.column) b.switch_to(Order::column);
    for (std::size_t l = 0; l < m.layers.size(); ++l) {
      const auto& L = m.layers[l];
      const std::size_t d = b.d;
      if (L.has_bias())
        throw InputError("wide_sparse: layer " + std::to_string(l) +
                         " has biases; WS's wide sparse form is for linear maps without biases");
      if (const auto* t = std::get_if<TokenMix<Fmpq>>(&L.op)) {
        // token mixing is I_d ⊗ W in column order, W ⊗ I_d in row order
        if (o.block_diagonal) b.switch_to(Order::column);
        const Mat<Fmpq> I = identity_mat(d);
        if (b.order == Order::column)
          b.channel(kron(I, t->W), kron_opt(t->W2, I, false, I), t->activation, L.residual);
        else
          b.channel(kron(t->W, I), kron_opt(t->W2, I, true, I), t->activation, L.residual);
      } else if (const auto* c = std::get_if<ChannelMix<Fmpq>>(&L.op)) {
        // channel mixing is I_N ⊗ W in row order, W ⊗ I_N in column order
        if (o.block_diagonal) b.switch_to(Order::row);
        const Mat<Fmpq> I = identity_mat(N);
        if (b.order == Order::row)
          b.channel(kron(I, c->W), kron_opt(c->W2, I, false, I), c->activation, L.residual);
        else
          b.channel(kron(c->W, I), kron_opt(c->W2, I, true, I), c->activation, L.residual);
        b.d = L.out_width(d);
      } else if (const auto* p = std::get_if<Product<Fmpq>>(&L.op)) {
        if (o.block_diagonal) b.switch_to(Order::row);
        const Mat<Fmpq> I = identity_mat(N);
        Product<Fmpq> q;
        for (const auto& W : p->Ws) q.Ws.push_back(b.order == Order::row ? kron(I, W) : kron(W, I));
        b.out.push_back({std::move(q), L.residual});
        b.d = L.out_width(d);
      } else if (const auto* pm = std::get_if<Permute>(&L.op)) {
        b.switch_to(Order::row);  // the permutation is written over row-major entries
        b.out.push_back({*pm, L.residual});
      } else {
        const std::string k = L.kind();
        throw InputError("wide_sparse: layer " + std::to_string(l) + " is " +
                         (std::string("aeiou").find(k[0]) != std::string::npos ? "an " : "a ") + k +
                         " layer; only token_mix, channel_mix, product and permute layers have a "
                         "wide sparse MLP form");
      }
    }
    b.switch_to(Order::row);
    r.tokens = 1;
    r.width = N * m.width;
    r.layers = std::move(b.out);
  }
  r.name = (m.name.empty() ? std::string("model") : m.name) + "-wide-sparse";
  if (m.output) r.output = Entry{0, m.output->token * m.output_width() + m.output->channel};
  validate_model(r, "wide_sparse(" + r.name + ")");
  return r;
}

Model permute_network(const Model& m, const std::vector<std::size_t>& perm, bool at_input) {
  const std::size_t n = m.tokens * (at_input ? m.width : m.output_width());
  std::vector<char> seen(n, 0);
  if (perm.size() != n)
    throw InputError("permute: expected a permutation of 0.." + std::to_string(n - 1) + " (" + std::to_string(n) +
                     " entries), got " + std::to_string(perm.size()) + " entries");
  for (auto v : perm) {
    if (v >= n || seen[v]) throw InputError("permute: the list is not a permutation of 0.." + std::to_string(n - 1));
    seen[v] = 1;
  }
  Model r = m;
  Layer<Fmpq> L{Permute{perm}, false};
  for (auto* ls : {&r.layers, &r.imag}) {  // the imaginary parts keep the structure of the real ones
    if (ls == &r.imag && !m.gaussian()) continue;
    if (at_input)
      ls->insert(ls->begin(), L);
    else
      ls->push_back(L);
  }
  r.name = m.name + (at_input ? "-permuted-input" : "-permuted");
  validate_model(r, "permute(" + m.name + ")");
  return r;
}

Model prefix_network(const Model& m, std::size_t k) {
  if (k > m.layers.size())
    throw InputError("prefix: the network has " + std::to_string(m.layers.size()) + " layers, asked for " +
                     std::to_string(k));
  Model r = m;
  r.layers.resize(k);
  if (m.gaussian()) r.imag.resize(k);
  r.name = m.name + "-prefix" + std::to_string(k);
  const std::size_t dout = r.output_width();
  if (r.output && r.output->channel >= dout) r.output = Entry{r.output->token, 0};
  validate_model(r, "prefix(" + m.name + ")");
  return r;
}

}  // namespace netpoly
