// Helpers the modular and exact rank code share (internal to src/analysis).
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/rank/coeff_matrix.hpp"
#include "netpoly/flint.hpp"

namespace netpoly::rank_detail {

// v mod q for an fmpz, without a library call when v is a small integer.
inline ulong mod_small(const fmpz* v, ulong q) {
  if (!COEFF_IS_MPZ(*v)) {
    slong x = *v % static_cast<slong>(q);
    return static_cast<ulong>(x < 0 ? x + static_cast<slong>(q) : x);
  }
  return fmpz_fdiv_ui(v, q);
}

// Row pointers of a row-sorted sparse matrix.
inline std::vector<std::size_t> row_starts(const SparseIntMatrix& C) {
  std::vector<std::size_t> s(C.rows + 1, 0);
  for (auto r : C.r) ++s[r + 1];
  for (std::size_t i = 0; i < C.rows; ++i) s[i + 1] += s[i];
  return s;
}

}  // namespace netpoly::rank_detail
