// "Did you mean": the names closest to a misspelt one (a claim's function,
// a command-line flag), by edit distance with transpositions.
#pragma once
#include <string>
#include <vector>

namespace netpoly {

// The names within edit distance max(1, |word| / 3) of `word` (an insertion,
// a deletion, a substitution or the swap of two neighbours counts 1), the
// closest first, at most `max` of them.
std::vector<std::string> near_names(const std::string& word, const std::vector<std::string>& names,
                                    std::size_t max = 3);

// "a, b or c": the names as a message lists them ("" for none).
std::string or_list(const std::vector<std::string>& names);

}  // namespace netpoly
