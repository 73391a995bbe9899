#include "runtime/limits.hpp"
#include "runtime/text_escape.hpp"

#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <functional>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <algorithm>
#include <mutex>
#include <thread>

#include "netpoly/error.hpp"

namespace netpoly {

namespace {

// The watchdog and the signal watcher are detached threads that may still run
// while the process exits: what they read lives until the very end (never
// destroyed), and finish_process() keeps them from stopping a finished run.
struct Shared {
  std::mutex mu;
  std::string what, hint, interrupt_message;
  std::mutex report_mu;
  std::function<void(int)> report;
};
Shared& shared() {
  static Shared* s = new Shared;  // NOLINT: immortal on purpose
  return *s;
}

Limits g_limits;
std::chrono::steady_clock::time_point g_start = std::chrono::steady_clock::now();
std::atomic<unsigned> g_generation{0};

std::string human(double bytes);

}  // namespace

std::string format_bytes(double bytes) { return human(bytes); }

std::string format_fixed(double x, int digits) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  digits = std::clamp(digits, 0, 17);
  // At most 1 + 15 + 1 + 17 characters in fixed notation, 1 + 19 + 5 in scientific: 64 bytes hold both.
  char b[64];
  std::snprintf(b, sizeof b, std::fabs(x) < 1e15 ? "%.*f" : "%.*e", digits, x);
  return b;
}

void release_memory() { malloc_trim(0); }

namespace {

std::string human(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024) return format_fixed(bytes / (1024.0 * 1024 * 1024), 2) + " GiB";
  if (bytes >= 1024.0 * 1024) return format_fixed(bytes / (1024.0 * 1024), 1) + " MiB";
  if (bytes >= 1024.0) return format_fixed(bytes / 1024.0, 1) + " KiB";
  return format_fixed(bytes, 0) + " bytes";
}

std::atomic<bool> g_stopping{false};

[[noreturn]] void stop(const std::string& msg) {
  std::string text;
  {
    std::lock_guard<std::mutex> lock(shared().mu);
    const Shared& g = shared();
    text = "\nnetpoly: " + printable(g.what + ": " + msg + (g.hint.empty() ? "" : "; " + g.hint)) + "\n";
  }
  stop_process(static_cast<int>(ExitCode::limit), text);
}

int g_signal_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int) {
  const char c = 'i';
  ssize_t n = write(g_signal_pipe[1], &c, 1);
  (void)n;
}

}  // namespace

void set_stop_report(std::function<void(int)> report) {
  const bool clearing = !report;
  {
    std::lock_guard<std::mutex> lock(shared().report_mu);
    shared().report = std::move(report);
  }
  // A stop already under way may be printing the old report, whose objects
  // the caller is about to destroy: wait for its _exit instead.
  if (clearing && g_stopping)
    for (;;) pause();
}

void finish_process() {
  if (g_stopping.exchange(true))
    for (;;) pause();  // a stop is under way: it prints its report and exits
}

void stop_process(int code, const std::string& message) {
  if (g_stopping.exchange(true))
    for (;;) pause();  // another thread is stopping the process
  std::function<void(int)> report;
  {
    std::lock_guard<std::mutex> lock(shared().report_mu);
    report = shared().report;
  }
  if (report) report(code);
  std::fflush(stdout);
  ssize_t n = write(STDERR_FILENO, message.data(), message.size());
  (void)n;
  _exit(code);
}

void install_interrupt_handler(const std::string& what, const std::string& hint) {
  static std::once_flag once;
  {
    std::lock_guard<std::mutex> lock(shared().mu);
    shared().interrupt_message = "\nnetpoly: " + printable(what + ": interrupted" + (hint.empty() ? "" : "; " + hint)) + "\n";
  }
  std::call_once(once, [] {
    if (pipe(g_signal_pipe) != 0) return;
    std::thread([] {
      char c = 0;
      for (;;) {
        const ssize_t n = read(g_signal_pipe[0], &c, 1);
        if (n == 1) break;
        if (n < 0 && errno == EINTR) continue;
        return;
      }
      std::string text;
      {
        std::lock_guard<std::mutex> lock(shared().mu);
        text = shared().interrupt_message;
      }
      stop_process(static_cast<int>(ExitCode::interrupted), text);
    }).detach();
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
  });
}

double parse_memory_size(const std::string& s, const std::string& option) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  std::string unit = end ? std::string(end) : "";
  // strtod also takes " 8", "0x8", "inf" and "nan": only a plain decimal number is a size.
  const std::string number = s.substr(0, s.size() - unit.size());
  if (number.empty() || !(std::isdigit(static_cast<unsigned char>(number[0])) || number[0] == '.') ||
      number.find_first_not_of("0123456789.eE+-") != std::string::npos)
    v = -1;
  double mul = 1;
  if (unit == "" || unit == "B") mul = 1;
  else if (unit == "K" || unit == "KiB") mul = 1024;
  else if (unit == "M" || unit == "MiB") mul = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB") mul = 1024.0 * 1024 * 1024;
  else v = -1;
  if (!(v > 0) || !std::isfinite(v * mul))
    throw InputError(option + " \"" + s + "\": expected a size such as 512M or 8G");
  return v * mul;
}

double default_memory_limit() {
  double total = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  if (FILE* f = std::fopen("/sys/fs/cgroup/memory.max", "r")) {  // cgroup v2; "max" = none
    char b[64] = "";
    if (std::fscanf(f, "%63s", b) == 1 && std::isdigit(static_cast<unsigned char>(b[0])))
      total = std::min(total, std::strtod(b, nullptr));
    std::fclose(f);
  }
  return total > 0 ? total / 2 : 8.0 * 0x1p30;
}

double resident_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  long pages = 0, rss = 0;
  int n = std::fscanf(f, "%ld %ld", &pages, &rss);
  std::fclose(f);
  return n == 2 ? static_cast<double>(rss) * static_cast<double>(sysconf(_SC_PAGESIZE)) : 0;
}

void set_stop_hint(const std::string& hint) {
  std::lock_guard<std::mutex> lock(shared().mu);
  shared().hint = hint;
}

const Limits& current_limits() { return g_limits; }

double budget_left() {
  if (g_limits.budget_seconds <= 0) return HUGE_VAL;
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count();
  return g_limits.budget_seconds - el;
}

void check_memory_estimate(double work_bytes, const std::string& what) {
  check_memory_estimate(work_bytes + resident_bytes(), g_limits.max_memory_bytes, g_limits.memory_default, what);
}

void check_memory_estimate(double bytes, double limit, bool memory_default, const std::string& what) {
  if (limit > 0 && bytes > limit)
    throw LimitError(what + " is estimated to need " + human(bytes) + ", more than " +
                     (memory_default ? "the default memory limit (half the machine's memory) " : "--max-memory ") +
                     human(limit) + "; raise --max-memory to try anyway");
}

void start_watchdog(const Limits& limits, const std::string& what) {
  Limits l = limits;
  const bool default_memory = !(l.max_memory_bytes > 0);
  if (default_memory) l.max_memory_bytes = default_memory_limit();
  l.memory_default = default_memory;
  {
    std::lock_guard<std::mutex> lock(shared().mu);
    shared().what = what;
  }
  g_limits = l;
  g_start = std::chrono::steady_clock::now();
  const unsigned gen = ++g_generation;
  std::thread([l, gen]() {
    while (g_generation == gen) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (l.max_memory_bytes > 0) {
        double rss = resident_bytes();
        if (rss > l.max_memory_bytes)
          stop("memory limit reached: resident set " + human(rss) + " exceeds " +
               (l.memory_default ? "the default memory limit (half the machine's memory) " : "--max-memory ") +
               human(l.max_memory_bytes) + " (raise --max-memory)");
      }
      if (l.budget_seconds > 0 && budget_left() < 0) {
        char b[64];
        std::snprintf(b, sizeof b, "%g", l.budget_seconds);
        stop(std::string("time budget reached: --budget ") + b + " s (raise --budget)");
      }
    }
  }).detach();
}

}  // namespace netpoly
