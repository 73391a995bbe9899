// table --merge: the rows of shard tables joined into the table an unsharded
// run of their sweep gives; rows of several sweeps of one family (the same
// architecture and options, other shapes or seeds) joined into one table with
// the union of their rows. A shard file is input like any other: every row is
// judged as a fresh one is (judge_row), and a row that does not belong —
// another sweep, another netpoly build, outside the sweep, inconsistent, in
// conflict with another file's row for the same configuration, or with cells
// this netpoly's registry does not give for its shape — is refused, naming the
// file and the row.
#include <algorithm>
#include <map>
#include <set>

#include "netpoly/error.hpp"
#include "netpoly/table.hpp"

namespace netpoly {

using json = nlohmann::json;

namespace {

std::string row_name(const std::string& file, const TableRow& r) {
  return file + ": row \"" + r.config.key() + "\"";
}

// What a row says, for comparing two files' rows of one configuration: the
// JSON form without its timing and its position.
json row_content(const TableRow& r) {
  json j = r.to_json();
  j.erase("seconds");
  j.erase("index");
  return j;
}

// The first top-level field where two rows differ, as "lower: 3 there, 4 here".
std::string first_difference(const json& a, const json& b) {
  for (const auto& [k, v] : a.items())
    if (!b.contains(k) || b[k] != v)
      return k + ": " + v.dump() + " there, " + (b.contains(k) ? b[k].dump() : std::string("nothing")) + " here";
  for (const auto& [k, v] : b.items())
    if (!a.contains(k)) return k + ": nothing there, " + v.dump() + " here";
  return "";
}

// The cells judge_row derives from the shape alone (the parameter count, the
// bound cells but their violation marks), as a file gives them and as this
// netpoly's registry does: a difference is an edited row or another build.
std::string derived_difference(const TableRow& file_row, const TableRow& judged) {
  if (file_row.params != judged.params)
    return "its parameter count " + file_row.params + " is not the shape's " + judged.params;
  auto cells = [](const std::vector<BoundCell>& bs) {
    std::map<std::string, json> m;
    for (const auto& b : bs) {
      json x = bound_cell_json(b);
      x.erase("violated");
      m[b.id] = x;
    }
    return m;
  };
  const auto a = cells(file_row.bounds), b = cells(judged.bounds);
  for (const auto& [id, x] : b) {
    auto it = a.find(id);
    if (it == a.end()) return "it has no cell for the bound \"" + id + "\"";
    if (it->second != x)
      return "its cell for \"" + id + "\" (" + first_difference(it->second, x) + ") is not what the registry gives";
  }
  for (const auto& [id, x] : a)
    if (!b.count(id)) return "a cell for \"" + id + "\", which is no bound of its shape";
  return "";
}

// What sweeps merged into one table may differ in: the ranges swept. The
// rest of a sweep (architecture, residual, the equal-budget model and caps,
// the options every row was measured with) is its family, and rows of two
// families never share a table.
const std::vector<std::string>& range_fields(const json& sweep) {
  static const std::vector<std::string> sweep_ranges{"layers", "widths", "heads",        "tokens",
                                                     "degrees", "block_degrees", "seeds"};
  static const std::vector<std::string> budget_ranges{"budgets", "seeds"};
  return sweep.contains("budgets") ? budget_ranges : sweep_ranges;
}

json family_of(const json& sweep) {
  json f = sweep;
  for (const auto& k : range_fields(sweep)) f.erase(k);
  return f;
}

// The first difference of two families, with the flag that sets it.
std::string family_difference(const json& there, const json& here) {
  const json a = family_of(there), b = family_of(here);
  if (a.value("options", json(nullptr)) != b.value("options", json(nullptr)))
    return options_difference(a.value("options", json(nullptr)), b.value("options", json(nullptr)), "here");
  static const std::map<std::string, std::string> flags{
      {"arch", "--arch"},         {"archs", "--arch"},         {"residual", "--residual"}, {"max_depth", "--max-depth"},
      {"max_width", "--max-width"}, {"tokens", "--tokens"},    {"heads", "--heads"},       {"degrees", "--degree"},
      {"block_degrees", "--degree"}};
  for (const auto& [k, v] : a.items())
    if (!b.contains(k) || b[k] != v) {
      auto f = flags.find(k);
      return (f == flags.end() ? k : f->second) + " " + v.dump() + " there, " +
             (b.contains(k) ? b[k].dump() : std::string("nothing")) + " here";
    }
  for (const auto& [k, v] : b.items())
    if (!a.contains(k)) return k + ": nothing there, " + v.dump() + " here";
  return "";
}

// a's values, then b's not in a.
template <class T>
void add_values(std::vector<T>& a, const std::vector<T>& b) {
  for (const auto& v : b)
    if (std::find(a.begin(), a.end(), v) == a.end()) a.push_back(v);
}

// One sweep whose configurations are every row of the given sweeps of one
// family (it may have more): their lists joined, in ascending order when
// there are several sweeps (one sweep keeps its own order, so the merge of
// its shards is its unsharded table). It orders the merged rows.
SweepSpec union_spec(const std::vector<SweepSpec>& specs) {
  SweepSpec u = specs.at(0);
  const bool att = u.arch == Arch::attention;
  auto degrees = [&](const SweepSpec& s) {  // attention's default, LV's degree 3, is written as no list
    return att && s.degrees.empty() ? std::vector<std::uint64_t>{3} : s.degrees;
  };
  std::vector<std::uint64_t> ks = degrees(u);
  for (std::size_t i = 1; i < specs.size(); ++i) {
    const SweepSpec& s = specs[i];
    add_values(u.layers, s.layers);
    add_values(u.widths, s.widths);
    add_values(u.heads, s.heads);
    add_values(u.tokens, s.tokens);
    add_values(ks, degrees(s));
    add_values(u.budgets, s.budgets);
    u.seeds = std::max(u.seeds, s.seeds);
  }
  if (specs.size() > 1) {
    for (auto* l : {&u.layers, &u.widths, &u.heads, &u.tokens, &ks}) std::sort(l->begin(), l->end());
    std::sort(u.budgets.begin(), u.budgets.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;  // decimal digits without leading zeros
    });
  }
  u.degrees = att && ks == std::vector<std::uint64_t>{3} ? std::vector<std::uint64_t>{} : ks;
  return u;
}

}  // namespace

std::string rows_title(const std::vector<TableRow>& rows) {
  std::vector<json> sweeps;
  for (const auto& r : rows) {
    if (r.sweep.is_null() || !r.sweep.is_object()) return "netpoly table";
    if (!sweeps.empty() && (row_param_count(r.sweep) != row_param_count(sweeps[0]) ||
                            family_of(r.sweep) != family_of(sweeps[0])))
      return "netpoly table";
    if (std::find(sweeps.begin(), sweeps.end(), r.sweep) == sweeps.end()) sweeps.push_back(r.sweep);
  }
  if (sweeps.empty()) return "netpoly table";
  std::vector<SweepSpec> specs;
  try {
    for (const auto& s : sweeps) specs.push_back(SweepSpec::from_sweep_json(s));
  } catch (const InputError&) {
    return "netpoly table";
  }
  return sweep_title(union_spec(specs));
}

Merged merge_tables(const std::vector<std::string>& files) {
  Merged out;
  // The sweeps the rows belong to, each with the first file that has its rows.
  std::vector<std::pair<json, std::string>> sweeps;
  std::string version_row;  // the first row with a version
  std::map<std::string, std::pair<json, std::string>> seen;  // key -> (content, file)
  std::vector<std::pair<TableRow, std::string>> rows;        // with their files
  for (const auto& f : files)
    for (auto& r : read_rows(f)) {
      if (r.sweep.is_null())
        throw InputError(row_name(f, r) + " does not record the sweep it belongs to (made by an older netpoly); "
                                          "rerun that shard");
      if (sweeps.empty()) {
        sweeps.emplace_back(r.sweep, f);
      } else if (row_param_count(r.sweep) != row_param_count(sweeps[0].first)) {
        throw InputError(f + ": rows counted under --param-count " + param_count_name(row_param_count(r.sweep)) +
                         ", " + sweeps[0].second + "'s under " + param_count_name(row_param_count(sweeps[0].first)) +
                         ": equal budgets of two parameter counts are different sweeps; merge one of them");
      } else if (family_of(r.sweep) != family_of(sweeps[0].first)) {
        throw InputError(f + ": rows of another sweep than " + sweeps[0].second + " (" +
                         family_difference(sweeps[0].first, r.sweep) +
                         "); shards, and sweeps that differ only in the shapes and seeds they run (--layers, "
                         "--width, --heads, --tokens, --degree, --seeds; equal budgets: --param-budget), can be "
                         "merged");
      } else if (std::none_of(sweeps.begin(), sweeps.end(), [&](const auto& s) { return s.first == r.sweep; })) {
        sweeps.emplace_back(r.sweep, f);
      }
      if (r.options != r.sweep.value("options", json(nullptr)))
        throw InputError(row_name(f, r) + ": its options " + r.options.dump() + " are not its sweep's " +
                         r.sweep.value("options", json(nullptr)).dump());
      if (r.version.empty())
        throw InputError(row_name(f, r) + " records no netpoly version (made by an older netpoly); rerun that shard");
      if (out.version.empty()) {
        out.version = r.version;
        version_row = row_name(f, r);
      } else if (r.version != out.version) {
        throw InputError("rows of two netpoly builds: " + version_row + " was measured by netpoly " + out.version +
                         ", " + row_name(f, r) + " by netpoly " + r.version + "; rerun the shards with one build");
      }
      rows.emplace_back(std::move(r), f);
    }
  if (sweeps.empty()) throw InputError("--merge: no rows in the given files");
  std::vector<SweepSpec> specs;
  std::vector<std::set<std::string>> keys;  // each sweep's configurations
  for (const auto& [sweep, f] : sweeps) {
    specs.push_back(SweepSpec::from_sweep_json(sweep));
    keys.emplace_back();
    for (const auto& c : sweep_configs(specs.back())) keys.back().insert(c.key());
  }
  out.spec = union_spec(specs);
  std::map<std::string, std::size_t> index;  // the merged table's order
  for (const auto& c : sweep_configs(out.spec)) index[c.key()] = c.index;
  for (auto& [r, f] : rows) {
    const std::string key = r.config.key();
    const auto& row_sweep = r.sweep;  // (a structured binding is not captured by clang 14's lambdas)
    const std::size_t si = static_cast<std::size_t>(
        std::find_if(sweeps.begin(), sweeps.end(), [&](const auto& s) { return s.first == row_sweep; }) -
        sweeps.begin());
    auto at = index.find(key);
    if (!keys[si].count(key) || at == index.end()) {
      const auto configs = sweep_configs(specs[si]);
      throw InputError(row_name(f, r) + " is not in the sweep (" + std::to_string(configs.size()) +
                       " rows, e.g. \"" + (configs.empty() ? std::string() : configs[0].key()) +
                       "\"); only rows of the sweep can be merged");
    }
    TableRow judged = r;
    if (const std::string why = judge_row(judged); !why.empty()) throw InputError(row_name(f, r) + ": " + why);
    if (const std::string why = derived_difference(r, judged); !why.empty())
      throw InputError(row_name(f, r) + ": " + why + " (an edited row, or a table of another netpoly)");
    judged.config.index = at->second;
    json content = row_content(judged);
    content.erase("sweep");  // one row of two sweeps is one measurement: the sweeps differ, the row must not
    auto [it, fresh] = seen.emplace(key, std::make_pair(content, f));
    if (!fresh) {
      if (it->second.first != content)
        throw InputError("row \"" + key + "\" differs between " + it->second.second + " and " + f + " (" +
                         first_difference(it->second.first, content) +
                         "): two different measurements of one configuration; merge only one of them");
      continue;  // the same row twice (a table and its journal, or two sweeps that share it)
    }
    out.rows.push_back(std::move(judged));
  }
  for (std::size_t si = 0; si < sweeps.size(); ++si) {
    std::vector<std::string> missing;
    for (const auto& c : sweep_configs(specs[si]))
      if (!seen.count(c.key())) missing.push_back(c.key());
    if (missing.empty()) continue;
    std::string some;
    for (std::size_t k = 0; k < missing.size() && k < 3; ++k) some += (k ? "; " : "") + missing[k];
    throw InputError("--merge: " + std::to_string(missing.size()) + " of the sweep's " +
                     std::to_string(keys[si].size()) + " rows are in none of the files (" + some +
                     (missing.size() > 3 ? "; ..." : "") + ")" +
                     (sweeps.size() > 1 ? " (the sweep of " + sweeps[si].second + ")" : "") +
                     ": a shard is missing or unfinished");
  }
  std::sort(out.rows.begin(), out.rows.end(),
            [](const TableRow& a, const TableRow& b) { return a.config.index < b.config.index; });
  out.title = sweep_title(out.spec);
  return out;
}

}  // namespace netpoly
