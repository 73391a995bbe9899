// netpoly seprank MODEL: bracket sep(y; A, B) for output entries and partitions.
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>

#include <unistd.h>

#include "netpoly/commands.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/io.hpp"
#include "netpoly/limits.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::cli {

namespace {


std::vector<std::vector<Fmpq>> read_templates(const std::string& path, std::size_t width) {
  const std::string text = read_text_file(path, "the templates file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": invalid JSON: " + e.what());
  }
  if (!j.is_object() || !j.contains("templates") || !j["templates"].is_array() || j["templates"].empty())
    throw InputError(path + ": expected {\"templates\": [[...], ...]} with at least one template");
  std::vector<std::vector<Fmpq>> T;
  for (std::size_t k = 0; k < j["templates"].size(); ++k) {
    const auto& t = j["templates"][k];
    std::string where = path + ": templates[" + std::to_string(k) + "]";
    if (!t.is_array() || t.size() != width)
      throw InputError(where + ": expected a list of " + std::to_string(width) + " numbers (the model width)");
    std::vector<Fmpq> v;
    for (std::size_t c = 0; c < t.size(); ++c) {
      Fmpq q;
      bool ok = false;
      if (t[c].is_number_integer()) {
        q = Fmpq(static_cast<slong>(t[c].get<std::int64_t>()));
        ok = true;
      } else if (t[c].is_string()) {
        ok = parse_rational(t[c].get<std::string>(), q);
      }
      if (!ok) throw InputError(where + "[" + std::to_string(c) + "]: expected an integer or \"p/q\" (no floats)");
      v.push_back(q);
    }
    T.push_back(std::move(v));
  }
  return T;
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

void print_header(std::ostream& os, const Model& m, std::size_t label_width) {
  os << "netpoly seprank: " << (m.name.empty() ? "model" : m.name) << " (N=" << m.tokens << ", d=" << m.width
     << ", " << m.layers.size() << (m.layers.size() == 1 ? " layer)\n" : " layers)\n");
  os << std::left << std::setw(8) << "output" << std::setw(static_cast<int>(label_width)) << "partition"
     << std::setw(14) << "sep" << std::setw(16) << "lower" << std::setw(16) << "upper" << "status\n";
}

// One (output, partition) result and its method lines.
void print_result(std::ostream& os, const SepResult& r, std::size_t label_width) {
  std::string out = "y" + std::to_string(r.output.token) + "_" + std::to_string(r.output.channel);
  const std::string sep = r.compact_text();
  const std::string label = r.partition.label();
  // A partition label longer than its column gets a line of its own.
  if (label.size() >= label_width) {
    os << std::left << std::setw(8) << out << label << "\n";
    out.clear();
  }
  os << std::left << std::setw(8) << out << std::setw(static_cast<int>(label_width))
     << (label.size() >= label_width ? std::string() : label) << std::setw(14) << sep
     << std::setw(16) << end_text(r.lower) << std::setw(16) << end_text(r.upper) << status_name(r.status);
  if (r.status == BracketStatus::probabilistic)
    os << " (sep = " << *r.lower.value << " with probability >= 1 - " << r.failure_probability << ")";
  os << "\n";
  for (const auto& run : r.runs) {
    os << "    " << std::setw(9) << method_name(run.method);
    if (run.value)
      os << (run.kind == RunKind::upper   ? "<= "
          : run.kind == RunKind::lower ? ">= "
          : run.kind == RunKind::exact ? "=  "
                                       : "~  ")
         << std::setw(7) << *run.value << run.how;
    else
      os << "   " << std::setw(7) << "-";
    if (!run.note.empty()) os << (run.value ? "; " : "") << run.note;
    std::ostringstream t;
    t << std::fixed << std::setprecision(3) << run.seconds;
    os << " [" << t.str() << " s]";
    // What the run worked on, from its details' common keys.
    if (method_info(run.method).needs_expansion && r.sizes.contains("coefficient_matrix"))
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

// Progress lines of long methods on a terminal (stderr), one line rewritten
// in place and cleared before a result is printed; nothing when stderr is not
// a terminal.
struct TerminalProgress {
  std::mutex& mu;  // the output's lock
  bool shown = false;
  void attach(AnalysisContext& run) {
    if (!isatty(STDERR_FILENO)) return;
    run.progress = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu);
      std::cerr << "\r" << line.substr(0, 100) << "\033[K" << std::flush;
      shown = true;
    };
  }
  void clear() {  // under mu
    if (shown) std::cerr << "\r\033[K" << std::flush;
    shown = false;
  }
};

// With neither --budget nor --max-points the bracket is refined while it is
// open: the black-box doubles its points (never past the best certified upper
// bound) as long as the next round's estimated cost fits
// kDefaultRefineSeconds. That budget only caps estimates; it stops nothing
// that runs (no exit 3, no watchdog).
void refine_by_default(SeprankOptions& o) {
  if (o.max_points.empty()) o.sep.max_points = std::size_t{1} << 20;
  if (!std::isfinite(o.sep.budget)) o.sep.budget = kDefaultRefineSeconds;
}

}  // namespace

void run_seprank(const SeprankOptions& options) {
  SeprankOptions o = options;
  set_threads(o.threads);
  Limits lim;
  if (!o.max_memory.empty()) lim.max_memory_bytes = parse_memory_size(o.max_memory, "--max-memory");
  limit_option(o.sep.max_terms, "--max-terms", false);
  limit_option(o.sep.budget, "--budget", false);
  if (std::isfinite(o.sep.budget)) lim.budget_seconds = o.sep.budget;
  refine_by_default(o);
  start_watchdog(lim, "seprank");
  Model m = read_model(o.model);
  std::optional<Entry> req;
  if (!o.output.empty()) req = parse_entry(o.output, "--output");
  auto outs = resolve_outputs(m, req, o.all);
  std::vector<Partition> parts;
  for (const auto& p : o.partitions) parts.push_back(parse_partition(p, m.tokens, m.width));
  if (o.all_balanced)
    for (auto& p : all_balanced(m.tokens, m.width)) parts.push_back(std::move(p));
  // Each unordered pair {A, B} once (sep(y; A, B) = sep(y; B, A)), in the order given.
  std::vector<Partition> unique;
  for (auto& P : parts) {
    bool seen = false;
    for (const auto& Q : unique) {
      bool same = true, complement = true;
      for (std::size_t v = 0; v < P.in_A.size(); ++v) {
        same = same && (P.in_A[v] != 0) == (Q.in_A[v] != 0);
        complement = complement && (P.in_A[v] != 0) != (Q.in_A[v] != 0);
      }
      seen = seen || same || complement;
    }
    if (!seen) unique.push_back(std::move(P));
  }
  parts = std::move(unique);
  if (parts.empty()) parts.push_back(parse_partition("half", m.tokens, m.width));
  if (!o.methods.empty()) o.sep.methods = parse_methods(o.methods);
  if (!o.templates_file.empty()) o.sep.template_vectors = read_templates(o.templates_file, m.width);
  if (!o.seed.empty()) {
    o.sep.seed = parse_u64(o.seed, "--seed");
    o.sep.blackbox_seed = o.sep.seed;
  }
  if (!o.templates.empty()) o.sep.templates = parse_u64(o.templates, "--templates", 1, 1024);
  if (!o.max_points.empty()) o.sep.max_points = parse_u64(o.max_points, "--max-points", 1, 1 << 20);
  if (!o.prime.empty()) {
    o.sep.prime = parse_u64(o.prime, "--prime", 2);
    require_prime_modulus(o.sep.prime, "--prime");
  }
  check_methods_for(m, o.sep.methods, o.sep.prime);
  // Every entry of a wide model by default: refused up front beyond --max-pairs.
  limit_option(o.max_pairs, "--max-pairs", false);
  const double pairs = static_cast<double>(outs.size()) * static_cast<double>(parts.size());
  if (pairs > o.max_pairs)
    throw LimitError(std::to_string(outs.size()) + " output entries x " + std::to_string(parts.size()) +
                     " partitions = " + std::to_string(static_cast<long long>(pairs)) +
                     " (output, partition) pairs to analyse, more than --max-pairs " +
                     std::to_string(static_cast<long long>(o.max_pairs)) +
                     "; name one entry with --output, or raise --max-pairs");
  std::size_t label_width = 22;  // the partition column fits its longest label
  for (const auto& P : parts) label_width = std::max(label_width, std::min<std::size_t>(P.label().size() + 1, 42));

  // Results are printed as they finish (text) and kept for the end (JSON).
  // When the run is stopped early (--budget, --max-memory, SIGINT, SIGTERM)
  // the finished results are printed, with the methods that finished for the
  // pair in flight, before the exit code (3 or 130).
  std::mutex mu;
  std::vector<SepResult> done;
  std::optional<SepResult> partial;
  std::ostream& os = std::cout;
  if (!o.json) {
    print_header(os, m, label_width);
    os.flush();
  }
  set_stop_report([&](int code) {
    std::lock_guard<std::mutex> lock(mu);
    const std::string why = code == static_cast<int>(ExitCode::interrupted) ? "interrupted" : "stopped at a limit";
    if (o.json) {
      auto j = results_json(m, done);
      if (partial) {
        auto pj = to_json(*partial);
        pj["unfinished"] = true;
        j["results"].push_back(pj);
      }
      j[code == static_cast<int>(ExitCode::interrupted) ? "interrupted" : "stopped"] = true;
      os << j.dump(1) << "\n";
    } else {
      if (partial) {
        os << "(" << why << " during this pair: the methods below finished, the one running was dropped)\n";
        print_result(os, *partial, label_width);
      }
      print_footer(os, done, !o.seed.empty());
      os << why << ": " << done.size() << " of " << outs.size() * parts.size()
         << " (output, partition) pairs finished\n";
    }
    os.flush();
  });
  install_interrupt_handler("seprank", "the finished results are printed above");
  AnalysisContext run = AnalysisContext::process();
  TerminalProgress progress{mu};
  progress.attach(run);
  auto rs = analyse_network(m, outs, parts, o.sep, [&](const SepResult& r, bool finished) {
    std::lock_guard<std::mutex> lock(mu);
    if (!finished) {
      partial = r;
      return;
    }
    partial.reset();
    done.push_back(r);
    progress.clear();
    if (!o.json) {
      print_result(os, r, label_width);
      os.flush();
    }
  }, run);
  set_stop_report({});  // (does not return when a stop is already printing the report)
  std::lock_guard<std::mutex> lock(mu);
  if (o.json) {
    os << results_json(m, rs).dump(1) << "\n";
  } else {
    print_footer(os, rs, !o.seed.empty());
  }
}

}  // namespace netpoly::cli
