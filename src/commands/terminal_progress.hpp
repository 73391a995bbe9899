// Progress of a long command on a terminal (stderr): one line rewritten in
// place, cleared before a result is printed; nothing when stderr is not a
// terminal. The one progress printer of `seprank` and `expand` (the lines
// come from the analysis: AnalysisContext::progress, e.g. expansion_watch's
// "expanding y0_0: 12 s of about 40 s estimated, 1.2 GiB resident").
#pragma once
#include <unistd.h>

#include <iostream>
#include <mutex>
#include <string>

#include "netpoly/context.hpp"

namespace netpoly::cli {

template <class Mutex>
struct TerminalProgress {
  Mutex& mu;  // the output's lock: a progress line never cuts a result
  bool shown = false;
  // Routes run.progress to the terminal (no-op off a terminal).
  void attach(AnalysisContext& run) {
    if (!isatty(STDERR_FILENO)) return;
    run.progress = [this](const std::string& line) {
      std::lock_guard<Mutex> lock(mu);
      show(line);
    };
  }
  // Under mu.
  void show(const std::string& line) {
    if (!isatty(STDERR_FILENO)) return;
    std::cerr << "\r" << line.substr(0, 100) << "\033[K" << std::flush;
    shown = true;
  }
  void clear() {  // under mu
    if (shown) std::cerr << "\r\033[K" << std::flush;
    shown = false;
  }
};

}  // namespace netpoly::cli
