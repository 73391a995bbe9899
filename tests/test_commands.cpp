// The subcommands as library calls (src/commands/commands.hpp): what the CLI runs
// is what a test (or the Python module) can call, with the same options.
#include <catch2/catch.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "netpoly/bounds.hpp"
#include "commands/commands.hpp"
#include "netpoly/error.hpp"
#include "netpoly/model.hpp"
#include "netpoly/presets.hpp"

using namespace netpoly;

namespace {

// Standard output of f().
template <class F>
std::string captured(F&& f) {
  std::ostringstream os;
  auto* old = std::cout.rdbuf(os.rdbuf());
  try {
    f();
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  return os.str();
}

}  // namespace

TEST_CASE("run_make writes the preset the library builds", "[commands]") {
  cli::MakeOptions o;
  o.preset.shape = {.arch = Arch::mixer, .layers = 2, .width = 3, .tokens = 2};
  o.seed = "5";
  const std::string text = captured([&] { cli::run_make(o); });
  PresetOptions p = o.preset;
  p.seed = 5;
  CHECK(parse_model(text, "made") == make_preset(p));
  o.seed = "-1";  // the CLI's checks are the library's
  CHECK_THROWS_AS(cli::run_make(o), InputError);
}

TEST_CASE("run_bounds prints the records compute_bounds gives", "[commands]") {
  cli::BoundsOptions o;
  o.arch = "attention";
  o.params = {.arch = Arch::attention, .layers = 2, .width = 4, .heads = 2, .tokens = 3};
  o.tokens_given = true;
  o.json = true;
  const auto j = nlohmann::json::parse(captured([&] { cli::run_bounds(o); }));
  const auto bs = compute_bounds(o.params);
  REQUIRE(j["bounds"].size() == bs.size());
  for (std::size_t i = 0; i < bs.size(); ++i) CHECK(j["bounds"][i]["id"] == bs[i].id);
  CHECK(j["params"]["parameters"] == 4 * 2 * 4 * 4);  // 4 L d^2
  o.tokens_given = false;
  CHECK_THROWS_WITH(cli::run_bounds(o), Catch::Contains("--tokens is required"));
}
