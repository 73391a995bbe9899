#include "netpoly/table.hpp"
#include "runtime/io.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <sys/stat.h>

#include <iomanip>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "netpoly/context.hpp"
#include "netpoly/error.hpp"
#include "runtime/json_check.hpp"
#include "runtime/text_escape.hpp"
#include "netpoly/parallel.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/version.hpp"
#include "tables/journal_rows.hpp"

namespace netpoly {

using json = nlohmann::json;

void check_sweep_size(const SweepSpec& s) {
  // Products of list lengths, saturating at the cap (each factor is at least 1).
  double n = static_cast<double>(s.seeds);
  auto times = [&n](std::size_t k) { n *= static_cast<double>(std::max<std::size_t>(k, 1)); };
  if (!s.budgets.empty()) {  // at most one shape per depth for each budget, architecture, heads and degree
    for (std::size_t k : {s.budgets.size(), s.archs.size(), s.heads.size(), s.degrees.size()}) times(k);
    times(s.max_depth);
  } else {
    for (std::size_t k : {s.layers.size(), s.widths.size(), s.heads.size(), s.tokens.size(), s.degrees.size()})
      times(k);
  }
  if (n > static_cast<double>(kMaxSweepRows)) {
    std::ostringstream t;
    t << "the sweep has up to " << std::setprecision(3) << n << " configurations, more than the " << kMaxSweepRows
      << " a table may have (--seeds and the lists of shapes); split it";
    throw InputError(t.str());
  }
}

std::vector<SweepConfig> sweep_configs(const SweepSpec& s) {
  check_sweep_size(s);
  if (!s.budgets.empty()) return budget_configs(s);
  const bool att = s.arch == Arch::attention, mlp = s.arch == Arch::mlp, prod = s.arch == Arch::product;
  const std::vector<std::uint64_t> one{1};
  const auto& heads = att ? s.heads : one;
  const auto& tokens = mlp ? one : s.tokens;
  // Attention: 0 (LV's degree-3 attention, the rows' keys as always) unless --degree asks for blocks.
  const std::vector<std::uint64_t> degrees = (prod || att) && !s.degrees.empty() ? s.degrees : std::vector<std::uint64_t>{0};
  std::vector<SweepConfig> r;
  for (auto L : s.layers)
    for (auto d : s.widths)
      for (auto H : heads)
        for (auto N : tokens)
          for (auto k : degrees) {
            if (att && (H == 0 || d % H != 0)) continue;
            for (std::uint64_t seed = 1; seed <= s.seeds; ++seed) {
              SweepConfig c;
              c.params = {s.arch, L, d, att ? H : 1, N, (att && k == 3) || (prod && k == 2) ? 0 : k, s.residual && !prod};
              c.seed = seed;
              c.index = r.size();
              r.push_back(c);
            }
          }
  return r;
}

TableFormat parse_table_format(const std::string& s) {
  if (s == "md" || s == "markdown") return TableFormat::md;
  if (s == "csv") return TableFormat::csv;
  if (s == "latex" || s == "tex") return TableFormat::latex;
  if (s == "json") return TableFormat::json;
  throw InputError("--format: expected md, csv, latex or json, got \"" + s + "\"");
}

TableFormat table_format_for(const std::string& path) {
  if (path.empty() || path == "-") return TableFormat::md;  // standard output
  const auto slash = path.find_last_of('/');
  const auto dot = path.rfind('.');
  const std::string ext =
      dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : path.substr(dot + 1);
  if (ext == "md" || ext == "markdown") return TableFormat::md;
  if (ext == "csv") return TableFormat::csv;
  if (ext == "tex") return TableFormat::latex;
  if (ext == "json") return TableFormat::json;
  // Never a silent reinterpretation: `-o t.docx` wrote Markdown into a .docx.
  throw InputError("-o " + printable(path) + ": " +
                   (ext.empty() ? std::string("a name without an extension") : "the extension ." + printable(ext)) +
                   " names no table format (expected .md, .csv, .tex or .json, or give --format)");
}

namespace {

// The rows of a journal: every line a row, but for a torn last line (a
// killed run), which is skipped. Each line is checked strictly, as
// "FILE:LINE: PATH: ...".
std::vector<TableRow> journal_rows(const std::string& path) {
  const std::string text = read_text_file(path, "the table journal");
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t nl = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  const bool torn_end = !text.empty() && text.back() != '\n' && !json::accept(lines.back());
  std::vector<TableRow> rows;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty() || (torn_end && i + 1 == lines.size())) continue;
    const std::string where = path + ":" + std::to_string(i + 1);
    json j;
    try {
      j = JsonCheck("").parse(lines[i]);
    } catch (const InputError& e) {
      throw InputError(where + ": not a JSON line (" + std::string(e.what()) + "; only a journal's last line may be torn)");
    }
    rows.push_back(TableRow::from_json(j, where, ""));
  }
  return rows;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::vector<TableRow> read_rows(const std::string& path) {
  if (ends_with(path, ".jsonl")) return journal_rows(path);
  if (ends_with(path, ".json")) {
    const std::string text = read_text_file(path, "the table");
    const JsonCheck in(path);
    const json j = in.parse(text);
    const json& rs = in.at(j, "", "rows");
    if (!rs.is_array()) in.fail("rows", "expected the list of the table's rows, got " + JsonCheck::kind(rs));
    const json& t = j.contains("timings") && j["timings"].is_object() ? j["timings"] : json::object();
    std::vector<TableRow> rows;
    for (std::size_t i = 0; i < rs.size(); ++i) {
      TableRow r = TableRow::from_json(rs[i], in.source(), JsonCheck::idx("rows", i));
      const std::string key = r.config.key();
      if (t.contains(key)) r.seconds = in.number(t[key], "timings." + key, 0, 1e12);
      rows.push_back(r);
    }
    return rows;
  }
  struct stat st {};
  if (::stat((path + ".jsonl").c_str(), &st) != 0)
    throw InputError(path + ": cannot read its rows (expected a .json table or the journal " + path + ".jsonl)");
  return journal_rows(path + ".jsonl");
}

std::vector<TableRow> resumed_rows(const Journal& jf, const SweepSpec& s, const std::vector<SweepConfig>& mine) {
  const std::string& journal = jf.path();
  const json now = s.row_options();
  std::map<std::string, std::size_t> index;
  for (const auto& c : mine) index[c.key()] = c.index;
  std::map<std::string, json> seen;
  std::vector<TableRow> rows;
  std::size_t line_no = 0;
  for (const auto& line : jf.lines()) {
    TableRow r;
    ++line_no;
    try {
      const JsonCheck in(journal + ":" + std::to_string(line_no));
      json j;
      try {
        j = JsonCheck("").parse(line);
      } catch (const InputError& e) {
        throw InputError(in.source() + ": not a JSON line (" + std::string(e.what()) + ")");
      }
      r = TableRow::from_json(j, in.source(), "");
    } catch (const json::exception& e) {
      throw InputError(journal + ":" + std::to_string(line_no) + ": not a JSON line (" + std::string(e.what()) +
                       "); drop --resume to start afresh");
    } catch (const InputError& e) {
      throw InputError(std::string(e.what()) + "; drop --resume to start afresh");
    }
    const std::string key = r.config.key(), where = "--resume: " + journal + ": row \"" + key + "\"";
    const std::string diff = options_difference(r.options, now);
    if (!diff.empty())
      throw InputError("--resume: the journal " + journal + " holds rows measured with other options (" + diff +
                       "); drop --resume to start afresh, or write to another -o FILE");
    if (r.version != netpoly_build())
      throw InputError("--resume: the journal " + journal + " holds rows of " +
                       (r.version.empty() ? std::string("a netpoly that did not record its version")
                                          : "netpoly " + r.version) +
                       " (row \"" + key + "\"), this is netpoly " + netpoly_build() +
                       "; drop --resume to start afresh, or finish the sweep with that build");
    if (const std::string why = judge_row(r); !why.empty())
      throw InputError(where + ": " + why + "; drop --resume to start afresh");
    json content = r.to_json();
    content.erase("seconds");
    content.erase("index");
    if (auto it = seen.find(key); it != seen.end()) {
      if (it->second != content)
        throw InputError(where + " is there twice, with different measurements; drop --resume to start afresh");
      continue;
    }
    seen[key] = content;
    auto at = index.find(key);
    if (at == index.end()) continue;  // another shard's row, or one the sweep no longer has
    r.config.index = at->second;      // the index may differ if the sweep was extended: take the current one
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<TableRow> run_sweep(const SweepSpec& s, const SweepRunOptions& o) {
  if (o.shards == 0 || o.shard == 0 || o.shard > o.shards) throw InputError("--shard K/N: need 1 <= K <= N");
  auto all = sweep_configs(s);
  std::vector<SweepConfig> mine;
  for (const auto& c : all)
    if (c.index % o.shards == o.shard - 1) mine.push_back(c);
  const bool to_file = !o.out.empty();
  const std::string journal = o.out + ".jsonl";
  std::vector<TableRow> rows;
  std::set<std::string> have;
  // The journal is locked for the whole run: a second run on it is refused.
  std::unique_ptr<Journal> jf;
  if (to_file) jf = std::make_unique<Journal>(journal, o.resume);
  if (o.resume && to_file) rows = resumed_rows(*jf, s, mine);
  for (const auto& r : rows) have.insert(r.config.key());
  const std::string title = sweep_title(s);
  // A file is re-rendered after every row; a FIFO or a device gets the table once, at the end.
  const bool rerender = to_file && output_is_file(o.out);
  if (to_file) {  // rewrite the journal with exactly the kept rows
    std::string text;
    for (const auto& r : rows) text += r.to_json().dump() + "\n";
    jf->rewrite(text);
    if (rerender) write_file_atomic(o.out, render_table(rows, o.format, title, o.view));
  }
  std::vector<SweepConfig> todo;
  for (const auto& c : mine)
    if (!have.count(c.key())) todo.push_back(c);
  std::mutex mu;
  std::size_t done = rows.size();
  const std::size_t total = mine.size();
  if (o.progress) o.progress(done, total, "");
  // Each job measures configurations one after another; with several jobs the
  // rank code inside runs single-threaded to avoid oversubscription.
  const unsigned jobs = std::max(1u, o.jobs);
  const unsigned saved_threads = thread_count();
  if (jobs > 1) set_thread_count(1);
  std::atomic<std::size_t> next{0};
  std::exception_ptr err;
  auto work = [&]() {
    for (std::size_t i; (i = next++) < todo.size();) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (err) return;  // another job failed: stop taking work
      }
      TableRow r;
      try {
        r = measure_row(todo[i], s);
      } catch (const InputError&) {
        std::lock_guard<std::mutex> lock(mu);
        if (!err) err = std::current_exception();
        return;
      } catch (const InternalError&) {  // a bug (an inconsistent measurement): not a row
        std::lock_guard<std::mutex> lock(mu);
        if (!err) err = std::current_exception();
        return;
      } catch (const Error& e) {
        r = TableRow();
        r.config = todo[i];
        r.version = netpoly_build();
        r.status = BracketStatus::error;
        r.lower.method = e.what();
        r.options = s.row_options();
        r.sweep = s.sweep_json();
        judge_row(r);  // its parameter count and bounds (an error row has nothing to contradict)
      }
      std::lock_guard<std::mutex> lock(mu);
      rows.push_back(r);
      if (to_file) {
        try {
          jf->append(r.to_json().dump());
          if (rerender) write_file_atomic(o.out, render_table(rows, o.format, title, o.view));
        } catch (...) {
          if (!err) err = std::current_exception();
          return;
        }
      }
      ++done;
      if (o.progress) o.progress(done, total, todo[i].key());
    }
  };
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < jobs; ++k)
    pool.emplace_back([&work]() {
      work();
      flint_cleanup();  // FLINT's per-thread caches (parallel.cpp)
    });
  work();
  for (auto& t : pool) t.join();
  if (jobs > 1) set_thread_count(saved_threads);
  if (err) std::rethrow_exception(err);
  if (to_file && !rerender) write_output(o.out, render_table(rows, o.format, title, o.view));
  if (!o.plot.empty()) write_plot(o.plot, rows, title, o.view);
  std::sort(rows.begin(), rows.end(), [](const TableRow& a, const TableRow& b) { return a.config.index < b.config.index; });
  return rows;
}

}  // namespace netpoly
