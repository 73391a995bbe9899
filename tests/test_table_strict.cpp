// What a shard or a journal can make a table say (issue 38): every number a
// row or a sweep states is checked as strictly as a model file's (type, sign,
// integrality, range, with its JSON path), a sweep is bounded before it is
// made, and every string from a file is escaped for the format it lands in.
// Also: figures too large for a fixed buffer keep their unit (item 5).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../src/tables/render_text.hpp"
#include "netpoly/error.hpp"
#include "runtime/json_check.hpp"
#include "runtime/limits.hpp"
#include "netpoly/table.hpp"
#include "runtime/io.hpp"
#include "netpoly/version.hpp"
#include "tables/journal_rows.hpp"

using namespace netpoly;
using json = nlohmann::json;

namespace {

// A measured row of attention L=1 d=2 H=1 N=2 (both generic draws exact 3), as a shard holds it.
json shard_row() {
  SweepSpec s;
  s.layers = {1};
  s.widths = {2};
  s.tokens = {2};
  s.sep.methods = parse_methods("support,modular");
  TableRow r = measure_row(sweep_configs(s).at(0), s);
  REQUIRE(r.status == BracketStatus::exact);
  return r.to_json();
}

// The InputError message of reading j back as a row of FILE.
std::string refusal(const json& j) {
  try {
    TableRow::from_json(j, "FILE", "rows[0]");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("a row's ranks are integers >= 0: -1, 3.5, 3.0 and \"3\" are refused with their JSON path",
          "[table][strict]") {
  const json good = shard_row();
  CHECK(refusal(good) == "accepted");
  const TableRow back = TableRow::from_json(good, "FILE", "rows[0]");
  CHECK(back.lower.value == std::optional<std::size_t>(3));
  auto with = [&](const char* key, json v) {
    json j = good;
    j[key] = v;
    return refusal(j);
  };
  // On the main of issue 38, -1 was read as 18446744073709551615 and 3.5 as 3.
  CHECK(with("lower", -1) == "FILE: rows[0].lower: expected an integer in [0, 4611686018427387904], got the integer -1");
  CHECK(with("upper", 3.5) == "FILE: rows[0].upper: expected an integer in [0, 4611686018427387904], got the float 3.5");
  CHECK_THAT(with("upper", 3.0), Catch::Contains("rows[0].upper") && Catch::Contains("got the float 3"));
  CHECK_THAT(with("lower", "3"), Catch::Contains("rows[0].lower") && Catch::Contains("got a string"));
  CHECK_THAT(with("lower", 18446744073709551615ull), Catch::Contains("got the integer 18446744073709551615"));
  CHECK_THAT(with("status", "maybe"), Catch::StartsWith("FILE: rows[0].status: unknown status \"maybe\""));
  CHECK_THAT(with("seconds", -1), Catch::Contains("rows[0].seconds"));
  CHECK_THAT(with("index", -2), Catch::Contains("rows[0].index"));
  json j = good;
  j["second_draw_bracket"]["lower"] = -5;
  CHECK_THAT(refusal(j), Catch::StartsWith("FILE: rows[0].second_draw_bracket.lower: expected an integer in [0, "));
  j = good;
  j["config"]["seed"] = 0;
  CHECK_THAT(refusal(j), Catch::StartsWith("FILE: rows[0].config.seed: expected an integer in [1, 10000]"));
  j = good;
  j["config"]["width"] = 2.5;
  CHECK_THAT(refusal(j), Catch::StartsWith("FILE: rows[0].config.width: expected an integer"));
  j = good;
  j["failure_probability"] = 7;
  CHECK_THAT(refusal(j), Catch::StartsWith("FILE: rows[0].failure_probability: expected a number in [0, 1]"));
  j = good;
  j["bounds"][0]["exact"] = "-3";
  CHECK_THAT(refusal(j), Catch::StartsWith("FILE: rows[0].bounds[0].exact: expected null or the decimal digits"));
}

TEST_CASE("a row's build string and method names are netpoly's: anything else is refused", "[table][strict]") {
  const json good = shard_row();
  json j = good;
  j["netpoly_version"] = "0.1.0\n\\input{/etc/passwd}";
  CHECK_THAT(refusal(j), Catch::StartsWith("FILE: rows[0].netpoly_version: expected a netpoly build as --version prints it"));
  CHECK(is_build_string(netpoly_build()));
  CHECK(is_build_string("0.1.0 (git 4bf024c05d10-dirty, FLINT 2.9.0)"));
  CHECK(is_build_string("0.1.0 (FLINT 2.9.0)"));
  CHECK_FALSE(is_build_string("0.1.0 (git 4bf024c05d10, FLINT 2.9.0)\n"));
  CHECK_FALSE(is_build_string("=cmd|calc"));
  // A method name is a registered method's: judge_row refuses the row otherwise.
  j = good;
  j["lower_method"] = "=cmd|' /C calc'!A0";
  TableRow r = TableRow::from_json(j, "FILE", "");
  CHECK_THAT(judge_row(r), Catch::Contains("its lower end's method \"=cmd|' /C calc'!A0\" is no method of this netpoly"));
  j = good;
  j["upper"] = nullptr;
  j["status"] = "bracket";
  r = TableRow::from_json(j, "FILE", "");
  CHECK(judge_row(r) == "no upper end, but a method for it");
  // The sweep's methods are parsed against the registry.
  j = good;
  j["sweep"]["options"]["methods"] = "support,=cmd";
  CHECK_THAT(refusal(j), Catch::StartsWith("FILE: rows[0].sweep.options.methods: --methods: unknown method \"=cmd\""));
}

TEST_CASE("a sweep read from a file has the CLI's limits, checked before any configuration is made",
          "[table][strict]") {
  const json sweep = shard_row()["sweep"];
  auto refused = [&](const std::string& key, json v) {
    json j = sweep;
    j[key] = v;
    try {
      SweepSpec::from_sweep_json(j, "FILE", "sweep");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  // seeds: 10^12 made the main of issue 38 allocate 3.4 GB before it failed.
  CHECK(refused("seeds", 1000000000000ull) == "FILE: sweep.seeds: expected an integer in [1, 10000], got the integer 1000000000000");
  CHECK_THAT(refused("seeds", -1), Catch::StartsWith("FILE: sweep.seeds: expected an integer in [1, 10000]"));
  CHECK_THAT(refused("widths", json::array({2, -4})), Catch::StartsWith("FILE: sweep.widths[1]: expected an integer in [0, 999999999]"));
  CHECK_THAT(refused("layers", json::array()), Catch::StartsWith("FILE: sweep.layers: expected a list of 1 to"));
  CHECK_THAT(refused("arch", "transformer"), Catch::StartsWith("FILE: sweep.arch: "));
  // Within every per-value limit, but too many configurations in all: refused before they are made.
  json big = json::array();
  for (int k = 1; k <= 1000; ++k) big.push_back(k);
  json j = sweep;
  j["layers"] = big;
  j["widths"] = big;
  j["seeds"] = 10;
  CHECK_THROWS_WITH(SweepSpec::from_sweep_json(j, "FILE", "sweep"),
                    Catch::StartsWith("FILE: sweep: the sweep has up to 1e+07 configurations, more than the 1000000"));
  SweepSpec s;
  s.layers.assign(1001, 1);
  s.widths.assign(1000, 2);
  CHECK_THROWS_AS(sweep_configs(s), InputError);
  j = sweep;
  j["options"]["range"] = -1;
  CHECK_THAT(SweepSpec::from_sweep_json(sweep, "FILE", "sweep").sweep_json().dump(), Catch::Contains("\"seeds\":1"));
  CHECK_THROWS_WITH(SweepSpec::from_sweep_json(j, "FILE", "sweep"),
                    Catch::StartsWith("FILE: sweep.options.range: expected an integer in [0, 1099511627776]"));
}

TEST_CASE("figures too large for a buffer print in scientific notation with their unit", "[limits][format]") {
  // The main of issue 38 printed "memory about 9048826848606042268231627790178" (cut, no unit).
  CHECK(format_bytes(1e40) == "9.31e+30 GiB");
  CHECK(format_bytes(1e300).size() < 20);
  CHECK(format_bytes(HUGE_VAL) == "inf GiB");
  CHECK(format_bytes(3 * 1024.0 * 1024 * 1024) == "3.00 GiB");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(12) == "12 bytes");
  CHECK(format_fixed(1234.5678, 2) == "1234.57");
  CHECK(format_fixed(-1e20, 1) == "-1.0e+20");
  CHECK(format_fixed(1e308, 17).find("e+308") != std::string::npos);
  CHECK(format_fixed(NAN, 2) == "nan");
}

TEST_CASE("strings from files are escaped for each format", "[table][escape]") {
  using namespace tables_detail;
  const std::string evil = "half\n\\input{/etc/passwd}\r\\write18{id}\x01";
  // LaTeX: one line, no control sequence of the string's own.
  const std::string t = tex_escape(evil);
  CHECK(t.find('\n') == std::string::npos);
  CHECK(t.find('\r') == std::string::npos);
  CHECK(t.find("\\input") == std::string::npos);
  CHECK(t.find("\\write18") == std::string::npos);
  CHECK(t == "half\\textbackslash{}n\\textbackslash{}input\\{/etc/passwd\\}\\textbackslash{}r\\textbackslash{}write18\\{id\\}"
             "\\textbackslash{}x01");
  CHECK(tex_comment(evil) == "half\\n\\input{/etc/passwd}\\r\\write18{id}\\x01");
  CHECK(tex_escape("a\xff" "b") == "a\\textbackslash{}xffb");  // the byte shown as printable() shows it
  // CSV: formulas neutralised, numbers kept.
  CHECK(csv_quote("=cmd|' /C calc'!A0") == "'=cmd|' /C calc'!A0");
  CHECK(csv_quote("+1+2") == "'+1+2");
  CHECK(csv_quote("@SUM(A1)") == "'@SUM(A1)");
  CHECK(csv_quote("\tx") == "'\tx");
  CHECK(csv_quote("-3") == "-3");
  CHECK(csv_quote("-1.5e-3") == "-1.5e-3");
  CHECK(csv_quote("-inf") == "-inf");
  CHECK(csv_quote("=a,b") == "\"'=a,b\"");
  CHECK(csv_quote("plain") == "plain");
  // Markdown: no cell break, no link, no HTML, no line break.
  CHECK(md_escape("a|b[x](javascript:y)<b>\n*") == "a\\|b[x]\\(javascript:y)\\<b\\>\\\\n\\*");
  CHECK(md_escape("output y[0][0], weights in [-3, 3] (small)") == "output y[0][0], weights in [-3, 3] (small)");
  // XML: control characters, non-characters and bytes that are not UTF-8 never reach the SVG.
  CHECK(xml_text("a\x01<&>\"'\xef\xbf\xbe\xff") == "a\\x01&lt;&amp;&gt;&quot;&apos;\\uFFFE\\xff");
  CHECK(xml_text("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(xml_text("\xc0\xaf") == "\\xc0\\xaf");  // an overlong '/': two bytes that are not UTF-8
}

TEST_CASE("--resume reads its journal as strictly: a negative rank is refused naming the line and the path",
          "[table][strict]") {
  const SweepSpec s;  // attention L=1 d=2 H=1 N=2, generic weights
  const auto configs = sweep_configs(s);
  json row = measure_row(configs.at(0), s).to_json();
  const std::string path = "/tmp/netpoly-strict-journal-" + std::to_string(::getpid()) + ".jsonl";
  auto resume = [&](const json& r) {
    { std::ofstream(path) << r.dump() << "\n"; }
    Journal jf(path, true);
    return resumed_rows(jf, s, configs);
  };
  CHECK(resume(row).size() == 1);
  row["upper"] = -1;
  try {
    resume(row);
    FAIL("a negative rank was resumed");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith(path + ":1: upper: expected an integer in [0, 4611686018427387904], got the integer -1"));
  }
  std::remove(path.c_str());
}
