// netpoly seprank MODEL: bracket sep(y; A, B) for output entries and partitions.
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include <unistd.h>

#include "commands/commands.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "runtime/io.hpp"
#include "runtime/json_check.hpp"
#include "runtime/limits.hpp"
#include "netpoly/options.hpp"
#include "netpoly/request.hpp"
#include "netpoly/seprank.hpp"
#include "runtime/text_escape.hpp"
#include "seprank_shard.hpp"
#include "terminal_progress.hpp"

namespace netpoly::cli {

namespace {


// --templates-file: the templates option's rows, from {"templates": [[...], ...]}
// (checked by the option table; widths by the grid).
nlohmann::json read_templates(const std::string& path) {
  const std::string text = read_text_file(path, "the templates file");
  const nlohmann::json j = JsonCheck(path).parse(text);
  if (!j.is_object() || !j.contains("templates") || !j["templates"].is_array() || j["templates"].empty())
    throw InputError(path + ": expected {\"templates\": [[...], ...]} with at least one template");
  return j["templates"];
}

std::string end_text(const End& e) {
  if (!e.value) return "-";
  return std::to_string(*e.value) + " " + e.method;
}

// The black-box seed of the results (all share one), if a black-box ran.
std::optional<std::uint64_t> blackbox_seed_of(const std::vector<SepResult>& rs) {
  for (const auto& r : rs)
    for (const auto& run : r.runs)
      if (run.details.contains("seed")) return run.details["seed"].get<std::uint64_t>();
  return std::nullopt;
}

// The header says which quantity every line below is about: the sep of this
// network (its weights as given), or the generic sep of its shape.
void print_header(std::ostream& os, const Model& m, std::size_t label_width, bool generic) {
  os << "netpoly seprank: " << (m.name.empty() ? "model" : printable(m.name)) << " (N=" << m.tokens << ", d=" << m.width
     << ", " << m.layers.size() << (m.layers.size() == 1 ? " layer)" : " layers)")
     << (generic ? ": the generic sep of this shape (every weight an indeterminate)\n" : ": sep of this network\n");
  os << std::left << std::setw(8) << "output" << std::setw(static_cast<int>(label_width)) << "partition"
     << std::setw(14) << (generic ? "gsep" : "sep") << std::setw(16) << "lower" << std::setw(16) << "upper"
     << "status\n";
}

// One (output, partition) result and its method lines.
void print_result(std::ostream& os, const SepResult& r, std::size_t label_width) {
  std::string out = r.output.name();
  const std::string sep = r.compact_text();
  const std::string label = r.partition.label();
  // A partition label longer than its column gets a line of its own.
  if (label.size() >= label_width) {
    os << std::left << std::setw(8) << out << label << "\n";
    out.clear();
  }
  // A column's text fills its width, and at least one space always follows
  // (a wide bracket or a large number never runs into the next column).
  auto col = [](const std::string& t, std::size_t w) { return t + std::string(t.size() < w ? w - t.size() : 1, ' '); };
  os << col(out, 8) << col(label.size() >= label_width ? std::string() : label, label_width) << col(sep, 14)
     << col(end_text(r.lower), 16) << col(end_text(r.upper), 16) << status_name(r.status);
  if (r.status == BracketStatus::probabilistic)
    os << (r.generic ? " (gsep = " : " (sep = ") << *r.lower.value << " with probability >= 1 - "
       << r.failure_probability << ")";
  os << "\n";
  for (const auto& run : r.runs) {
    os << "    " << std::setw(9) << method_name(run.method);
    if (run.value)
      os << (run.kind == RunKind::upper   ? "<= "
          : run.kind == RunKind::lower ? ">= "
          : run.kind == RunKind::exact ? "=  "
                                       : "~  ")
         << col(std::to_string(*run.value), 7) << run.how;
    else
      os << "   " << std::setw(7) << "-";
    if (!run.note.empty()) os << (run.value ? "; " : "") << run.note;
    std::ostringstream t;
    t << std::fixed << std::setprecision(3) << run.seconds;
    os << " [" << t.str() << " s]";
    // What the run worked on, from its details' common keys.
    if (method_needs_expansion(run.method) && r.sizes.contains("coefficient_matrix"))
        os << " (" << r.sizes["coefficient_matrix"][0] << " x " << r.sizes["coefficient_matrix"][1]
           << " coefficient matrix)";
    if (run.details.contains("points"))
      os << " (" << run.details["points"] << " x " << run.details["points"] << " points)";
    if (run.details.contains("grid"))
      os << " (" << run.details["grid"][0] << " x " << run.details["grid"][1] << " grid, "
         << run.details["templates"].get<std::string>() << ")";
    if (run.details.contains("threshold"))
      os << " threshold " << run.details["threshold"].get<double>() << ", gap " << run.details["gap"].get<double>();
    os << "\n";
  }
}

void print_footer(std::ostream& os, const std::vector<SepResult>& rs, bool seed_given) {
  if (rs.size() > 1) {
    auto b = [](const Bracket& x) { return x.range_text() + " (" + status_name(x.status) + ")"; };
    os << "sup-sep " << b(sup_of(rs)) << ", inf-sep " << b(inf_of(rs)) << " over " << rs.size()
       << " (output, partition) pairs\n";
  }
  if (auto seed = blackbox_seed_of(rs); seed && !seed_given)
    os << "black-box seed " << *seed << " (drawn at random; --seed " << *seed << " reproduces this run)\n";
}

nlohmann::json results_json(const Model& m, const std::vector<SepResult>& rs) {
  nlohmann::json j;
  j["model"] = m.name;
  j["results"] = nlohmann::json::array();
  for (const auto& r : rs) j["results"].push_back(to_json(r));
  j["sup"] = rs.empty() ? nlohmann::json(nullptr) : sup_of(rs).values_json();
  j["inf"] = rs.empty() ? nlohmann::json(nullptr) : inf_of(rs).values_json();
  return j;
}

// A pair's bracket so far, for the terminal's progress line: the cheap
// certified ends at once.
std::string so_far_line(const SepResult& r) {
  return r.output.name() + " " + r.partition.label() + ": " + r.compact_text() + " so far (" + status_name(r.status) +
         ")";
}

}  // namespace

SepOptions seprank_options(const SeprankOptions& o) {
  // The analysis options through the one table (netpoly/options.hpp), before any work.
  SepOptions sep;
  set_options_from_text(sep, o.options);
  if (!o.templates_file.empty()) {
    if (sep.templates || !sep.template_vectors.empty())
      throw InputError("--templates and --templates-file: give one of them");
    set_option(sep, *find_option("templates"), read_templates(o.templates_file), Spelling::cli);
  }
  return sep;
}

SepRequest seprank_request(const SeprankOptions& o) {
  SepRequest r;
  if (!o.output.empty()) r.outputs.push_back(parse_entry(o.output, "--output"));
  r.all_outputs = o.all;
  r.partitions = o.partitions;
  if (o.all_balanced) r.partitions.push_back("all-balanced");
  if (o.all_balanced_entries) r.partitions.push_back("all-balanced-entries");
  return r;
}

SeprankPairs seprank_pairs(const SeprankOptions& o, const Model& m, const SepOptions& sep) {
  if (!o.out.empty() && !(sep.share_count && !sep.plan))
    throw InputError("-o: the shard of --blocks goes there (or the bracket of --merge)");
  return request_pairs(m, seprank_request(o), sep, Spelling::cli);
}

std::string seprank_flags(const SeprankOptions& o) {
  std::string s = request_flags(seprank_request(o), o.options);
  if (!o.templates_file.empty()) s += (s.empty() ? "" : " ") + std::string("--templates-file ") + o.templates_file;
  return s;
}

void run_seprank(const SeprankOptions& o) {
  if (!o.merge.empty()) return run_seprank_merge(o);
  if (o.model.empty()) throw InputError("seprank: a model file is required (or --merge SHARD...)");
  SepOptions sep = seprank_options(o);
  // --plan prints the blocks; --blocks -o SHARD writes a shard (without -o its data is only in --json's details).
  const bool plan = sep.plan, shard = sep.share_count > 0 && !plan && !o.out.empty();
  set_threads(sep.threads);
  Limits lim;
  if (sep.max_memory > 0) lim.max_memory_bytes = sep.max_memory;
  if (std::isfinite(sep.budget)) lim.budget_seconds = sep.budget;
  start_watchdog(lim, "seprank");
  Model m = read_model(o.model);
  const SeprankPairs pairs = seprank_pairs(o, m, sep);
  const std::vector<Entry>& outs = pairs.outputs;
  const std::vector<Partition>& parts = pairs.partitions;
  const bool results_shown = !plan;
  nlohmann::json last_shard;  // the shard as it stands (--blocks): written after each round and at a stop
  auto write_shard = [&](const nlohmann::json& doc) { write_output(o.out, doc.dump(1) + "\n"); };
  const bool seed_given = sep.blackbox_seed.has_value();
  std::size_t label_width = 22;  // the partition column fits its longest label
  for (const auto& P : parts) label_width = std::max(label_width, std::min<std::size_t>(P.label().size() + 1, 42));

  // Results are printed as they finish (text) and kept for the end (JSON).
  // When the run is stopped early (--budget, --max-memory, SIGINT, SIGTERM)
  // the finished results are printed, with the methods that finished for the
  // pair in flight, before the exit code (3 or 130).
  std::mutex mu;
  TerminalProgress<std::mutex> progress{mu};
  std::vector<SepResult> done;
  // The pairs in flight, with the methods that finished for each (the cheap
  // ones run for every partition of an entry before its expansion).
  std::map<std::string, SepResult> partial;
  auto key = [](const SepResult& r) {
    return std::to_string(r.output.token) + "," + std::to_string(r.output.channel) + " " + r.partition.label();
  };
  std::ostream& os = std::cout;
  if (!o.json && results_shown) {
    print_header(os, m, label_width, sep.generic);
    os.flush();
  }
  auto report = [&](int code) {
    std::lock_guard<std::mutex> lock(mu);
    progress.clear();
    const std::string why = code == static_cast<int>(ExitCode::interrupted) ? "interrupted" : "stopped at a limit";
    if (shard && !last_shard.is_null()) write_shard(last_shard);  // what finished, marked running
    if (!results_shown) {
      std::cerr << "seprank: " << why << "\n";
    } else if (o.json) {
      auto j = results_json(m, done);
      for (const auto& [k, r] : partial) {
        auto pj = to_json(r);
        pj["unfinished"] = true;
        j["results"].push_back(pj);
      }
      j[code == static_cast<int>(ExitCode::interrupted) ? "interrupted" : "stopped"] = true;
      os << j.dump(1) << "\n";
    } else {
      for (const auto& [k, r] : partial) {
        os << "(" << why << " during this pair: the methods below finished, the one running was dropped "
           "unless it shows its bound so far)\n";
        print_result(os, r, label_width);
      }
      print_footer(os, done, seed_given);
      os << why << ": " << done.size() << " of " << outs.size() * parts.size()
         << " (output, partition) pairs finished\n";
    }
    os.flush();
  };
  set_stop_report(report);
  install_interrupt_handler("seprank", "the finished results are printed above");
  AnalysisContext run = AnalysisContext::process();
  progress.attach(run);
  std::vector<SepResult> rs;
  try {
    rs = analyse_network(m, outs, parts, sep, [&](const SepResult& r, bool finished) {
      std::lock_guard<std::mutex> lock(mu);
      if (shard)
        if (auto doc = shard_document(m, r); !doc.is_null()) {
          last_shard = doc;
          if (!finished && output_is_file(o.out)) write_shard(doc);
        }
      if (!finished) {
        partial[key(r)] = r;
        progress.show(so_far_line(r));  // the bracket so far, at once, on a terminal
        return;
      }
      partial.erase(key(r));
      done.push_back(r);
      progress.clear();
      if (!o.json && results_shown) {
        print_result(os, r, label_width);
        os.flush();
      }
    }, run);
  } catch (const LimitError&) {
    // A limit met inside the analysis (an estimate refused by name): what
    // finished is printed, as when the watchdog stops the run.
    set_stop_report({});
    report(static_cast<int>(ExitCode::limit));
    throw;
  }
  set_stop_report({});  // (does not return when a stop is already printing the report)
  std::lock_guard<std::mutex> lock(mu);
  if (plan) {  // the plans (with --json beside the usual results)
    auto doc = plan_document(m, rs);
    if (o.json) doc.update(results_json(m, rs));
    if (o.json) os << doc.dump(1) << "\n";
    else print_plan(os, doc);
    return;
  }
  if (shard) write_shard(shard_document(m, rs.at(0)));
  if (o.json) {
    os << results_json(m, rs).dump(1) << "\n";
  } else {
    print_footer(os, rs, seed_given);
  }
}

}  // namespace netpoly::cli
