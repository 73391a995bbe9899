// The gram bound's counts and the shapes it applies to (gram.hpp; the proofs
// are in docs/math.md §4).
#include "analysis/engines/gram.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include "netpoly/rings.hpp"

namespace netpoly::gram {

Fmpz monomials(std::size_t n, std::size_t k) {
  Fmpz c;
  if (n == 0) fmpz_set_ui(c.get(), k == 0 ? 1 : 0);
  else fmpz_bin_uiui(c.get(), k + n - 1, n - 1);
  return c;
}

Fmpz schur_dim(const std::vector<std::size_t>& lambda, std::size_t d) {
  std::size_t len = 0;
  for (std::size_t x : lambda) len += x > 0;
  if (len > d) return Fmpz(0);
  // prod_{i<j} (l_i - l_j + j - i) / (j - i); pairs with both rows empty give 1.
  Fmpz num(1), den(1);
  auto part = [&](std::size_t i) { return i < lambda.size() ? static_cast<slong>(lambda[i]) : 0; };
  for (std::size_t i = 0; i < std::min(len, d); ++i)
    for (std::size_t j = i + 1; j < d; ++j) {
      fmpz_mul_si(num.get(), num.get(), part(i) - part(j) + static_cast<slong>(j - i));
      fmpz_mul_ui(den.get(), den.get(), j - i);
    }
  Fmpz r;
  fmpz_divexact(r.get(), num.get(), den.get());
  return r;
}

namespace {

// Calls f(mu) for every partition mu of k into at most `parts` parts
// (non-increasing); false when more than `budget` partitions were reached.
bool for_partitions(std::size_t k, std::size_t parts, double& budget,
                    const std::function<void(const std::vector<std::size_t>&)>& f) {
  std::vector<std::size_t> mu;
  std::function<bool(std::size_t, std::size_t)> rec = [&](std::size_t left, std::size_t cap) {
    if (left == 0) {
      if (--budget < 0) return false;
      f(mu);
      return true;
    }
    if (mu.size() == parts) return true;
    for (std::size_t x = std::min(left, cap); x >= 1; --x) {
      // The rest must fit in the parts left, each at most x.
      if (static_cast<double>(x) * static_cast<double>(parts - mu.size()) < static_cast<double>(left)) break;
      mu.push_back(x);
      const bool ok = rec(left - x, x);
      mu.pop_back();
      if (!ok) return false;
    }
    return true;
  };
  return rec(k, k);
}

}  // namespace

std::optional<Fmpz> gram_dim(std::size_t k, std::size_t d, std::size_t r, double& budget) {
  // r >= d: no relations, every monomial of the d(d+1)/2 entries (the sum
  // below equals it, Littlewood's identity; this avoids the enumeration).
  if (r >= d) return monomials(d * (d + 1) / 2, k);
  Fmpz total;
  std::vector<std::size_t> lam;
  const bool ok = for_partitions(k, std::min(r, d), budget, [&](const std::vector<std::size_t>& mu) {
    lam.assign(mu.begin(), mu.end());
    for (auto& x : lam) x *= 2;
    fmpz_add(total.get(), total.get(), schur_dim(lam, d).get());
  });
  if (!ok) return std::nullopt;
  return total;
}

std::optional<Fmpz> covariant_dim(std::size_t j, std::size_t d, std::size_t n, double& budget) {
  const std::size_t len = std::min(n, d);
  if (len == 0) return Fmpz(0);
  Fmpz total;
  std::vector<std::size_t> lam;
  const bool ok = for_partitions(j, len, budget, [&](const std::vector<std::size_t>& mu) {
    // lambda = 2 mu plus one box in row i: a partition when i = 0 or
    // mu_{i-1} > mu_i (then 2 mu_{i-1} >= 2 mu_i + 2); a new row needs room.
    for (std::size_t i = 0; i <= mu.size() && i < len; ++i) {
      if (i > 0 && i < mu.size() && mu[i - 1] == mu[i]) continue;
      lam.assign(mu.begin(), mu.end());
      for (auto& x : lam) x *= 2;
      if (i == lam.size()) lam.push_back(0);
      ++lam[i];
      fmpz_add(total.get(), total.get(), schur_dim(lam, d).get());
    }
  });
  if (!ok) return std::nullopt;
  return total;
}

std::optional<Shape> attention_shape(const Model& m, const Entry& e, const Partition& P, std::string& why) {
  Shape s;
  s.d = m.width;
  if (m.layers.empty()) {
    why = "not an attention network (no layers)";
    return std::nullopt;
  }
  std::size_t forms = 0;
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    const auto* a = std::get_if<Attention<Fmpq>>(&m.layers[l].op);
    if (!a) {
      why = std::string("applies to attention layers only (layer ") + std::to_string(l) + " is " +
            m.layers[l].kind() + ")";
      return std::nullopt;
    }
    if (a->causal) {
      // A mask breaks the tokens' symmetry the Gram form rests on (Phi(M) of the whole Gram matrix).
      why = "applies to attention without a causal mask (layer " + std::to_string(l) + " is causal)";
      return std::nullopt;
    }
    if (m.layers[l].has_bias()) {
      // A bias breaks the form x_o * Phi(M): the output is no longer odd in its token.
      why = "applies to attention layers without biases (layer " + std::to_string(l) + " has one)";
      return std::nullopt;
    }
    for (const auto& h : a->heads) {
      if (!h.plain()) {
        why = "applies to degree-3 attention heads only (layer " + std::to_string(l) + " has a degree-" +
              std::to_string(h.degree()) + " block)";
        return std::nullopt;
      }
      if (l == 0) forms += h.Q.rows * h.Q.rows;
    }
  }
  // Every token's variables on one side.
  const std::size_t d = m.width;
  std::vector<char> tokA(m.tokens);
  for (std::size_t t = 0; t < m.tokens; ++t) {
    tokA[t] = P.in_A[t * d];
    for (std::size_t c = 1; c < d; ++c)
      if (P.in_A[t * d + c] != tokA[t]) {
        why = "the partition splits token " + std::to_string(t) + " (the bound needs whole tokens on each side)";
        return std::nullopt;
      }
  }
  s.output_in_A = tokA[e.token] != 0;
  for (std::size_t t = 0; t < m.tokens; ++t) ((tokA[t] != 0) == s.output_in_A ? s.n_out : s.n_other) += 1;
  s.contraction_generic = std::min(forms, d * (d + 1) / 2);
  // Degrees of Phi in M and the most "full" occurrences of M in a term
  // (docs/math.md §4): M_0 = M is one full occurrence; T_1(M) sees M through
  // the first layer's forms only; T_l(M_{l-1}) (l >= 2) has the occurrences
  // of M_{l-1}; M_l = (R + T_l) M_{l-1} (R + T_l)^T; Phi = prod_l (R + T_l).
  auto sum = [](const std::set<std::size_t>& x, const std::set<std::size_t>& y) {
    std::set<std::size_t> r;
    for (std::size_t a : x)
      for (std::size_t b : y) r.insert(a + b);
    return r;
  };
  std::set<std::size_t> dm{1}, phi{0};
  std::size_t fm = 1;
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    std::set<std::size_t> dt = dm;
    if (m.layers[l].residual) dt.insert(0);
    const std::size_t ft = l == 0 ? 0 : fm;
    phi = sum(phi, dt);
    s.full += ft;
    dm = sum(sum(dt, dm), dt);
    fm = 2 * ft + fm;
    if (dm.size() > 100000 || *dm.rbegin() > (std::size_t{1} << 40)) {
      why = "too many layers for the bound";
      return std::nullopt;
    }
  }
  s.degrees.assign(phi.begin(), phi.end());
  // The degree graph has an edge (j, k) per split j + k of each degree.
  double edges = 0;
  for (std::size_t t : s.degrees) edges += static_cast<double>(t + 1);
  if (edges > 2e5) {
    why = "the degree graph would have " + std::to_string(static_cast<long long>(edges)) + " edges (at most 200,000)";
    return std::nullopt;
  }
  return s;
}

Contraction first_layer_contraction(const Model& m) {
  const auto& a = std::get<Attention<Fmpq>>(m.layers[0].op);
  const std::size_t d = m.width, s = d * (d + 1) / 2;
  // Column (i <= j): T_1(E_ij + E_ji) (E_ii for i = j), row-major d x d.
  std::vector<std::vector<Fmpq>> cols;
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = i; j < d; ++j) {
      std::vector<Fmpq> T(d * d);
      for (const auto& h : a.heads) {
        const std::size_t da = h.Q.rows;
        // (V E K^T)[a][b] = V[a][i] K[b][j] + V[a][j] K[b][i] (once when i = j).
        std::vector<Fmpq> P(da * da);
        Fmpq t;
        for (std::size_t x = 0; x < da; ++x)
          for (std::size_t y = 0; y < da; ++y) {
            fmpq_mul(P[x * da + y].get(), h.V(x, i).get(), h.K(y, j).get());
            if (i != j) {
              fmpq_mul(t.get(), h.V(x, j).get(), h.K(y, i).get());
              fmpq_add(P[x * da + y].get(), P[x * da + y].get(), t.get());
            }
          }
        // O P Q: d x d.
        std::vector<Fmpq> PQ(da * d);
        for (std::size_t x = 0; x < da; ++x)
          for (std::size_t c = 0; c < d; ++c)
            for (std::size_t y = 0; y < da; ++y) {
              fmpq_mul(t.get(), P[x * da + y].get(), h.Q(y, c).get());
              fmpq_add(PQ[x * d + c].get(), PQ[x * d + c].get(), t.get());
            }
        for (std::size_t r = 0; r < d; ++r)
          for (std::size_t c = 0; c < d; ++c)
            for (std::size_t x = 0; x < da; ++x) {
              fmpq_mul(t.get(), h.O(r, x).get(), PQ[x * d + c].get());
              fmpq_add(T[r * d + c].get(), T[r * d + c].get(), t.get());
            }
      }
      cols.push_back(std::move(T));
    }
  // Integral rows (each row times the lcm of its denominators).
  FmpzMat A(static_cast<slong>(d * d), static_cast<slong>(s));
  for (std::size_t r = 0; r < d * d; ++r) {
    Fmpz l(1);
    for (std::size_t c = 0; c < s; ++c) fmpz_lcm(l.get(), l.get(), cols[c][r].den());
    for (std::size_t c = 0; c < s; ++c) {
      fmpz* x = A.at(static_cast<slong>(r), static_cast<slong>(c));
      fmpz_divexact(x, l.get(), cols[c][r].den());
      fmpz_mul(x, x, cols[c][r].num());
    }
  }
  FmpzMat N(static_cast<slong>(s), static_cast<slong>(s));
  const slong nullity = fmpz_mat_nullspace(N.get(), A.get());
  Contraction out;
  out.rank = s - static_cast<std::size_t>(nullity);
  for (slong k = 0; k < nullity; ++k) {
    FmpzMat U(static_cast<slong>(d), static_cast<slong>(d));
    std::size_t col = 0;
    for (std::size_t i = 0; i < d; ++i)
      for (std::size_t j = i; j < d; ++j, ++col) {
        fmpz_set(U.at(static_cast<slong>(i), static_cast<slong>(j)), N.at(static_cast<slong>(col), k));
        fmpz_set(U.at(static_cast<slong>(j), static_cast<slong>(i)), N.at(static_cast<slong>(col), k));
      }
    out.kernel.push_back(std::move(U));
  }
  return out;
}

namespace {

// sum_{i <= min(k, full)} monomials(p, k - i) monomials(w, i): polynomials of
// degree k in p + w coordinates with degree at most `full` in the last w.
// (Every monomial when w = 0 or full >= k; the sum has more than 512 terms
// only for deep networks, where every monomial is also a bound.)
Fmpz slot_count(std::size_t k, std::size_t p, std::size_t w, std::size_t full) {
  if (w == 0 || full >= k || full > 512) return monomials(p + w, k);
  Fmpz t, r;
  for (std::size_t i = 0; i <= std::min(k, full); ++i) {
    fmpz_mul(t.get(), monomials(p, k - i).get(), monomials(w, i).get());
    fmpz_add(r.get(), r.get(), t.get());
  }
  return r;
}

Fmpz min_of(std::initializer_list<const Fmpz*> xs) {
  const Fmpz* best = nullptr;
  for (const Fmpz* x : xs)
    if (x && (!best || fmpz_cmp(x->get(), best->get()) < 0)) best = x;
  return *best;
}

}  // namespace

Bound gram_bound(const Model& m, const Shape& s, bool exact_weights) {
  Bound b;
  const std::size_t d = s.d, sd = d * (d + 1) / 2;
  Contraction con;
  con.rank = s.contraction_generic;
  if (exact_weights) con = first_layer_contraction(m);
  b.contraction = con.rank;
  // The Gram degrees: j on the output's side (x-degree 2j + 1), k on the other (2k).
  std::set<std::size_t> js, ks;
  for (std::size_t t : s.degrees)
    for (std::size_t k = 0; k <= t; ++k) {
      const std::size_t j = t - k;
      if (s.n_other == 0 && k > 0) continue;  // M_B = 0
      js.insert(j);
      ks.insert(k);
      const std::size_t xo = 2 * j + 1, xk = 2 * k;
      b.edges.emplace_back(s.output_in_A ? xo : xk, s.output_in_A ? xk : xo);
    }
  std::sort(b.edges.begin(), b.edges.end());
  b.edges.erase(std::unique(b.edges.begin(), b.edges.end()), b.edges.end());
  // Per degree: the monomial count, the contraction's count (generic and for
  // these weights) and the representation-theoretic count, which the
  // codimensions refine.
  struct Counts {
    Fmpz mono, slot_gen, slot_w;
    std::optional<Fmpz> rep;
  };
  std::map<std::size_t, Counts> co, cx;  // output side by j, other side by k
  double budget = 5e6;                    // partitions enumerated, over all degrees
  for (std::size_t j : js) {
    Counts c{monomials(s.n_out * d, 2 * j + 1), {}, {}, covariant_dim(j, d, s.n_out, budget)};
    fmpz_mul_ui(c.slot_gen.get(), slot_count(j, s.contraction_generic, sd - s.contraction_generic, s.full).get(), d);
    fmpz_mul_ui(c.slot_w.get(), slot_count(j, con.rank, sd - con.rank, s.full).get(), d);
    co.emplace(j, std::move(c));
  }
  for (std::size_t k : ks)
    cx.emplace(k, Counts{monomials(s.n_other * d, 2 * k),
                         slot_count(k, s.contraction_generic, sd - s.contraction_generic, s.full),
                         slot_count(k, con.rank, sd - con.rank, s.full), gram_dim(k, d, s.n_other, budget)});
  auto weight = [](const Counts& c, bool generic, std::size_t codim) {
    std::optional<Fmpz> rep = c.rep;
    if (rep) fmpz_sub_ui(rep->get(), rep->get(), codim);
    return min_of({&c.mono, generic ? &c.slot_gen : &c.slot_w, rep ? &*rep : nullptr});
  };
  // Codimensions only where a degree can be in a minimum cover: its weight
  // below the sum of its neighbours' (they cost work, and lower a weight only).
  if (exact_weights && s.n_other + s.n_out > 0) {
    std::map<std::size_t, Fmpz> nbr_o, nbr_x;
    for (std::size_t t : s.degrees)
      for (std::size_t k = 0; k <= t; ++k) {
        if (s.n_other == 0 && k > 0) continue;
        const std::size_t j = t - k;
        fmpz_add(nbr_o[j].get(), nbr_o[j].get(), weight(cx.at(k), false, 0).get());
        fmpz_add(nbr_x[k].get(), nbr_x[k].get(), weight(co.at(j), false, 0).get());
      }
    std::vector<std::size_t> jv, kv;
    for (const auto& [j, c] : co)
      if (weight(c, false, 0) < nbr_o[j]) jv.push_back(j);
    for (const auto& [k, c] : cx)
      if (weight(c, false, 0) < nbr_x[k]) kv.push_back(k);
    b.codims = pencil_codims(con, s, jv, kv);
  }
  std::map<std::size_t, Fmpz> gen_out, gen_other, w_out, w_other;
  for (const auto& [j, c] : co) {
    gen_out[j] = weight(c, true, 0);
    w_out[j] = weight(c, false, b.codims.out.count(j) ? b.codims.out.at(j) : 0);
  }
  for (const auto& [k, c] : cx) {
    gen_other[k] = weight(c, true, 0);
    w_other[k] = weight(c, false, b.codims.other.count(k) ? b.codims.other.at(k) : 0);
  }
  // Back to input degrees on sides A and B.
  auto side = [&](const std::map<std::size_t, Fmpz>& o, const std::map<std::size_t, Fmpz>& x, bool a) {
    std::map<std::size_t, Fmpz> r;
    if (a == s.output_in_A)
      for (const auto& [j, w] : o) r[2 * j + 1] = w;
    else
      for (const auto& [k, w] : x) r[2 * k] = w;
    return r;
  };
  b.wA = side(w_out, w_other, true);
  b.wB = side(w_out, w_other, false);
  const auto gA = side(gen_out, gen_other, true), gB = side(gen_out, gen_other, false);
  auto look = [](const std::map<std::size_t, Fmpz>& w) {
    return [&w](std::size_t deg) { return w.at(deg); };
  };
  b.cover = support_bound(b.edges, look(b.wA), look(b.wB));
  b.generic = support_bound(b.edges, look(gA), look(gB));
  return b;
}

}  // namespace netpoly::gram
