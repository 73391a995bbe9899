// Progress of a long command on a terminal (stderr): one line rewritten in
// place, cleared before a result is printed; nothing when stderr is not a
// terminal. The one progress printer of `seprank` and `expand` (the lines
// come from the analysis: AnalysisContext::progress, e.g. expansion_watch's
// "expanding y0_0: 12 s of about 40 s estimated, 1.2 GiB resident").
// A line older than kHeartbeat seconds (one long FLINT product, a large rank,
// a black-box round) is rewritten with the seconds since it was shown, so the
// terminal never stays silent for long (issue 30: no default run a minute
// without a progress line).
//
// Without a terminal (a batch job, Slurm, nohup: a log file) the same lines
// go to stderr as whole lines, "netpoly: [61 s] <line>", one at most every
// kLogEvery seconds: the latest line when one came since the last, else the
// last one again with how long it has been running. A log thus gets a line
// at least once a minute and never a flood.
#pragma once
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

#include "netpoly/context.hpp"
#include "netpoly/error.hpp"
#include "runtime/text_escape.hpp"

namespace netpoly::cli {

template <class Mutex>
struct TerminalProgress {
  static constexpr int kHeartbeat = 10;  // seconds
  static constexpr int kLogEvery = 60;   // seconds, without a terminal (NETPOLY_LOG_SECONDS: 1..3600, for tests)
  Mutex& mu;  // the output's lock: a progress line never cuts a result
  bool shown = false;
  std::string last;  // the line shown (under mu)
  std::chrono::steady_clock::time_point since{};

  explicit TerminalProgress(Mutex& m) : mu(m) {}
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;
  ~TerminalProgress() {
    if (!heartbeat_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(stop_mu_);
      stop_ = true;
    }
    stop_cv_.notify_all();
    heartbeat_.join();
  }
  // Routes run.progress to the terminal, or as whole lines to a log.
  void attach(AnalysisContext& run) {
    log_ = !isatty(STDERR_FILENO);
    start_ = written_ = std::chrono::steady_clock::now();
    if (const char* e = std::getenv("NETPOLY_LOG_SECONDS")) {
      const long v = std::strtol(e, nullptr, 10);
      if (v >= 1 && v <= 3600) log_every_ = static_cast<int>(v);
    }
    run.progress = [this](const std::string& line) {
      std::lock_guard<Mutex> lock(mu);
      show(line);
    };
    heartbeat_ = std::thread([this] { beat(); });
  }
  // Under mu.
  void show(const std::string& line) {
    last = line;
    since = std::chrono::steady_clock::now();
    if (log_) {
      fresh_ = true;
      shown = true;
      return;  // the heartbeat writes it, at most once every kLogEvery seconds
    }
    write(line);
  }
  void clear() {  // under mu
    if (shown && !log_) std::cerr << "\r\033[K" << std::flush;
    shown = false;
  }

 private:
  // The terminal's width less one (a longer line would wrap, and "\r" would
  // not return to its start); 100 when unknown.
  static std::size_t columns() {
    winsize w{};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20) return w.ws_col - 1u;
    return 100;
  }
  void write(const std::string& line) {
    std::cerr << "\r" << clip(printable(line), columns()) << "\033[K" << std::flush;  // a model's name, a file's
    shown = true;
    written_ = std::chrono::steady_clock::now();
  }
  void beat() {
    std::unique_lock<std::mutex> sl(stop_mu_);
    while (!stop_cv_.wait_for(sl, std::chrono::seconds(1), [this] { return stop_; })) {
      std::unique_lock<Mutex> lock(mu, std::try_to_lock);
      if (!lock.owns_lock() || !shown) continue;
      const auto now = std::chrono::steady_clock::now();
      if (log_) {
        if (now - written_ < std::chrono::seconds(log_every_)) continue;
        const auto t = std::chrono::duration_cast<std::chrono::seconds>(now - start_).count();
        const auto s = std::chrono::duration_cast<std::chrono::seconds>(now - since).count();
        std::cerr << "netpoly: [" << t << " s] " << clip(printable(last), 400)
                  << (fresh_ ? "" : " (still running, " + std::to_string(s) + " s)") << "\n" << std::flush;
        fresh_ = false;
        written_ = now;
        continue;
      }
      if (now - written_ < std::chrono::seconds(kHeartbeat)) continue;
      const auto s = std::chrono::duration_cast<std::chrono::seconds>(now - since).count();
      const std::string more = " (still running, " + std::to_string(s) + " s)";
      const std::size_t w = columns();
      write(clip(last, w > more.size() + 20 ? w - more.size() : 20) + more);
    }
  }
  std::chrono::steady_clock::time_point written_{}, start_{};
  bool log_ = false;    // stderr is not a terminal: whole lines, log_every_ seconds apart
  int log_every_ = kLogEvery;
  bool fresh_ = false;  // a line came since the last one written (log)
  std::thread heartbeat_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
};

}  // namespace netpoly::cli
