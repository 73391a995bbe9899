// table --merge: the rows of shard tables joined into the table an unsharded
// run of their sweep gives. A shard file is input like any other: every row is
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

}  // namespace

Merged merge_tables(const std::vector<std::string>& files) {
  Merged out;
  json sweep;
  std::string sweep_file, version_row;  // the first file with rows, the first row with a version
  std::map<std::string, std::pair<json, std::string>> seen;  // key -> (content, file)
  std::vector<std::pair<TableRow, std::string>> rows;        // with their files
  for (const auto& f : files)
    for (auto& r : read_rows(f)) {
      if (r.sweep.is_null())
        throw InputError(row_name(f, r) + " does not record the sweep it belongs to (made by an older netpoly); "
                                          "rerun that shard");
      if (sweep.is_null()) {
        sweep = r.sweep;
        sweep_file = f;
      } else if (row_param_count(r.sweep) != row_param_count(sweep)) {
        throw InputError(f + ": rows counted under --param-count " + param_count_name(row_param_count(r.sweep)) +
                         ", " + sweep_file + "'s under " + param_count_name(row_param_count(sweep)) +
                         ": equal budgets of two parameter counts are different sweeps; merge one of them");
      } else if (r.sweep != sweep) {
        throw InputError(f + ": rows of another sweep than " + sweep_file + " (" + r.sweep.dump() + " vs " +
                         sweep.dump() + "); only shards of one sweep can be merged");
      }
      if (r.options != sweep.value("options", json(nullptr)))
        throw InputError(row_name(f, r) + ": its options " + r.options.dump() + " are not its sweep's " +
                         sweep.value("options", json(nullptr)).dump());
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
  if (sweep.is_null()) throw InputError("--merge: no rows in the given files");
  out.spec = SweepSpec::from_sweep_json(sweep);
  const auto configs = sweep_configs(out.spec);
  std::map<std::string, std::size_t> index;
  for (const auto& c : configs) index[c.key()] = c.index;
  for (auto& [r, f] : rows) {
    const std::string key = r.config.key();
    auto at = index.find(key);
    if (at == index.end())
      throw InputError(row_name(f, r) + " is not in the sweep (" + std::to_string(configs.size()) +
                       " rows, e.g. \"" + (configs.empty() ? std::string() : configs[0].key()) +
                       "\"); only rows of the sweep can be merged");
    TableRow judged = r;
    if (const std::string why = judge_row(judged); !why.empty()) throw InputError(row_name(f, r) + ": " + why);
    if (const std::string why = derived_difference(r, judged); !why.empty())
      throw InputError(row_name(f, r) + ": " + why + " (an edited row, or a table of another netpoly)");
    judged.config.index = at->second;  // the unsharded run's order
    const json content = row_content(judged);
    auto [it, fresh] = seen.emplace(key, std::make_pair(content, f));
    if (!fresh) {
      if (it->second.first != content)
        throw InputError("row \"" + key + "\" differs between " + it->second.second + " and " + f + " (" +
                         first_difference(it->second.first, content) +
                         "): two different measurements of one configuration; merge only one of them");
      continue;  // the same row twice (a table and its journal, say)
    }
    out.rows.push_back(std::move(judged));
  }
  std::vector<std::string> missing;
  for (const auto& c : configs)
    if (!seen.count(c.key())) missing.push_back(c.key());
  if (!missing.empty()) {
    std::string some;
    for (std::size_t k = 0; k < missing.size() && k < 3; ++k) some += (k ? "; " : "") + missing[k];
    throw InputError("--merge: " + std::to_string(missing.size()) + " of the sweep's " +
                     std::to_string(configs.size()) + " rows are in none of the files (" + some +
                     (missing.size() > 3 ? "; ..." : "") + "): a shard is missing or unfinished");
  }
  std::sort(out.rows.begin(), out.rows.end(),
            [](const TableRow& a, const TableRow& b) { return a.config.index < b.config.index; });
  out.title = sweep_title(out.spec);
  return out;
}

}  // namespace netpoly
