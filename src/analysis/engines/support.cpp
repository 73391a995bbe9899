#include "analysis/engines/support.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

#include "model/forward.hpp"
#include "netpoly/rings.hpp"
#include "domains/structure_rings.hpp"

namespace netpoly {

Bidegrees support_bidegrees(const Model& m, const Entry& e, const Partition& P) {
  SupportRing R;
  std::vector<SupportRing::Elem> X(m.num_inputs());
  for (std::size_t v = 0; v < X.size(); ++v)
    X[v] = P.in_A[v] ? SupportRing::monomial(1, 0) : SupportRing::monomial(0, 1);
  const std::size_t w = m.output_width(), out = e.token * w + e.channel;
  Need need(m.tokens * w, 0);
  need[out] = 1;
  const auto y = forward(R, prepare(R, m), std::move(X), need);
  Bidegrees bd;
  const auto& s = y[out];
  for (std::size_t a = 0; a < s.rows.size(); ++a)
    for (std::size_t k = 0; k < s.rows[a].size(); ++k)
      for (std::uint64_t bits = s.rows[a][k]; bits; bits &= bits - 1)
        bd.emplace_back(a, 64 * k + static_cast<std::size_t>(__builtin_ctzll(bits)));
  return bd;
}

Bidegrees polynomial_bidegrees(const FmpqMpoly& y, const Partition& P) {
  const slong n = y.ctx()->nvars();
  std::vector<ulong> exp(static_cast<std::size_t>(n));
  Bidegrees bd;
  for (slong t = 0; t < y.length(); ++t) {
    fmpq_mpoly_get_term_exp_ui(exp.data(), y.get(), t, y.ctx()->get());
    std::size_t a = 0, b = 0;
    for (slong v = 0; v < n; ++v) (P.in_A[static_cast<std::size_t>(v)] ? a : b) += exp[static_cast<std::size_t>(v)];
    bd.emplace_back(a, b);
  }
  std::sort(bd.begin(), bd.end());
  bd.erase(std::unique(bd.begin(), bd.end()), bd.end());
  return bd;
}

SupportBound support_bound(const Bidegrees& bd, const Partition& P) {
  const std::size_t nA = P.size_A();
  return support_bound(bd, nA, P.in_A.size() - nA);
}

SupportBound support_bound(const Bidegrees& edges, std::size_t nA, std::size_t nB) {
  // Monomials of degree exactly k in n variables.
  auto count = [](std::size_t k, std::size_t n) {
    Fmpz c;
    if (n == 0) fmpz_set_ui(c.get(), k == 0 ? 1 : 0);
    else fmpz_bin_uiui(c.get(), k + n - 1, n - 1);
    return c;
  };
  return support_bound(edges, [&](std::size_t a) { return count(a, nA); }, [&](std::size_t b) { return count(b, nB); });
}

namespace {

// The cover of one connected bidegree graph (max flow).
SupportBound cover_connected(const Bidegrees& edges, const std::function<Fmpz(std::size_t)>& weight_A,
                             const std::function<Fmpz(std::size_t)>& weight_B, const EdgeWeight* edge_cap) {
  std::vector<std::size_t> as, bs;  // the degrees that occur
  for (const auto& [a, b] : edges) {
    as.push_back(a);
    bs.push_back(b);
  }
  auto uniq = [](std::vector<std::size_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  uniq(as);
  uniq(bs);
  SupportBound sb;
  sb.bidegrees = edges.size();
  for (const auto& [a, b] : edges) sb.degree = std::max(sb.degree, a + b);
  if (edges.empty()) return sb;  // y = 0: sep 0
  // Nodes: 0 = source, 1..|as| = A-degrees, then the B-degrees, last = sink.
  const std::size_t S = 0, T = 1 + as.size() + bs.size(), V = T + 1;
  struct Edge {
    std::size_t to, rev;
    Fmpz cap;
    bool inf;
  };
  std::vector<std::vector<Edge>> g(V);
  auto link = [&](std::size_t u, std::size_t v, const Fmpz* cap) {
    g[u].push_back({v, g[v].size(), cap ? *cap : Fmpz(), cap == nullptr});
    g[v].push_back({u, g[u].size() - 1, Fmpz(), false});
  };
  auto ia = [&](std::size_t a) { return 1 + static_cast<std::size_t>(std::lower_bound(as.begin(), as.end(), a) - as.begin()); };
  auto ib = [&](std::size_t b) {
    return 1 + as.size() + static_cast<std::size_t>(std::lower_bound(bs.begin(), bs.end(), b) - bs.begin());
  };
  for (std::size_t a : as) {
    Fmpz c = weight_A(a);
    link(S, ia(a), &c);
  }
  for (std::size_t b : bs) {
    Fmpz c = weight_B(b);
    link(ib(b), T, &c);
  }
  for (const auto& [a, b] : edges) {
    if (!edge_cap) {
      link(ia(a), ib(b), nullptr);
      continue;
    }
    Fmpz c = (*edge_cap)(a, b);
    link(ia(a), ib(b), &c);
  }
  // Edmonds-Karp: shortest augmenting paths; every path has a finite edge
  // (source and sink edges are finite), so the flow is finite.
  Fmpz flow;
  while (true) {
    std::vector<std::pair<std::size_t, std::size_t>> prev(V, {SIZE_MAX, 0});
    std::vector<std::size_t> queue{S};
    prev[S] = {S, 0};
    for (std::size_t qi = 0; qi < queue.size() && prev[T].first == SIZE_MAX; ++qi) {
      const std::size_t u = queue[qi];
      for (std::size_t k = 0; k < g[u].size(); ++k) {
        const Edge& ed = g[u][k];
        if (prev[ed.to].first != SIZE_MAX || (!ed.inf && fmpz_sgn(ed.cap.get()) <= 0)) continue;
        prev[ed.to] = {u, k};
        queue.push_back(ed.to);
      }
    }
    if (prev[T].first == SIZE_MAX) break;
    std::optional<Fmpz> push;
    for (std::size_t v = T; v != S; v = prev[v].first) {
      const Edge& ed = g[prev[v].first][prev[v].second];
      if (!ed.inf && (!push || fmpz_cmp(ed.cap.get(), push->get()) < 0)) push = ed.cap;
    }
    for (std::size_t v = T; v != S; v = prev[v].first) {
      Edge& ed = g[prev[v].first][prev[v].second];
      if (!ed.inf) fmpz_sub(ed.cap.get(), ed.cap.get(), push->get());
      Edge& back = g[v][ed.rev];
      if (!back.inf) fmpz_add(back.cap.get(), back.cap.get(), push->get());
    }
    fmpz_add(flow.get(), flow.get(), push->get());
  }
  // The minimum cut: nodes reachable from the source in the residual graph.
  std::vector<char> seen(V, 0);
  std::vector<std::size_t> stack{S};
  seen[S] = 1;
  while (!stack.empty()) {
    const std::size_t u = stack.back();
    stack.pop_back();
    for (const Edge& ed : g[u])
      if (!seen[ed.to] && (ed.inf || fmpz_sgn(ed.cap.get()) > 0)) {
        seen[ed.to] = 1;
        stack.push_back(ed.to);
      }
  }
  for (std::size_t a : as)
    if (!seen[ia(a)]) sb.rows_cut.push_back(a);
  for (std::size_t b : bs)
    if (seen[ib(b)]) sb.cols_cut.push_back(b);
  for (const auto& [a, b] : edges)
    if (seen[ia(a)] && !seen[ib(b)]) sb.edges_cut.emplace_back(a, b);
  sb.value = flow;
  return sb;
}

}  // namespace

// A minimum cover is the union of minimum covers of the connected components
// (an edge lies in one component): each component's flow is computed on its
// own, so a graph of many small components (attention: one edge per
// A-degree) costs little.
SupportBound support_bound(const Bidegrees& edges, const std::function<Fmpz(std::size_t)>& weight_A,
                           const std::function<Fmpz(std::size_t)>& weight_B, const EdgeWeight* edge_cap) {
  std::map<std::size_t, std::size_t> ia, ib;  // degree -> node
  for (const auto& [a, b] : edges) {
    ia.emplace(a, ia.size());
    ib.emplace(b, ib.size());
  }
  std::vector<std::size_t> parent(ia.size() + ib.size());
  for (std::size_t k = 0; k < parent.size(); ++k) parent[k] = k;
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& [a, b] : edges) parent[find(ia[a])] = find(ia.size() + ib[b]);
  std::map<std::size_t, Bidegrees> parts;
  for (const auto& e : edges) parts[find(ia[e.first])].push_back(e);
  SupportBound sb;
  sb.bidegrees = edges.size();
  for (const auto& [a, b] : edges) sb.degree = std::max(sb.degree, a + b);
  for (const auto& [root, part] : parts) {
    const SupportBound c = cover_connected(part, weight_A, weight_B, edge_cap);
    fmpz_add(sb.value.get(), sb.value.get(), c.value.get());
    sb.rows_cut.insert(sb.rows_cut.end(), c.rows_cut.begin(), c.rows_cut.end());
    sb.cols_cut.insert(sb.cols_cut.end(), c.cols_cut.begin(), c.cols_cut.end());
    sb.edges_cut.insert(sb.edges_cut.end(), c.edges_cut.begin(), c.edges_cut.end());
  }
  std::sort(sb.rows_cut.begin(), sb.rows_cut.end());
  std::sort(sb.cols_cut.begin(), sb.cols_cut.end());
  return sb;
}

}  // namespace netpoly
