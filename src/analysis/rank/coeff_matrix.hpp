// The coefficient matrix C[alpha][beta] of a polynomial y for a partition
// (A, B): y = sum C[alpha][beta] x_A^alpha x_B^beta. sep(y; A, B) = rank_Q(C).
// Built sparsely (coordinate form), never dense.
#pragma once
#include <cstdint>
#include <vector>

#include "netpoly/expand.hpp"
#include "netpoly/flint.hpp"
#include "netpoly/partition.hpp"
#include "expansion/packing.hpp"

namespace netpoly {

struct SparseIntMatrix {
  std::size_t rows = 0, cols = 0;
  std::vector<std::uint32_t> r, c;  // entry k sits at (r[k], c[k]); sorted by row
  std::vector<Fmpz> v;              // nonzero integer values
  std::size_t nnz() const { return v.size(); }
};

// Integer coefficient matrix of y (the common denominator is dropped: it
// scales C and does not change its rank). Rows = distinct A-parts alpha,
// columns = distinct B-parts beta, each in decreasing lexicographic order of
// its exponents (whatever the ring's ordering).
SparseIntMatrix coefficient_matrix(const FmpqMpoly& y, const Partition& P);
// The same matrix read from an expansion still in its packed ring (no
// unpacking: the side keys come from tables of each field's digits).
SparseIntMatrix coefficient_matrix(const PackedExpansion& y, const Partition& P);

// Builds a matrix from explicit entries (tests, certificates); sorts by row.
SparseIntMatrix make_sparse(std::size_t rows, std::size_t cols,
                            std::vector<std::tuple<std::uint32_t, std::uint32_t, Fmpz>> entries);

// Splits C into the connected components of its row-column graph: C is
// block diagonal after permutation, and rank(C) = sum of the blocks' ranks.
std::vector<SparseIntMatrix> split_blocks(const SparseIntMatrix& C);

}  // namespace netpoly
