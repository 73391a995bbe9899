// Balanced partitions of the N x d entries (NB §4.2's sup/inf-sep over
// entries; WS Open Question 3): their count and shape, and sup/inf-sep over
// them on a network worked by hand.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>

#include "claims/syntax/claim_parser.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/error.hpp"
#include "netpoly/partition.hpp"

using namespace netpoly;
namespace fs = std::filesystem;

TEST_CASE("balanced entry partitions: binom(n, n/2)/2 of them (n even), binom(n, floor(n/2)) (n odd)", "[partitions]") {
  // n = N d entries: 4 -> 3, 6 -> 10, 8 -> 35, 5 -> 10, 9 -> 126
  const std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> cases = {
      {2, 2, 3}, {3, 2, 10}, {4, 2, 35}, {1, 5, 10}, {3, 3, 126}};
  for (const auto& [N, d, count] : cases) {
    const auto parts = all_balanced_entries(N, d);
    CHECK(parts.size() == count);
    std::set<std::vector<char>> seen;
    for (const auto& P : parts) {
      std::size_t a = 0;
      std::vector<char> key;
      for (auto x : P.in_A) {
        a += x != 0;
        key.push_back(x != 0);
      }
      CHECK(a == N * d / 2);
      std::vector<char> flip = key;
      for (auto& x : flip) x = !x;
      CHECK(seen.count(flip) == 0);  // each unordered pair once
      CHECK(seen.insert(key).second);
    }
  }
  CHECK_THROWS_AS(all_balanced_entries(5, 5), InputError);  // 25 entries
}

TEST_CASE("sup/inf-sep over entries on y_i = (x_i0 + x_i1)^2", "[partitions][claims]") {
  // Each output reads its own token only, so over token partitions
  // ({0} | {1}) its sep is 1. Over the 3 balanced entry partitions of
  // x0_0, x0_1, x1_0, x1_1: {x0_0, x0_1} | {x1_*} keeps token 0 on one side
  // (sep 1); the other two split x0_0 from x0_1, and (a + b)^2 = a^2 + 2ab +
  // b^2 has sep 3 for a | b. So over entries sup = 3, inf = 1.
  const fs::path dir = fs::temp_directory_path() / ("netpoly-entries-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "sq.json") << R"({"format": "netpoly-model/1", "input": {"tokens": 2, "width": 2},
    "layers": [{"type": "channel_mix", "W": [[1, 1]], "activation": "square"}]})";
  auto run = [&](const std::string& check) {
    const std::string text = "claim \"t\"\n  let net = model(\"sq.json\")\n  check " + check + "\n";
    ClaimFile f = parse_claims(text, "t.np", dir.string());
    return run_claim(f.claims.at(0), CheckOptions{}).verdict;
  };
  CHECK(run("sup_sep(net) == 1") == Verdict::pass);
  CHECK(run("inf_sep(net) == 1") == Verdict::pass);
  CHECK(run("sup_sep(net, entries = true) == 3") == Verdict::pass);
  CHECK(run("inf_sep(net, entries = true) == 1") == Verdict::pass);
  CHECK(run("sep(net[0, 0]; A = x0_0, x1_1) == 3") == Verdict::pass);
  fs::remove_all(dir);
}
