// netpoly: the command-line front end. main only wires the subcommands and
// maps exceptions to exit codes (the one error boundary).
#include <flint/flint.h>

#include <algorithm>
#include <iostream>
#include <malloc.h>

#include "setup.hpp"
#include "netpoly/error.hpp"
#include "runtime/io.hpp"
#include "runtime/limits.hpp"
#include "runtime/suggest.hpp"
#include "runtime/text_escape.hpp"
#include "netpoly/version.hpp"

namespace {

// "--budgte": the flags of the deepest command given that are near it.
std::string flag_hint(const CLI::App& app, int argc, char** argv) {
  const CLI::App* cmd = &app;
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const CLI::App* s : cmd->get_subcommands()) {
      cmd = s;
      deeper = true;
      break;
    }
  }
  std::vector<std::string> names;
  for (const CLI::Option* op : cmd->get_options())
    for (const auto& n : op->get_lnames()) names.push_back("--" + n);
  for (int k = 1; k < argc; ++k) {
    std::string a = argv[k];
    if (a.rfind("--", 0) != 0) continue;
    a = a.substr(0, a.find('='));
    if (std::find(names.begin(), names.end(), a) != names.end()) continue;
    const auto near = netpoly::near_names(a, names);
    if (!near.empty()) return netpoly::printable(a) + ": did you mean " + netpoly::or_list(near) + "?";
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // Blocks below 32 MiB come from the heap and are reused, instead of being
  // mapped and unmapped for each product (page faults each time and, with
  // two threads, TLB shootdowns); freed memory is returned beyond 64 MiB at
  // the top. The measurements are in bench/studies/optimisation-log.md ("mallopt").
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_TOP_PAD, 16 << 20);
#endif
  CLI::App app{"netpoly: exact network polynomials and their separation ranks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "netpoly " + netpoly::netpoly_build());
  app.add_flag_callback(
      "--cite",
      [] {
        std::cout << netpoly::citation_bibtex();
        throw CLI::Success();
      },
      "print the BibTeX entry that cites this build (CITATION.cff) and exit");
  netpoly::cli::setup_make(app);
  netpoly::cli::setup_expand(app);
  netpoly::cli::setup_eval(app);
  netpoly::cli::setup_jacobian(app);
  netpoly::cli::setup_seprank(app);
  netpoly::cli::setup_bounds(app);
  netpoly::cli::setup_check(app);
  netpoly::cli::setup_table(app);
  int code = 0;
  try {
    // Every command runs under the default memory limit unless it sets its own.
    netpoly::start_watchdog({}, argc > 1 ? argv[1] : "netpoly");
    app.parse(argc, argv);
    netpoly::check_stdout();
  } catch (const CLI::CallForHelp& e) {
    code = app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    code = app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    code = app.exit(e);
  } catch (const CLI::Success&) {  // --cite printed its entry
    code = 0;
  } catch (const CLI::ParseError& e) {
    // CLI11's message quotes the command line: shown escaped (an argument with a CR or LF starts no line).
    std::cerr << netpoly::printable(e.what()) << "\n";
    if (const std::string hint = flag_hint(app, argc, argv); !hint.empty()) std::cerr << hint << "\n";
    std::cerr << "Run with --help for more information.\n";
    code = static_cast<int>(netpoly::ExitCode::input);
  } catch (const netpoly::Error& e) {
    std::cout.flush();
    std::cerr << "netpoly: " << (e.code() == netpoly::ExitCode::internal ? "" : "error: ") << netpoly::printable(e.what()) << "\n";
    code = static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    std::cout.flush();
    std::cerr << "netpoly: error: out of memory; lower the problem size or raise the limits\n";
    code = static_cast<int>(netpoly::ExitCode::limit);
  } catch (const std::exception& e) {
    // Not expected: report it as an internal error rather than aborting.
    std::cout.flush();
    std::cerr << "netpoly: internal error: " << netpoly::printable(e.what()) << "\n";
    code = static_cast<int>(netpoly::ExitCode::internal);
  }
  netpoly::finish_process();
  flint_cleanup_master();
  return code;
}
