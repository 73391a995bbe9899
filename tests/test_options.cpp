// The analysis options' one table (options.hpp): every option checks its
// values the same way whatever front end gives them, names itself the way
// that front end spells it, and reaches the claims' cache key.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>

#include "netpoly/error.hpp"
#include "netpoly/options.hpp"

using namespace netpoly;
using json = nlohmann::json;

namespace {

// A value of each type that is valid and differs from the default, and
// values that must be refused.
json valid(const OptionSpec& o) {
  switch (o.type) {
    case OptionType::flag: return !o.get(SepOptions{}).get<bool>();
    case OptionType::count: return static_cast<std::uint64_t>(o.lo) + 1;
    case OptionType::seconds: return 7.5;
    case OptionType::real: return 7e3;  // a count written as a number (a whole 7000.0)
    case OptionType::seed: return 42;
    case OptionType::prime: return 1000003;
    case OptionType::methods: return "support,blackbox";
    case OptionType::memory: return "512M";
    case OptionType::templates: return json::array({json::array({1, "1/2"})});
    case OptionType::share: return "2/3";
  }
  return nullptr;
}

std::vector<json> invalid(const OptionSpec& o) {
  const double nan = std::nan("");
  switch (o.type) {
    case OptionType::flag: return {1, "yes", nullptr};
    case OptionType::count: return {-1, 1.5, o.hi + 1, "3", true};
    case OptionType::seconds: return {0, -1, nan, "ten", true};
    case OptionType::real: return {0, -1, nan, "ten", true, 1.5, 0.5};  // a count: not 1.5 terms
    case OptionType::seed: return {-1, 1.5, "1", false};
    case OptionType::prime: return {1, 4, 15, -7, 1.0};
    case OptionType::methods: return {"nope", json::array(), 3, json::array({"support", 2})};
    case OptionType::memory: return {"8X", -1, nan, "", "nan"};
    case OptionType::templates: return {0, 1025, json::array({json::array({0.5})}), json::array({1, 2}), "3"};
    case OptionType::share: return {"0/3", "4/3", "3", "1/0", "-1/2", " 1/2", "1/2/3", 2, "1/2000000"};
  }
  return {};
}

}  // namespace

TEST_CASE("every option accepts a valid value and refuses invalid ones, named as each front end spells it",
          "[options]") {
  for (const OptionSpec& o : analysis_options()) {
    INFO(o.name);
    SepOptions so;
    CHECK_NOTHROW(set_option(so, o, valid(o), Spelling::python));
    for (const json& bad : invalid(o)) {
      INFO(bad.dump());
      for (Spelling s : {Spelling::cli, Spelling::python, Spelling::claims}) {
        SepOptions t;
        try {
          set_option(t, o, bad, s);
          FAIL("accepted");
        } catch (const InputError& e) {
          CHECK(std::string(e.what()).find(option_spelling(o, s)) != std::string::npos);
        }
        // and nothing changed
        CHECK(options_json(t) == options_json(SepOptions{}));
      }
    }
  }
}

TEST_CASE("option spellings: --kebab-case flags, snake_case keywords and claim arguments", "[options]") {
  const OptionSpec& o = *find_option("max_points");
  CHECK(option_spelling(o, Spelling::cli) == "--max-points");
  CHECK(option_spelling(o, Spelling::python) == "max_points=");
  CHECK(option_spelling(o, Spelling::claims) == "max_points =");
  SepOptions so;
  // a misspelled keyword is refused, listing the valid ones
  try {
    set_option(so, "max_point", 3, Spelling::python, kPython);
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("unknown option 'max_point'") != std::string::npos);
    CHECK(std::string(e.what()).find("max_points") != std::string::npos);
  }
  // an option of another front end is refused too: claims take no threads
  CHECK_THROWS_AS(set_option(so, "threads", 2, Spelling::claims, kClaims), InputError);
  CHECK_NOTHROW(set_option(so, "threads", 2, Spelling::python, kPython));
}

TEST_CASE("the CLI's text: digits for whole numbers, plain decimals or inf for reals, sizes with units",
          "[options]") {
  auto text = [](const std::string& name, const std::string& t) {
    SepOptions so;
    const OptionSpec& o = *find_option(name);
    set_option(so, o, option_from_text(o, t), Spelling::cli);
    return options_json(so)[name];
  };
  CHECK(text("max_points", "64") == 64);
  CHECK(text("seed", "18446744073709551615") == 18446744073709551615ULL);
  CHECK_THROWS_AS(text("seed", "18446744073709551616"), InputError);  // 2^64: out of range, not wrapped
  CHECK_THROWS_AS(text("max_points", "+64"), InputError);
  CHECK_THROWS_AS(text("max_points", " 64"), InputError);
  CHECK(text("budget", "2.5") == 2.5);
  CHECK(text("budget", "inf") == "inf");
  CHECK(text("max_terms", "1e6") == 1e6);
  CHECK_THROWS_AS(text("budget", "0x10"), InputError);
  CHECK_THROWS_AS(text("budget", "nan"), InputError);
  CHECK(text("max_memory", "1K") == 1024.0);
  CHECK(text("methods", "blackbox,support") == json::array({"blackbox", "support"}));
  CHECK(text("small_prime", "false") == false);
  CHECK(text("blocks", "3/4") == "3/4");
  CHECK(text("blocks", "04/4") == "4/4");
  CHECK_THROWS_AS(text("blocks", "5/4"), InputError);
}

TEST_CASE("every option reaches the claims' cache key (options_json)", "[options]") {
  // The claims' cache key is the pair and options_json: an option left out
  // of it would give a stale hit (issue 31). Setting any option to another
  // value changes options_json.
  std::set<std::string> keys;
  const json base = options_json(SepOptions{});
  for (const OptionSpec& o : analysis_options()) {
    INFO(o.name);
    CHECK(base.contains(o.name));
    SepOptions so;
    set_option(so, o, valid(o), Spelling::python);
    CHECK(options_json(so) != base);
    keys.insert(options_json(so).dump());
  }
  CHECK(keys.size() == analysis_options().size());
}

TEST_CASE("resolved(): the refinement defaults apply to what was not given", "[options]") {
  const SepOptions r = resolved(SepOptions{});
  CHECK(r.max_points == (std::size_t{1} << 20));
  CHECK(r.budget == kDefaultRefineSeconds);
  CHECK(r.budget_is_default);
  CHECK(budget_text(r).find("default refinement budget") != std::string::npos);
  SepOptions g;
  set_option(g, *find_option("budget"), 5, Spelling::cli);
  set_option(g, *find_option("max_points"), 64, Spelling::cli);
  const SepOptions q = resolved(g);
  CHECK(q.max_points == 64);
  CHECK(q.budget == 5);
  CHECK(!q.budget_is_default);
  CHECK(budget_text(q) == "--budget 5 s");
}

TEST_CASE("a value quoted in a message is cut at a character, never inside one", "[options]") {
  // "é" is the two bytes C3 A9: 50 of them are 100 bytes. Cut to 60 bytes,
  // the prefix is 28 whole characters (56 bytes; byte 57 would split one)
  // and "...".
  std::string e50;
  for (int k = 0; k < 50; ++k) e50 += "\xC3\xA9";
  const std::string c = clip(e50, 60);
  CHECK(c.size() == 56 + 3);
  CHECK(c.substr(56) == "...");
  CHECK(nlohmann::json(c).dump().size() > 0);  // valid UTF-8: dump() throws on a split character
  CHECK(clip("short", 60) == "short");
  // Through the option table: the message names the option and stays valid UTF-8.
  SepOptions so;
  try {
    set_option(so, "generic", nlohmann::json::array({e50}), Spelling::python, kPython);
    FAIL("a list for a flag was accepted");
  } catch (const InputError& err) {
    const std::string msg = err.what();
    CHECK(msg.find("generic=") != std::string::npos);
    CHECK_NOTHROW(nlohmann::json(msg).dump());
  }
}
