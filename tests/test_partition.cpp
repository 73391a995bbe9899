// Partitions (A, B) of the input variables (partition.hpp): the spellings of
// --partition worked by hand, every rejection with the text it names, and
// all_balanced counted against binomial coefficients and enumerated
// independently (each unordered pair {A, B} exactly once).
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "netpoly/error.hpp"
#include "netpoly/partition.hpp"

using namespace netpoly;

namespace {

std::vector<char> bits(std::initializer_list<int> v) {
  std::vector<char> r;
  for (int x : v) r.push_back(static_cast<char>(x));
  return r;
}

// parse_partition must throw InputError, naming the offending spec and `also`.
void require_rejects(const std::string& spec, std::size_t tokens, std::size_t width, const std::string& also = "") {
  INFO("spec \"" << spec << "\" with N=" << tokens << ", d=" << width);
  try {
    parse_partition(spec, tokens, width);
    FAIL("no exception");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    INFO("message: " << msg);
    CHECK(msg.find("\"" + spec + "\"") != std::string::npos);
    if (!also.empty()) CHECK(msg.find(also) != std::string::npos);
    CHECK(e.code() == ExitCode::input);
  }
}

std::size_t binom(std::size_t n, std::size_t k) {
  std::size_t r = 1;
  for (std::size_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

// The item set of side A (tokens, or channels when tokens == 1).
std::vector<std::size_t> items_A(const Partition& p, std::size_t tokens, std::size_t width) {
  std::vector<std::size_t> r;
  if (tokens == 1) {
    for (std::size_t c = 0; c < width; ++c)
      if (p.in_A[c]) r.push_back(c);
  } else {
    for (std::size_t t = 0; t < tokens; ++t)
      if (p.in_A[t * width]) r.push_back(t);
  }
  return r;
}

}  // namespace

TEST_CASE("parse_partition: token splits worked by hand", "[partition]") {
  // N = 4, d = 2: variables x{i}_{c} at index 2 i + c.
  auto h = parse_partition("half", 4, 2);
  CHECK(h.by_tokens);
  CHECK(h.tokens == std::vector<std::size_t>{0, 1});
  CHECK(h.in_A == bits({1, 1, 1, 1, 0, 0, 0, 0}));
  CHECK(h.width == 2);
  CHECK(h.size_A() == 4);
  CHECK(h.label() == "A={0,1}");
  CHECK(h.a_names() == std::vector<std::string>{"0", "1"});
  CHECK(h.b_names() == std::vector<std::string>{"2", "3"});

  auto il = parse_partition("interleaved", 4, 2);
  CHECK(il.tokens == std::vector<std::size_t>{0, 2});
  CHECK(il.in_A == bits({1, 1, 0, 0, 1, 1, 0, 0}));

  // odd N: half puts floor(N/2) tokens in A, interleaved the even ones
  CHECK(parse_partition("half", 5, 1).tokens == std::vector<std::size_t>{0, 1});
  CHECK(parse_partition("interleaved", 5, 1).tokens == std::vector<std::size_t>{0, 2, 4});

  auto a = parse_partition("A=2,0", 4, 2);  // order does not matter
  CHECK(a.by_tokens);
  CHECK(a.tokens == std::vector<std::size_t>{0, 2});
  CHECK(a == il);
  CHECK(parse_partition("A=0,1", 4, 2) == h);
  CHECK(parse_partition("A=3", 4, 2).in_A == bits({0, 0, 0, 0, 0, 0, 1, 1}));
}

TEST_CASE("parse_partition: variable splits worked by hand", "[partition]") {
  // N = 2, d = 2: x0_0 x0_1 x1_0 x1_1 at indices 0 1 2 3.
  auto v = parse_partition("A=x0_1,x1_0", 2, 2);
  CHECK_FALSE(v.by_tokens);
  CHECK(v.tokens.empty());
  CHECK(v.in_A == bits({0, 1, 1, 0}));
  CHECK(v.size_A() == 2);
  CHECK(v.a_names() == std::vector<std::string>{"x0_1", "x1_0"});
  CHECK(v.b_names() == std::vector<std::string>{"x0_0", "x1_1"});
  CHECK(v.label() == "A={x0_1,x1_0}");
  // the whole of token 0 named by variables is a variable split, not a token split
  auto w = parse_partition("A=x0_0,x0_1", 2, 2);
  CHECK_FALSE(w.by_tokens);
  CHECK(w.in_A == parse_partition("half", 2, 2).in_A);
  CHECK_FALSE(w == parse_partition("half", 2, 2));
}

TEST_CASE("parse_partition: one token splits the channels", "[partition]") {
  // N = 1, d = 5: variables x0_0 .. x0_4.
  auto h = parse_partition("half", 1, 5);
  CHECK_FALSE(h.by_tokens);
  CHECK(h.in_A == bits({1, 1, 0, 0, 0}));
  CHECK(h.label() == "A={x0_0,x0_1}");
  CHECK(h.b_names() == std::vector<std::string>{"x0_2", "x0_3", "x0_4"});
  CHECK(parse_partition("interleaved", 1, 5).in_A == bits({1, 0, 1, 0, 1}));
  CHECK(parse_partition("A=1,3", 1, 5).in_A == bits({0, 1, 0, 1, 0}));
  CHECK(parse_partition("A=x0_4", 1, 5).in_A == bits({0, 0, 0, 0, 1}));
  CHECK(parse_partition("A=3,1", 1, 5) == parse_partition("A=x0_1,x0_3", 1, 5));
}

TEST_CASE("parse_partition: rejections name the text", "[partition]") {
  require_rejects("A=4", 4, 2, "out of range");
  require_rejects("A=0,9", 4, 2, "out of range");
  require_rejects("A=x4_0", 4, 2, "out of range");
  require_rejects("A=x0_2", 4, 2, "out of range");
  require_rejects("A=5", 1, 5, "out of range");  // channels 0..4
  require_rejects("A=0,0", 4, 2, "twice");
  require_rejects("A=1,2,1", 4, 2, "twice");
  require_rejects("A=x0_1,x0_1", 2, 2, "twice");
  require_rejects("A=0,1,2,3", 4, 2, "non-empty");  // B empty
  require_rejects("A=x0_0,x0_1,x1_0,x1_1", 2, 2, "non-empty");
  require_rejects("A=0,1,2,3,4", 1, 5, "non-empty");
  require_rejects("A=", 4, 2);  // A empty
  require_rejects("A=0,", 4, 2);
  require_rejects("halves", 4, 2, "expected");
  require_rejects("", 4, 2, "expected");
  require_rejects("B=0", 4, 2, "expected");
  require_rejects("A=one", 4, 2, "token index");
  require_rejects("A=-1", 4, 2, "token index");
  require_rejects("A=0,x1_0", 4, 2, "token index");  // mixed spellings
  require_rejects("A=x1_0,0", 4, 2, "variable name");
  require_rejects("A=x1", 4, 2, "variable name");
  require_rejects("A=x_1_0", 4, 2, "variable name");
  require_rejects("A=1x", 1, 5, "channel index");
  require_rejects("half", 1, 1, "at least 2");
  require_rejects("interleaved", 1, 1, "at least 2");
}

TEST_CASE("all_balanced: counts and each unordered pair once", "[partition]") {
  // Balanced: |A| = floor(n/2). For odd n every such A is a different pair
  // {A, B} (|A| != |B|): binom(n, floor(n/2)). For even n, A and its
  // complement are the same pair: binom(n, n/2) / 2.
  struct Case {
    std::size_t tokens, width, expected;
  };
  for (auto c : {Case{2, 3, 1}, Case{3, 1, 3}, Case{4, 2, 3}, Case{5, 1, 10}, Case{6, 1, 10}, Case{7, 2, 35},
                 Case{1, 4, 3}, Case{1, 5, 10}, Case{1, 6, 10}}) {
    const std::size_t n = c.tokens == 1 ? c.width : c.tokens;
    INFO("N=" << c.tokens << " d=" << c.width);
    CHECK(c.expected == (n % 2 ? binom(n, n / 2) : binom(n, n / 2) / 2));
    auto ps = all_balanced(c.tokens, c.width);
    REQUIRE(ps.size() == c.expected);
    std::set<std::vector<std::size_t>> pairs;  // canonical side: the one holding item 0
    for (const auto& p : ps) {
      CHECK(p.in_A.size() == c.tokens * c.width);
      CHECK(p.by_tokens == (c.tokens > 1));
      auto A = items_A(p, c.tokens, c.width);
      CHECK(A.size() == n / 2);
      CHECK(p.size_A() == A.size() * (c.tokens == 1 ? 1 : c.width));
      // every variable of an item is on the same side
      for (std::size_t v = 0; v < p.in_A.size(); ++v) {
        std::size_t item = c.tokens == 1 ? v : v / c.width;
        CHECK((p.in_A[v] != 0) == std::binary_search(A.begin(), A.end(), item));
      }
      std::vector<std::size_t> B;
      for (std::size_t k = 0; k < n; ++k)
        if (!std::binary_search(A.begin(), A.end(), k)) B.push_back(k);
      pairs.insert(A.front() == 0 ? A : B);
    }
    CHECK(pairs.size() == ps.size());  // no pair twice
  }
  // N = 4 by hand: {0,1}|{2,3}, {0,2}|{1,3}, {0,3}|{1,2}.
  auto ps = all_balanced(4, 1);
  REQUIRE(ps.size() == 3);
  std::set<std::string> labels;
  for (const auto& p : ps) labels.insert(p.label());
  CHECK(labels == std::set<std::string>{"A={0,1}", "A={0,2}", "A={0,3}"});
  // each is what parse_partition gives for the same tokens
  for (const auto& p : ps) CHECK(parse_partition("A=" + p.a_names()[0] + "," + p.a_names()[1], 4, 1) == p);

  CHECK_THROWS_AS(all_balanced(1, 1), InputError);
  CHECK_THROWS_AS(all_balanced(25, 1), InputError);
}
