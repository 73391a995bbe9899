// A failed claim's files (claims.hpp): the counterexample's networks,
// polynomials and summary under --counterexamples DIR, and a failed `for
// every weight` check's drawn network (always written).
//
// No file is replaced: each name is created exclusively, and when it is
// taken (by an earlier run, or by a claim file of the same name in another
// folder in this run) the next of NAME-2, NAME-3, ... is used; the name
// written is the one reported. A file that cannot be written leaves the
// verdict as it is, with a note naming the path and the reason.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "claims/eval/claim_eval.hpp"
#include "claims/report/claim_report.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/model.hpp"

namespace netpoly::claims_detail {

namespace fs = std::filesystem;

namespace {

struct WriteFailed {
  std::string what;  // "PATH: reason"
};

std::string file_stem(const std::string& path) { return fs::path(path).stem().string(); }

void create_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw WriteFailed{dir.string() + ": " + ec.message()};
}

// Writes `text` to the open descriptor `fd` (of `p`) and closes it.
void write_all(int fd, const fs::path& p, const std::string& text) {
  std::size_t at = 0;
  while (at < text.size()) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw WriteFailed{p.string() + ": " + why};
    }
    at += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) throw WriteFailed{p.string() + ": " + std::strerror(errno)};
}

// Creates a new file dir/STEM[-k]EXT (the first k = 1, 2, ... whose name is
// free; k = 1 has no suffix) holding `text`; its path.
fs::path write_new(const fs::path& dir, const std::string& stem, const std::string& ext, const std::string& text) {
  for (unsigned k = 1; k <= 10000; ++k) {
    std::string name = stem;
    if (k > 1) name.append("-").append(std::to_string(k));
    const fs::path p = dir / name.append(ext);
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) throw WriteFailed{p.string() + ": " + std::strerror(errno)};
    write_all(fd, p, text);
    return p;
  }
  throw WriteFailed{(dir / (stem + ext)).string() + ": 10,000 files of this name exist already"};
}

// Replaces the contents of a file this run created (write_new).
void rewrite_own(const fs::path& p, const std::string& text) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) throw WriteFailed{p.string() + ": " + std::strerror(errno)};
  write_all(fd, p, text);
}

}  // namespace

void write_weight_counterexamples(const Claim& c, const CheckOptions& o, InstanceReport& r) {
  for (auto& ch : r.checks) {
    if (!ch.counterexample) continue;
    // Only a directory the user named is named by its flag.
    const bool given = !o.counterexamples_dir.empty();
    const fs::path dir(given ? o.counterexamples_dir : o.weight_counterexamples_default);
    try {
      create_dir(dir);
      const fs::path p = write_new(dir, file_stem(c.loc.file) + "-line" + std::to_string(ch.loc.line) + "-weights",
                                   ".json", write_model(*ch.counterexample));
      ch.counterexample_file = p.string();
      ch.note += "; written: " + p.string() +
                 (ch.recheck.empty() ? " (the drawn network at which it fails)"
                                     : " (re-check: netpoly seprank " + p.string() + " " + ch.recheck + ")");
      r.files.push_back(p.string());
    } catch (const WriteFailed& e) {
      ch.note += "; its model could not be written (" + std::string(given ? "--counterexamples " : "") + e.what + ")";
    }
  }
}

std::string write_counterexample_files(const Claim& c, const CheckOptions& o, const Env& env, InstanceReport& r) {
  const fs::path dir(o.counterexamples_dir);
  fs::path summary;
  try {
    create_dir(dir);
    // The summary's name first: the instance's files share its prefix.
    summary = write_new(dir, file_stem(c.loc.file) + "-line" + std::to_string(c.loc.line), ".txt", "");
    const std::string prefix = summary.stem().string();
    for (const auto& [name, val] : env) {
      if (val.kind == Value::Kind::net || val.kind == Value::Kind::output) {
        Model m = val.net->model;
        if (val.kind == Value::Kind::output) m.output = val.entry;
        r.files.push_back(write_new(dir, prefix + "-" + name, ".json", write_model(m)).string());
      } else if (val.kind == Value::Kind::poly) {
        const auto& pv = *val.poly;
        std::string t = "# " + name + " = " + (val.desc.empty() ? "a polynomial" : val.desc) + "\n# variables:";
        for (slong v = 0; v < pv.p.ctx()->nvars(); ++v)
          t += " " + (pv.flat ? "x" + std::to_string(v) : var_name(pv.width, v));
        t += "\n" + (pv.im ? gauss_poly_text(pv, 0) : poly_text(pv.p, pv.width, pv.flat, 0)) + "\n";
        r.files.push_back(write_new(dir, prefix + "-" + name, ".poly", t).string());
      }
    }
    rewrite_own(summary, "claim \"" + c.title + "\" (" + c.loc.str() + ")\n" + format_instance(r, ""));
    r.files.push_back(summary.string());
  } catch (const WriteFailed& e) {
    std::error_code ec;
    if (!summary.empty()) fs::remove(summary, ec);  // not left empty
    return "--counterexamples: could not write " + e.what;
  }
  return "";
}

}  // namespace netpoly::claims_detail
