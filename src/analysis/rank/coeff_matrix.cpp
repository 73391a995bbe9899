#include "analysis/rank/coeff_matrix.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>

#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "expansion/packing.hpp"

namespace netpoly {

namespace {

// Key of an exponent sub-vector: the exponents as 16-bit big-endian units in
// a string, so that comparing keys (as unsigned bytes) is the lexicographic
// order of the sub-vectors.
void key_of(std::string& k, const std::vector<ulong>& e, const std::vector<slong>& vars) {
  k.resize(vars.size() * 2);
  for (std::size_t j = 0; j < vars.size(); ++j) {
    ulong x = e[vars[j]];
    if (x > 0xffff) throw LimitError("coefficient matrix: an exponent above 65535 is not supported");
    k[2 * j] = static_cast<char>((x >> 8) & 0xff);
    k[2 * j + 1] = static_cast<char>(x & 0xff);
  }
}

// Distinct 64-bit keys numbered in order of first appearance: open
// addressing with linear probing, at most half full. A key equal to the one
// before is answered without probing (rows come in runs in a lexicographic
// ring whose A-variables come first).
class WordIds {
 public:
  std::uint32_t id(std::uint64_t k) {
    if (!keys_.empty() && k == last_key_) return last_id_;
    if (2 * (keys_.size() + 1) > slot_id_.size()) grow();
    std::size_t i = slot(k);
    while (slot_id_[i] != kEmpty && slot_key_[i] != k) i = (i + 1) & mask_;
    if (slot_id_[i] == kEmpty) {
      slot_key_[i] = k;
      slot_id_[i] = static_cast<std::uint32_t>(keys_.size());
      keys_.push_back(k);
    }
    last_key_ = k;
    return last_id_ = slot_id_[i];
  }
  const std::vector<std::uint64_t>& keys() const { return keys_; }  // by id

 private:
  static constexpr std::uint32_t kEmpty = UINT32_MAX;
  std::size_t slot(std::uint64_t k) const { return static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ULL) >> shift_); }
  void grow() {
    const std::size_t cap = std::max<std::size_t>(64, 2 * slot_id_.size());
    shift_ = 64 - static_cast<unsigned>(FLINT_BIT_COUNT(cap) - 1);
    mask_ = cap - 1;
    slot_key_.assign(cap, 0);
    slot_id_.assign(cap, kEmpty);
    for (std::size_t id = 0; id < keys_.size(); ++id) {
      std::size_t i = slot(keys_[id]);
      while (slot_id_[i] != kEmpty) i = (i + 1) & mask_;
      slot_key_[i] = keys_[id];
      slot_id_[i] = static_cast<std::uint32_t>(id);
    }
  }
  std::vector<std::uint64_t> slot_key_, keys_;
  std::vector<std::uint32_t> slot_id_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::uint64_t last_key_ = 0;
  std::uint32_t last_id_ = 0;
};

// Final number of each provisional id: the rank of its key in decreasing order.
template <class Key>
std::vector<std::uint32_t> decreasing_ranks(const std::vector<Key>& keys) {
  std::vector<std::uint32_t> order(keys.size()), rank(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[b] < keys[a]; });
  for (std::size_t k = 0; k < order.size(); ++k) rank[order[k]] = static_cast<std::uint32_t>(k);
  return rank;
}

// The positions 0..n-1 of entries (r[k], c[k]), all rows below `rows`,
// ordered by (row, column), ties in their original order: a stable counting
// sort by row, then each row's few entries by column. (A stable_sort of all
// entries took 40% of the coefficient matrix of attn(2,4,2,6).)
std::vector<std::size_t> row_major_order(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& c,
                                         std::size_t rows) {
  const std::size_t n = r.size();
  std::vector<std::size_t> idx(n), start(rows + 1, 0);
  for (auto x : r) ++start[x + 1];
  for (std::size_t i = 0; i < rows; ++i) start[i + 1] += start[i];
  std::vector<std::size_t> pos(start.begin(), start.end() - 1);
  for (std::size_t k = 0; k < n; ++k) idx[pos[r[k]]++] = k;
  for (std::size_t i = 0; i < rows; ++i)
    std::stable_sort(idx.begin() + static_cast<std::ptrdiff_t>(start[i]),
                     idx.begin() + static_cast<std::ptrdiff_t>(start[i + 1]),
                     [&](std::size_t a, std::size_t b) { return c[a] < c[b]; });
  return idx;
}

bool in_row_major_order(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& c) {
  for (std::size_t k = 1; k < r.size(); ++k)
    if (r[k - 1] > r[k] || (r[k - 1] == r[k] && c[k - 1] >= c[k])) return false;
  return true;
}

// Entries ordered by (row, column), ties in their original order (make_sparse
// may be given repeated positions).
void sort_by_row(SparseIntMatrix& M) {
  bool in_range = true;
  for (auto r : M.r) in_range = in_range && r < M.rows;
  std::vector<std::size_t> idx;
  if (in_range) {
    idx = row_major_order(M.r, M.c, M.rows);
  } else {  // rows beyond M.rows (a malformed matrix): order it all the same
    idx.resize(M.nnz());
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

// The matrix from each term's row and column, numbered by first appearance
// (r, c), and those numbers' final ones (rank_r, rank_c).
SparseIntMatrix assemble(const fmpz_mpoly_struct* z, std::vector<std::uint32_t>& r, std::vector<std::uint32_t>& c,
                         const std::vector<std::uint32_t>& rank_r, const std::vector<std::uint32_t>& rank_c) {
  const std::size_t len = r.size();
  SparseIntMatrix M;
  M.rows = rank_r.size();
  M.cols = rank_c.size();
  // Row and column ids are 32-bit, and split_blocks numbers rows then columns.
  if (M.rows + M.cols > UINT32_MAX)
    throw LimitError("the coefficient matrix: " + std::to_string(M.rows) + " A-parts and " +
                     std::to_string(M.cols) + " B-parts exceed 2^32 - 1 rows and columns together");
  for (std::size_t t = 0; t < len; ++t) {
    r[t] = rank_r[r[t]];
    c[t] = rank_c[c[t]];
  }
  // Terms are distinct monomials, so no (row, column) repeats. In a
  // lexicographic ring whose A-variables come first they are in row-major
  // order already.
  std::optional<std::vector<std::size_t>> order;
  if (!in_row_major_order(r, c)) order = row_major_order(r, c, M.rows);
  M.r.resize(len);
  M.c.resize(len);
  M.v.resize(len);
  for (std::size_t k = 0; k < len; ++k) {
    const std::size_t t = order ? (*order)[k] : k;
    M.r[k] = r[t];
    M.c[k] = c[t];
    fmpz_set(M.v[k].get(), z->coeffs + t);
  }
  return M;
}

// Rows and columns through one-word side keys: key(t, ka, kb) gives term t's.
template <class Key>
SparseIntMatrix from_word_keys(const fmpz_mpoly_struct* z, Key&& key) {
  const std::size_t len = static_cast<std::size_t>(z->length);
  std::vector<std::uint32_t> r(len), c(len);
  WordIds rows, cols;
  std::uint64_t ka = 0, kb = 0;
  for (std::size_t t = 0; t < len; ++t) {
    key(t, ka, kb);
    r[t] = rows.id(ka);
    c[t] = cols.id(kb);
  }
  return assemble(z, r, c, decreasing_ranks(rows.keys()), decreasing_ranks(cols.keys()));
}

void check_partition_size(const Partition& P, slong nv) {
  if (P.in_A.size() != static_cast<std::size_t>(nv))
    throw InputError("partition " + P.label() + ": it splits " + std::to_string(P.in_A.size()) +
                     " variables, the polynomial has " + std::to_string(nv));
}

}  // namespace

SparseIntMatrix coefficient_matrix(const FmpqMpoly& y, const Partition& P) {
  const slong nv = y.ctx()->nvars();
  check_partition_size(P, nv);
  std::vector<slong> va, vb;
  for (slong v = 0; v < nv; ++v) (P.in_A[v] ? va : vb).push_back(v);
  const fmpz_mpoly_struct* z = y.get()->zpoly;
  const fmpz_mpoly_ctx_struct* zctx = y.c()->zctx;
  const std::size_t len = static_cast<std::size_t>(z->length);
  check_exponents_fit(y, "the coefficient matrix");
  // Each term's row and column: first numbered by first appearance, then
  // renumbered in decreasing lexicographic order of the A- and B-parts, which
  // does not depend on the ring's ordering. The key of a side's exponent
  // sub-vector is one word when it fits (each exponent is at most the largest
  // degree in one variable, D, so bits(D) bits per variable, the first
  // variable most significant), else a string. (Per-variable degrees are a
  // maximum over the packed words; the total degree is not, in a
  // lexicographic ring.)
  std::vector<slong> degs(static_cast<std::size_t>(nv), 0);
  if (len) fmpz_mpoly_degrees_si(degs.data(), z, zctx);
  slong D = 1;
  for (slong d : degs) D = std::max(D, d);
  const std::size_t b = static_cast<std::size_t>(FLINT_BIT_COUNT(static_cast<ulong>(D)));
  std::vector<ulong> e(static_cast<std::size_t>(nv));
  if (va.size() * b <= 64 && vb.size() * b <= 64) {
    auto word_of = [&](const std::vector<slong>& vars) {
      std::uint64_t k = 0;
      for (slong v : vars) k = (k << b) | e[v];
      return k;
    };
    return from_word_keys(z, [&](std::size_t t, std::uint64_t& ka, std::uint64_t& kb) {
      fmpz_mpoly_get_term_exp_ui(e.data(), z, static_cast<slong>(t), zctx);
      ka = word_of(va);
      kb = word_of(vb);
    });
  }
  std::vector<std::uint32_t> r(len), c(len);
  std::unordered_map<std::string, std::uint32_t> rows, cols;
  std::vector<std::string> row_keys, col_keys;
  auto id = [](auto& map, auto& keys, const std::string& k) {
    auto [it, fresh] = map.try_emplace(k, static_cast<std::uint32_t>(keys.size()));
    if (fresh) keys.push_back(k);
    return it->second;
  };
  std::string ka, kb;
  for (std::size_t t = 0; t < len; ++t) {
    fmpz_mpoly_get_term_exp_ui(e.data(), z, static_cast<slong>(t), zctx);
    key_of(ka, e, va);
    key_of(kb, e, vb);
    r[t] = id(rows, row_keys, ka);
    c[t] = id(cols, col_keys, kb);
  }
  return assemble(z, r, c, decreasing_ranks(row_keys), decreasing_ranks(col_keys));
}

SparseIntMatrix coefficient_matrix(const PackedExpansion& y, const Partition& P) {
  const Packing& pk = y.packing;
  if (pk.group < 2) return coefficient_matrix(y.poly, P);
  const slong nv = y.nvars;
  check_partition_size(P, nv);
  // The same keys as the unpacked polynomial's, bits(degree) bits per
  // variable (any width that holds every exponent gives the same order).
  // Each field's value f stands for the same digits wherever it occurs, so a
  // term's keys are the OR of one table row per field (as in unpack).
  std::size_t na = 0;
  for (slong v = 0; v < nv; ++v) na += P.in_A[v] ? 1 : 0;
  const std::size_t nb = static_cast<std::size_t>(nv) - na;
  const std::size_t b = static_cast<std::size_t>(FLINT_BIT_COUNT(std::max<ulong>(y.degree, 1)));
  if (na * b > 64 || nb * b > 64) {
    PolyRing R(nv, ORD_LEX);
    return coefficient_matrix(unpack(R, PackedExpansion(y)), P);
  }
  std::vector<unsigned> shift(static_cast<std::size_t>(nv));
  for (slong v = 0, ia = 0, ib = 0; v < nv; ++v)
    shift[v] = static_cast<unsigned>(b * (P.in_A[v] ? na - 1 - ia++ : nb - 1 - ib++));
  // Rows of two words: the A-key bits and the B-key bits of a field value.
  const auto table = packed_value_table(pk, nv, 2, [&](ulong* row, const std::vector<ulong>& e, slong v0, slong c) {
    for (slong v = v0; v < v0 + c; ++v) row[P.in_A[v] ? 0 : 1] |= static_cast<std::uint64_t>(e[v]) << shift[v];
  });
  const fmpz_mpoly_struct* z = y.poly.get()->zpoly;
  const mpoly_ctx_struct* minfo = y.poly.c()->zctx->minfo;
  const slong N = static_cast<slong>(mpoly_words_per_exp(z->bits, minfo));
  std::vector<ulong> pe(static_cast<std::size_t>(pk.fields));
  return from_word_keys(z, [&](std::size_t t, std::uint64_t& ka, std::uint64_t& kb) {
    mpoly_get_monomial_ui(pe.data(), z->exps + N * static_cast<slong>(t), z->bits, minfo);
    ka = kb = 0;
    for (slong j = 0; j < pk.fields; ++j) {
      const ulong* row = table.data() + packed_row(pk, j, pe[static_cast<std::size_t>(j)]) * 2;
      ka |= row[0];
      kb |= row[1];
    }
  });
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
  const std::size_t m = C.rows, n = C.nnz();
  UnionFind uf(C.rows + C.cols);
  for (std::size_t k = 0; k < n; ++k) uf.unite(C.r[k], static_cast<std::uint32_t>(m + C.c[k]));
  // Number the components by first appearance (deterministic), and the rows and
  // columns inside each block in their original order. First each entry's
  // block and the blocks' sizes, then the entries.
  constexpr std::uint32_t kNone = UINT32_MAX;
  std::vector<std::uint32_t> block_of_root(C.rows + C.cols, kNone), entry_block(n);
  std::vector<std::size_t> block_nnz;
  for (std::size_t k = 0; k < n; ++k) {
    std::uint32_t& b = block_of_root[uf.find(C.r[k])];
    if (b == kNone) {
      b = static_cast<std::uint32_t>(block_nnz.size());
      block_nnz.push_back(0);
    }
    entry_block[k] = b;
    ++block_nnz[b];
  }
  std::vector<SparseIntMatrix> blocks(block_nnz.size());
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    blocks[b].r.reserve(block_nnz[b]);
    blocks[b].c.reserve(block_nnz[b]);
    blocks[b].v.reserve(block_nnz[b]);
  }
  std::vector<std::uint32_t> row_local(C.rows, kNone), col_local(C.cols, kNone);
  for (std::size_t k = 0; k < n; ++k) {
    SparseIntMatrix& B = blocks[entry_block[k]];
    if (row_local[C.r[k]] == kNone) row_local[C.r[k]] = static_cast<std::uint32_t>(B.rows++);
    if (col_local[C.c[k]] == kNone) col_local[C.c[k]] = static_cast<std::uint32_t>(B.cols++);
    B.r.push_back(row_local[C.r[k]]);
    B.c.push_back(col_local[C.c[k]]);
    B.v.push_back(C.v[k]);
  }
  return blocks;  // rows stay sorted: C is sorted by row and local numbering is monotone
}

}  // namespace netpoly
