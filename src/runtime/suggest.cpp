#include "runtime/suggest.hpp"

#include <algorithm>
#include <utility>

namespace netpoly {
namespace {

// Optimal string alignment distance (Damerau-Levenshtein without repeated edits of one substring).
std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::vector<std::string> near_names(const std::string& word, const std::vector<std::string>& names, std::size_t max) {
  if (word.size() > 64) return {};
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> near;
  for (const auto& n : names) {
    if (n == word || n.size() > word.size() + limit + 1) continue;
    const std::size_t k = distance(word, n);
    if (k <= limit) near.emplace_back(k, n);
  }
  std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [k, n] : near)
    if (out.size() < max && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

std::string or_list(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t k = 0; k < names.size(); ++k)
    s += (k == 0 ? "" : k + 1 == names.size() ? " or " : ", ") + names[k];
  return s;
}

}  // namespace netpoly
