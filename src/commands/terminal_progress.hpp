// Progress of a long command on a terminal (stderr): one line rewritten in
// place, cleared before a result is printed; nothing when stderr is not a
// terminal. The one progress printer of `seprank` and `expand` (the lines
// come from the analysis: AnalysisContext::progress, e.g. expansion_watch's
// "expanding y0_0: 12 s of about 40 s estimated, 1.2 GiB resident").
// A line older than kHeartbeat seconds (one long FLINT product, a large rank,
// a black-box round) is rewritten with the seconds since it was shown, so the
// terminal never stays silent for long (issue 30: no default run a minute
// without a progress line).
#pragma once
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
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
  // Routes run.progress to the terminal (no-op off a terminal).
  void attach(AnalysisContext& run) {
    if (!isatty(STDERR_FILENO)) return;
    run.progress = [this](const std::string& line) {
      std::lock_guard<Mutex> lock(mu);
      show(line);
    };
    heartbeat_ = std::thread([this] { beat(); });
  }
  // Under mu.
  void show(const std::string& line) {
    if (!isatty(STDERR_FILENO)) return;
    last = line;
    since = std::chrono::steady_clock::now();
    write(line);
  }
  void clear() {  // under mu
    if (shown) std::cerr << "\r\033[K" << std::flush;
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
      if (now - written_ < std::chrono::seconds(kHeartbeat)) continue;
      const auto s = std::chrono::duration_cast<std::chrono::seconds>(now - since).count();
      const std::string more = " (still running, " + std::to_string(s) + " s)";
      const std::size_t w = columns();
      write(clip(last, w > more.size() + 20 ? w - more.size() : 20) + more);
    }
  }
  std::chrono::steady_clock::time_point written_{};
  std::thread heartbeat_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
};

}  // namespace netpoly::cli
