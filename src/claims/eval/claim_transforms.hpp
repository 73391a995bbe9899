// Network transformations the claim language offers (wide_sparse, permute,
// prefix). Each returns a new, validated model; the input is not changed.
#pragma once
#include <cstddef>
#include <vector>

#include "netpoly/model.hpp"

namespace netpoly {

// WS (Understanding MLP-Mixer as a Wide and Sparse MLP): a network of
// token_mix / channel_mix / product / permute layers on N tokens of width d
// rewritten as a one-token network of width N*d whose layers are channel_mix
// (or product) layers with Kronecker-structured weights, using
// vec(W X V) = (V^T ⊗ W) vec(X) (column-major vec) and, for our row-major
// vec, vec_r(W X V) = (W ⊗ V^T) vec_r(X):
//
//   vec = row (default): token mixing W -> W ⊗ I_d, channel mixing W -> I_N ⊗ W,
//                        product blocks W_k -> I_N ⊗ W_k; no permutations needed.
//   vec = column:        the paper's vec: a permute layer into column-major order
//                        first, token mixing -> I_d ⊗ W, channel mixing -> W ⊗ I_N,
//                        and a permute back to row-major order at the end.
//   blocks = diagonal:   every weight block-diagonal (I ⊗ W, the paper's
//                        "permuted Kronecker" form); commutation permutes are
//                        inserted where the vec order must change.
//   merge = true:        (linear networks only: activation none, no residual)
//                        one layer whose weight is the single Kronecker product
//                        V^T ⊗ W (column) or W ⊗ V^T (row), with W the product of
//                        the token-mixing matrices and V^T that of the channel ones.
// Input variable x{i}_{c} becomes x0_{i*d+c} (the same flat index), and output
// entry (i, c) becomes (0, i*d_out + c). Attention layers throw InputError.
struct WideSparseOptions {
  bool column = false;
  bool block_diagonal = false;
  bool merge = false;
};
Model wide_sparse(const Model& m, const WideSparseOptions& o = {});

// Kronecker product A ⊗ B and the identity, on exact matrices.
Mat<Fmpq> kron(const Mat<Fmpq>& A, const Mat<Fmpq>& B);
Mat<Fmpq> identity_mat(std::size_t n);

// The network followed (at_input = false) or preceded (at_input = true) by a
// permute layer: vec(Y)[t] = vec(X)[perm[t]] over row-major entries.
// Throws InputError unless perm is a permutation of the right size.
Model permute_network(const Model& m, const std::vector<std::size_t>& perm, bool at_input);

// The first k layers (k = 0: the identity network).
Model prefix_network(const Model& m, std::size_t k);

}  // namespace netpoly
