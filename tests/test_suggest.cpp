// "Did you mean" (runtime/suggest.hpp): the names near a misspelt one.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "runtime/suggest.hpp"

using namespace netpoly;

TEST_CASE("near_names: edits, swaps, and nothing far", "[suggest]") {
  const std::vector<std::string> fns{"width", "heads", "tokens", "layers", "weights", "sep", "max_sep", "min_sep"};
  // "widht" -> "width": one swap of neighbours (distance 1); "wdth": one deletion.
  CHECK(near_names("widht", fns) == std::vector<std::string>{"width"});
  CHECK(near_names("wdth", fns) == std::vector<std::string>{"width"});
  // "maxsep": one insertion from max_sep (distance 1); three from min_sep (a->i, x->n, '_'),
  // beyond max(1, 6/3) = 2.
  CHECK(near_names("maxsep", fns) == std::vector<std::string>{"max_sep"});
  // "mxa_sep": a swap (xa -> ax) from max_sep, distance 1; two substitutions (x -> i,
  // a -> n) from min_sep, distance 2, within max(1, 7/3) = 2: both, the closer first.
  CHECK(near_names("mxa_sep", fns) == std::vector<std::string>{"max_sep", "min_sep"});
  // Nothing within max(1, |word|/3): no suggestion.
  CHECK(near_names("kronecker", fns).empty());
  CHECK(near_names("width", fns).empty());  // the name itself is not "near"
  const std::vector<std::string> flags{"--budget", "--max-terms", "--methods", "--partition"};
  CHECK(near_names("--budgte", flags) == std::vector<std::string>{"--budget"});
  CHECK(or_list({"a"}) == "a");
  CHECK(or_list({"a", "b", "c"}) == "a, b or c");
}
