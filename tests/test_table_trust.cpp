// Table rows are judged, never trusted (issue 29, item 6): judge_row checks a
// row's measurements and derives everything they determine, for a fresh row
// and for every row a --merge reads; merge_tables refuses rows that do not
// belong, naming the file and the row.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "netpoly/error.hpp"
#include "netpoly/table.hpp"
#include "netpoly/version.hpp"

using namespace netpoly;
using json = nlohmann::json;

namespace {

// attention L=1, d=2, H=1, N=2 (16 parameters: 4 L d^2; LV Thm 3: (H (d/H + 1))^C(1) = 3),
// measured exactly 3 by both draws, under generic weights.
TableRow row_of(std::size_t lo, std::size_t hi, BracketStatus st) {
  TableRow r;
  r.config.params = {Arch::attention, 1, 2, 1, 2, 0, false};
  r.config.seed = 1;
  r.lower = {lo, "exact"};
  r.upper = {hi, "exact"};
  r.status = st;
  Bracket b;
  b.lower = {3, "exact"};
  b.upper = {3, "exact"};
  b.status = BracketStatus::exact;
  r.second = b;
  r.options = {{"weights", "generic"}};
  return r;
}

const BoundCell& cell(const TableRow& r, const std::string& id) {
  for (const auto& b : r.bounds)
    if (b.id == id) return b;
  FAIL("no cell " << id);
  throw;
}

std::string problem(TableRow r) { return judge_row(r); }

struct TempDir {
  std::filesystem::path p;
  TempDir() {
    p = std::filesystem::temp_directory_path() / ("netpoly-trust-" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
  }
  ~TempDir() { std::filesystem::remove_all(p); }
  std::string file(const std::string& name) const { return (p / name).string(); }
};

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

void write_json(const std::string& path, const json& j) { std::ofstream(path) << j.dump(1) << "\n"; }

std::string merge_error(const std::vector<std::string>& files) {
  try {
    merge_tables(files);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(merged)";
}

}  // namespace

TEST_CASE("judge_row derives the parameter count, the bounds and the marks from the measurements", "[table]") {
  TableRow r = row_of(3, 3, BracketStatus::exact);
  r.params = "999";  // what a file says is not what counts
  REQUIRE(judge_row(r).empty());
  CHECK(r.params == "16");
  CHECK(cell(r, "LV Thm 3").value == "3");
  CHECK_FALSE(cell(r, "LV Thm 3").violated);
  CHECK_FALSE(r.degenerate);
  // An edited measurement, exact 100: LV Thm 3 <= 3 (in regime) is contradicted.
  TableRow e = row_of(100, 100, BracketStatus::exact);
  e.second->lower.value = e.second->upper.value = 100;
  REQUIRE(judge_row(e).empty());
  CHECK(cell(e, "LV Thm 3").violated);
  // A second draw contradicting its row: the row is degenerate, and says so.
  TableRow d = row_of(3, 3, BracketStatus::exact);
  d.second->lower.value = d.second->upper.value = 7;
  REQUIRE(judge_row(d).empty());
  CHECK(d.degenerate);
  CHECK(d.degenerate_why == "a second generic draw measures 7, this one 3");
  // Brackets that meet are no contradiction: [2, 5] against 3.
  TableRow m = row_of(3, 3, BracketStatus::exact);
  m.second->lower.value = 2;
  m.second->upper.value = 5;
  m.second->status = BracketStatus::bracket;
  REQUIRE(judge_row(m).empty());
  CHECK_FALSE(m.degenerate);
}

TEST_CASE("judge_row refuses inconsistent measurements", "[table]") {
  CHECK(problem(row_of(9, 5, BracketStatus::exact)) == "its lower end 9 is above its upper end 5");
  CHECK(problem(row_of(3, 5, BracketStatus::exact)) == "status exact, but its ends [3, 5] do not meet");
  CHECK(problem(row_of(4, 4, BracketStatus::bracket)) == "its ends meet at 4, but its status is bracket");
  TableRow p = row_of(3, 5, BracketStatus::probabilistic);
  p.lower.value.reset();
  CHECK(problem(p) == "[0, 5] probabilistic: probabilistic without a lower end");
  p = row_of(3, 5, BracketStatus::probabilistic);
  p.failure_probability = 1.5;
  CHECK(problem(p).find("failure probability") != std::string::npos);
  TableRow err = row_of(3, 3, BracketStatus::error);
  CHECK(problem(err) == "an error row with measured values [3, 3]");
  TableRow s = row_of(3, 3, BracketStatus::exact);
  s.second->lower.value = 8;
  CHECK(problem(s) == "second draw: its lower end 8 is above its upper end 3");
  s = row_of(3, 3, BracketStatus::exact);
  s.second.reset();
  CHECK(problem(s) == "generic weights, but no second draw");
  s = row_of(3, 3, BracketStatus::exact);
  s.options["weights"] = "small";
  CHECK(problem(s) == "a second draw, but the weights are not generic");
  s = row_of(3, 3, BracketStatus::exact);
  s.config.params.heads = 3;  // H must divide d
  CHECK(problem(s).rfind("not a valid shape: ", 0) == 0);
}

TEST_CASE("merge_tables joins shards and refuses rows that do not belong, naming file and row", "[table]") {
  TempDir dir;
  SweepSpec s;
  s.layers = {1, 2};
  s.widths = {2};
  s.tokens = {2};
  SweepRunOptions o;
  for (std::size_t k = 1; k <= 2; ++k) {
    o.out = dir.file("s" + std::to_string(k) + ".json");
    o.format = TableFormat::json;
    o.shard = k;
    o.shards = 2;
    run_sweep(s, o);
  }
  const std::string s1 = dir.file("s1.json"), s2 = dir.file("s2.json");
  const Merged m = merge_tables({s1, s2});
  REQUIRE(m.rows.size() == 2);
  CHECK(m.version == netpoly_build());
  CHECK(m.rows[0].config.key() == "attention L=1 d=2 H=1 N=2 seed=1");
  // A table and its own journal hold the same rows: no conflict.
  CHECK(merge_tables({s1, s1 + ".jsonl", s2}).rows.size() == 2);

  json j = read_json(s1);
  const std::string key = j["rows"][0]["key"];
  // Two different measurements of one row.
  json c = j;
  c["rows"][0]["lower"] = c["rows"][0]["upper"] = 4;
  c["rows"][0]["second_draw_bracket"]["lower"] = c["rows"][0]["second_draw_bracket"]["upper"] = 4;
  write_json(dir.file("c.json"), c);
  std::string err = merge_error({s1, dir.file("c.json"), s2});
  CHECK(err.find("row \"" + key + "\" differs between " + s1 + " and " + dir.file("c.json")) != std::string::npos);
  // A row outside the sweep (width 3).
  json x = read_json(s2);
  json extra = x["rows"][0];
  extra["config"]["width"] = 3;
  extra["key"] = "attention L=2 d=3 H=1 N=2 seed=1";
  x["rows"].push_back(extra);
  write_json(dir.file("x.json"), x);
  err = merge_error({s1, dir.file("x.json")});
  CHECK(err.find(dir.file("x.json") + ": row \"attention L=2 d=3 H=1 N=2 seed=1\" is not in the sweep") != std::string::npos);
  // lower > upper.
  json b = j;
  b["rows"][0]["lower"] = 9;
  b["rows"][0]["upper"] = 5;
  write_json(dir.file("b.json"), b);
  err = merge_error({dir.file("b.json"), s2});
  CHECK(err == dir.file("b.json") + ": row \"" + key + "\": its lower end 9 is above its upper end 5");
  // Another build.
  json v = read_json(s2);
  v["rows"][0]["netpoly_version"] = "0.0.1 (git 0123456789ab, FLINT 2.9.0)";
  write_json(dir.file("v.json"), v);
  err = merge_error({s1, dir.file("v.json")});
  CHECK(err.find("rows of two netpoly builds") != std::string::npos);
  CHECK(err.find("netpoly " + netpoly_build()) != std::string::npos);
  CHECK(err.find("netpoly 0.0.1 (git 0123456789ab, FLINT 2.9.0)") != std::string::npos);
  // A bound cell the registry does not give.
  json t = j;
  t["rows"][0]["bounds"][0]["value"] = "4";
  write_json(dir.file("t.json"), t);
  err = merge_error({dir.file("t.json"), s2});
  CHECK(err.find("its cell for \"LV Thm 3\"") != std::string::npos);
  // An edited measurement merges, marked.
  json e = j;
  e["rows"][0]["lower"] = e["rows"][0]["upper"] = 100;
  e["rows"][0]["second_draw_bracket"]["lower"] = e["rows"][0]["second_draw_bracket"]["upper"] = 100;
  write_json(dir.file("e.json"), e);
  const Merged me = merge_tables({dir.file("e.json"), s2});
  CHECK(cell(me.rows[0], "LV Thm 3").violated);
}

TEST_CASE("equal budgets record their parameter count; rows of two counts never merge (issue 32.5)", "[table][budget]") {
  TempDir dir;
  // Degree-3 attention, N = 2, B = 48, depth 1 only: AO eq. (4) (3 d^2) admits d = 4, netpoly's 4 d^2 d = 3.
  SweepSpec s;
  s.archs = {Arch::attention};
  s.arch = Arch::attention;
  s.budgets = {"48"};
  s.tokens = {2};
  s.max_depth = 1;
  s.max_width = 4;
  s.param_count = ParamCount::ao_eq4;
  CHECK(s.sweep_json()["param_count"] == "ao-eq4");
  CHECK(SweepSpec::from_sweep_json(s.sweep_json()).param_count == ParamCount::ao_eq4);
  auto c = sweep_configs(s);
  REQUIRE(c.size() == 1);
  CHECK(c[0].key() == "B=48 attention L=1 d=4 H=1 N=2 seed=1");
  SweepRunOptions o;
  o.format = TableFormat::json;
  o.out = dir.file("eq4.json");
  auto rows = run_sweep(s, o);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].params == "48");  // under the model (the preset has (k + 1) d^2 = 64 weights)
  CHECK(rows[0].params_text == "k L d^2 = 3 * 1 * 4^2 = 48");
  const json j = rows[0].to_json();
  CHECK(j["params_count"]["model"] == "ao-eq4");
  CHECK(j["params_count"]["count"] == "k L d^2 = 3 * 1 * 4^2 = 48");
  const std::string md = render_table(rows, TableFormat::md, "t");
  CHECK(md.find("| count |") != std::string::npos);
  CHECK(md.find("k L d^2 = 3 * 1 * 4^2 = 48") != std::string::npos);
  CHECK(render_table(rows, TableFormat::csv, "t").find("params_count") != std::string::npos);
  // The same budget under netpoly's count: another sweep, refused by a merge with a message naming both.
  s.param_count = ParamCount::netpoly;
  o.out = dir.file("np.json");
  run_sweep(s, o);
  const std::string err = merge_error({dir.file("eq4.json"), dir.file("np.json")});
  CHECK(err.find("rows counted under --param-count netpoly") != std::string::npos);
  CHECK(err.find("under ao-eq4") != std::string::npos);
  // One model's table merges (its params re-derived under its recorded count).
  CHECK(merge_tables({dir.file("eq4.json")}).rows.at(0).params == "48");
  // A sweep that records no count (before --param-count) counted netpoly's way.
  json old = s.sweep_json();
  old.erase("param_count");
  CHECK(row_param_count(old) == ParamCount::netpoly);
}
