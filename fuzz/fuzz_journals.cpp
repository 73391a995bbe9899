// libFuzzer target: table shards and journals (issue 38). Byte 0 picks the
// reader, the rest is the file:
//   0: a shard table (.json) through table --merge's reader (merge_tables);
//   1: a journal (.jsonl) through the same;
//   2: a journal through --resume's reader (Journal, resumed_rows) for the
//      default sweep, with "@BUILD@" replaced by this netpoly's build first
//      (so that seeds stay valid from one commit to the next).
// A netpoly::Error is the documented answer to bad input. Beyond "no crash",
// what is accepted must hold up: no rank read from a negative, fractional or
// non-integer JSON value; every row judged consistent (judge_row) with ends
// in [0, 2^62], lower <= upper; merged rows in sweep order with distinct keys;
// every row's JSON reads back to itself.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>

#include "netpoly/error.hpp"
#include "runtime/io.hpp"
#include "runtime/json_check.hpp"
#include "netpoly/table.hpp"
#include "netpoly/version.hpp"
#include "tables/journal_rows.hpp"

namespace {

using json = nlohmann::json;
using namespace netpoly;

struct BrokenInvariant : std::logic_error {
  using std::logic_error::logic_error;
};

void expect(bool ok, const char* what) {
  if (!ok) throw BrokenInvariant(what);
}

// A rank end as the file states it: null or a JSON integer >= 0.
bool rank_text_ok(const json& o, const char* key) {
  if (!o.is_object() || !o.contains(key)) return true;  // missing: the reader refused or it is not a row
  const json& v = o[key];
  return v.is_null() || v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

// Every row object of the file that the reader must have read.
std::vector<json> raw_rows(const std::string& text, bool journal) {
  std::vector<json> out;
  if (!journal) {
    const json j = json::parse(text, nullptr, false);
    if (j.is_object() && j.contains("rows") && j["rows"].is_array())
      for (const auto& r : j["rows"]) out.push_back(r);
    return out;
  }
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t nl = std::min(text.find('\n', start), text.size());
    const json r = json::parse(text.substr(start, nl - start), nullptr, false);
    if (!r.is_discarded()) out.push_back(r);
    start = nl + 1;
  }
  return out;
}

void check_row(const TableRow& r) {
  for (const Bracket* b : {static_cast<const Bracket*>(&r), r.second ? &*r.second : nullptr}) {
    if (!b) continue;
    expect(!b->lower.value || *b->lower.value <= kMaxRank, "a lower end above 2^62");
    expect(!b->upper.value || *b->upper.value <= kMaxRank, "an upper end above 2^62");
    expect(!b->lower.value || !b->upper.value || *b->lower.value <= *b->upper.value, "lower end above upper end");
  }
  TableRow again = r;
  expect(judge_row(again).empty(), "an accepted row that judge_row refuses");
  const json j = r.to_json();
  expect(TableRow::from_json(j, "fuzz", "").to_json() == j, "a row's JSON does not read back to itself");
}

void check_raw(const std::vector<json>& raw) {
  for (const auto& r : raw) {
    expect(rank_text_ok(r, "lower") && rank_text_ok(r, "upper"), "a rank accepted from a negative or non-integer value");
    if (r.is_object() && r.contains("second_draw_bracket")) {
      const json& s = r["second_draw_bracket"];
      expect(rank_text_ok(s, "lower") && rank_text_ok(s, "upper"), "a second draw's rank from a non-integer");
    }
  }
}

std::string temp_file(const std::string& name, const std::string& text) {
  static const std::string dir = [] {
    char t[] = "/tmp/fuzz-journals-XXXXXX";
    const char* d = ::mkdtemp(t);
    if (!d) throw std::runtime_error("mkdtemp failed");
    return std::string(d);
  }();
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

void merge_input(const std::string& text, bool journal) {
  const std::string path = temp_file(journal ? "shard.jsonl" : "shard.json", text);
  forget_inputs();  // each input is its own run
  Merged m;
  try {
    m = merge_tables({path});
  } catch (const Error&) {
    return;
  }
  check_raw(raw_rows(text, journal));
  std::set<std::string> keys;
  for (std::size_t k = 0; k < m.rows.size(); ++k) {
    check_row(m.rows[k]);
    expect(keys.insert(m.rows[k].config.key()).second, "a configuration merged twice");
    expect(k == 0 || m.rows[k - 1].config.index < m.rows[k].config.index, "merged rows out of sweep order");
  }
  expect(m.rows.size() == sweep_configs(m.spec).size(), "a merge with rows missing");
}

void resume_input(std::string text) {
  for (std::size_t at; (at = text.find("@BUILD@")) != std::string::npos;) text.replace(at, 7, netpoly_build());
  const std::string path = temp_file("resume.jsonl", text);
  forget_inputs();
  std::vector<TableRow> rows;
  try {
    Journal jf(path, true);
    const SweepSpec s;  // the default sweep: attention L=1 d=2 H=1 N=2, generic weights
    rows = resumed_rows(jf, s, sweep_configs(s));
  } catch (const Error&) {
    return;
  }
  // A torn last line was cut off: the rest was read.
  const std::size_t end = text.rfind('\n');
  check_raw(raw_rows(end == std::string::npos ? std::string() : text.substr(0, end + 1), true));
  for (const auto& r : rows) {
    check_row(r);
    expect(r.version == netpoly_build(), "a resumed row of another build");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 3) {
      case 0: merge_input(text, false); break;
      case 1: merge_input(text, true); break;
      default: resume_input(text); break;
    }
  } catch (const BrokenInvariant& e) {
    std::fprintf(stderr, "fuzz_journals: check failed: %s\n", e.what());
    __builtin_trap();
  }
  return 0;
}
