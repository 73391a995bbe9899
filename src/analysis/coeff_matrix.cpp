#include "netpoly/coeff_matrix.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>

#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"

namespace netpoly {

namespace {

// Key of an exponent sub-vector: the exponents as 16-bit units in a string.
void key_of(std::string& k, const std::vector<ulong>& e, const std::vector<slong>& vars) {
  k.resize(vars.size() * 2);
  for (std::size_t j = 0; j < vars.size(); ++j) {
    ulong x = e[vars[j]];
    if (x > 0xffff) throw LimitError("coefficient matrix: an exponent above 65535 is not supported");
    k[2 * j] = static_cast<char>(x & 0xff);
    k[2 * j + 1] = static_cast<char>((x >> 8) & 0xff);
  }
}

// Entries ordered by (row, column), ties in their original order: a stable
// counting sort by row (rows are numbered 0..rows-1), then each row's few
// entries by column. (A stable_sort of all entries took 40% of the
// coefficient matrix of attn(2,4,2,6).)
void sort_by_row(SparseIntMatrix& M) {
  const std::size_t n = M.nnz();
  std::vector<std::size_t> idx(n);
  bool in_range = true;
  for (auto r : M.r) in_range = in_range && r < M.rows;
  if (in_range) {
    std::vector<std::size_t> start(M.rows + 1, 0);
    for (auto r : M.r) ++start[r + 1];
    for (std::size_t i = 0; i < M.rows; ++i) start[i + 1] += start[i];
    std::vector<std::size_t> pos(start.begin(), start.end() - 1);
    for (std::size_t k = 0; k < n; ++k) idx[pos[M.r[k]]++] = k;
    for (std::size_t i = 0; i < M.rows; ++i)
      std::stable_sort(idx.begin() + static_cast<std::ptrdiff_t>(start[i]),
                       idx.begin() + static_cast<std::ptrdiff_t>(start[i + 1]),
                       [&](std::size_t a, std::size_t b) { return M.c[a] < M.c[b]; });
  } else {  // rows beyond M.rows (a malformed matrix): order it all the same
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      return M.r[a] != M.r[b] ? M.r[a] < M.r[b] : M.c[a] < M.c[b];
    });
  }
  SparseIntMatrix S;
  S.rows = M.rows;
  S.cols = M.cols;
  S.r.reserve(M.nnz());
  S.c.reserve(M.nnz());
  S.v.reserve(M.nnz());
  for (auto k : idx) {
    S.r.push_back(M.r[k]);
    S.c.push_back(M.c[k]);
    S.v.push_back(std::move(M.v[k]));
  }
  M = std::move(S);
}

}  // namespace

SparseIntMatrix coefficient_matrix(const FmpqMpoly& y, const Partition& P) {
  const slong nv = y.ctx()->nvars();
  if (P.in_A.size() != static_cast<std::size_t>(nv))
    throw InputError("partition " + P.label() + ": it splits " + std::to_string(P.in_A.size()) +
                     " variables, the polynomial has " + std::to_string(nv));
  std::vector<slong> va, vb;
  for (slong v = 0; v < nv; ++v) (P.in_A[v] ? va : vb).push_back(v);
  const fmpz_mpoly_struct* z = y.get()->zpoly;
  const fmpz_mpoly_ctx_struct* zctx = y.c()->zctx;
  const slong len = z->length;
  check_exponents_fit(y, "the coefficient matrix");
  SparseIntMatrix M;
  M.r.reserve(len);
  M.c.reserve(len);
  M.v.reserve(len);
  // Rows and columns are numbered in order of first appearance. The key of a
  // side's exponent sub-vector is one word when it fits (each exponent is at
  // most the largest degree in one variable, D, so bits(D) bits per
  // variable), else a string. (Per-variable degrees are a maximum over the
  // packed words; the total degree is not, in a lexicographic ring.)
  std::vector<slong> degs(static_cast<std::size_t>(nv), 0);
  if (len) fmpz_mpoly_degrees_si(degs.data(), z, zctx);
  slong D = 1;
  for (slong d : degs) D = std::max(D, d);
  const std::size_t b = static_cast<std::size_t>(FLINT_BIT_COUNT(static_cast<ulong>(D)));
  const bool packed = va.size() * b <= 64 && vb.size() * b <= 64;
  std::unordered_map<std::string, std::uint32_t> rows, cols;
  std::unordered_map<std::uint64_t, std::uint32_t> rows_w, cols_w;
  if (packed) {
    rows_w.reserve(static_cast<std::size_t>(len) / 4 + 16);
    cols_w.reserve(static_cast<std::size_t>(len) / 4 + 16);
  }
  auto word_of = [&](const std::vector<ulong>& e, const std::vector<slong>& vars) {
    std::uint64_t k = 0;
    for (slong v : vars) k = (k << b) | e[v];
    return k;
  };
  std::vector<ulong> e(nv);
  std::string ka, kb;
  for (slong t = 0; t < len; ++t) {
    fmpz_mpoly_get_term_exp_ui(e.data(), z, t, zctx);
    std::uint32_t ir, ic;
    if (packed) {
      ir = rows_w.try_emplace(word_of(e, va), static_cast<std::uint32_t>(rows_w.size())).first->second;
      ic = cols_w.try_emplace(word_of(e, vb), static_cast<std::uint32_t>(cols_w.size())).first->second;
    } else {
      key_of(ka, e, va);
      key_of(kb, e, vb);
      ir = rows.try_emplace(ka, static_cast<std::uint32_t>(rows.size())).first->second;
      ic = cols.try_emplace(kb, static_cast<std::uint32_t>(cols.size())).first->second;
    }
    M.r.push_back(ir);
    M.c.push_back(ic);
    Fmpz c;
    fmpz_set(c.get(), z->coeffs + t);
    M.v.push_back(std::move(c));
  }
  if (packed) {
    M.rows = rows_w.size();
    M.cols = cols_w.size();
  } else {
    M.rows = rows.size();
    M.cols = cols.size();
  }
  // Row and column ids are 32-bit, and split_blocks numbers rows then columns.
  if (M.rows + M.cols > UINT32_MAX)
    throw LimitError("the coefficient matrix: " + std::to_string(M.rows) + " A-parts and " +
                     std::to_string(M.cols) + " B-parts exceed 2^32 - 1 rows and columns together");
  sort_by_row(M);
  return M;
}

SparseIntMatrix make_sparse(std::size_t rows, std::size_t cols,
                            std::vector<std::tuple<std::uint32_t, std::uint32_t, Fmpz>> entries) {
  SparseIntMatrix M;
  M.rows = rows;
  M.cols = cols;
  for (auto& [r, c, v] : entries) {
    if (v.is_zero()) continue;
    M.r.push_back(r);
    M.c.push_back(c);
    M.v.push_back(std::move(v));
  }
  sort_by_row(M);
  return M;
}

namespace {

struct UnionFind {
  std::vector<std::uint32_t> p;
  explicit UnionFind(std::size_t n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  std::uint32_t find(std::uint32_t x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
  }
  void unite(std::uint32_t a, std::uint32_t b) { p[find(a)] = find(b); }
};

}  // namespace

std::vector<SparseIntMatrix> split_blocks(const SparseIntMatrix& C) {
  const std::size_t m = C.rows;
  UnionFind uf(C.rows + C.cols);
  for (std::size_t k = 0; k < C.nnz(); ++k) uf.unite(C.r[k], static_cast<std::uint32_t>(m + C.c[k]));
  // Number the components by first appearance (deterministic), and the rows and
  // columns inside each block in their original order.
  std::unordered_map<std::uint32_t, std::size_t> comp;
  std::vector<std::size_t> row_block(C.rows, SIZE_MAX), col_block(C.cols, SIZE_MAX);
  std::vector<std::uint32_t> row_local(C.rows), col_local(C.cols);
  std::vector<SparseIntMatrix> blocks;
  for (std::size_t k = 0; k < C.nnz(); ++k) {
    auto root = uf.find(C.r[k]);
    auto [it, fresh] = comp.try_emplace(root, blocks.size());
    if (fresh) blocks.emplace_back();
    std::size_t b = it->second;
    SparseIntMatrix& B = blocks[b];
    if (row_block[C.r[k]] == SIZE_MAX) {
      row_block[C.r[k]] = b;
      row_local[C.r[k]] = static_cast<std::uint32_t>(B.rows++);
    }
    if (col_block[C.c[k]] == SIZE_MAX) {
      col_block[C.c[k]] = b;
      col_local[C.c[k]] = static_cast<std::uint32_t>(B.cols++);
    }
    B.r.push_back(row_local[C.r[k]]);
    B.c.push_back(col_local[C.c[k]]);
    B.v.push_back(C.v[k]);
  }
  return blocks;  // rows stay sorted: C is sorted by row and local numbering is monotone
}

}  // namespace netpoly
