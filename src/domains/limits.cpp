#include "netpoly/limits.hpp"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "netpoly/error.hpp"

namespace netpoly {

namespace {

Limits g_limits;
std::mutex g_mu;
std::string g_what, g_hint;
std::chrono::steady_clock::time_point g_start = std::chrono::steady_clock::now();
std::atomic<unsigned> g_generation{0};

std::string human(double bytes) {
  char b[32];
  if (bytes >= 1024.0 * 1024 * 1024) std::snprintf(b, sizeof b, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  else std::snprintf(b, sizeof b, "%.1f MiB", bytes / (1024.0 * 1024));
  return b;
}

[[noreturn]] void stop(const std::string& msg) {
  std::string text;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    text = "\nnetpoly: " + g_what + ": " + msg + (g_hint.empty() ? "" : "; " + g_hint) + "\n";
  }
  std::fflush(stdout);
  ssize_t n = write(STDERR_FILENO, text.data(), text.size());
  (void)n;
  _exit(static_cast<int>(ExitCode::limit));
}

}  // namespace

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

double resident_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  long pages = 0, rss = 0;
  int n = std::fscanf(f, "%ld %ld", &pages, &rss);
  std::fclose(f);
  return n == 2 ? static_cast<double>(rss) * static_cast<double>(sysconf(_SC_PAGESIZE)) : 0;
}

void set_stop_hint(const std::string& hint) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_hint = hint;
}

const Limits& current_limits() { return g_limits; }

double budget_left() {
  if (g_limits.budget_seconds <= 0) return HUGE_VAL;
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count();
  return g_limits.budget_seconds - el;
}

void check_memory_estimate(double bytes, const std::string& what) {
  if (g_limits.max_memory_bytes > 0 && bytes > g_limits.max_memory_bytes)
    throw LimitError(what + " is estimated to need " + human(bytes) + ", more than --max-memory " +
                     human(g_limits.max_memory_bytes) + "; raise --max-memory to try anyway");
}

void start_watchdog(const Limits& l, const std::string& what) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_what = what;
  }
  g_limits = l;
  g_start = std::chrono::steady_clock::now();
  const unsigned gen = ++g_generation;
  if (l.max_memory_bytes <= 0 && l.budget_seconds <= 0) return;
  std::thread([l, gen]() {
    while (g_generation == gen) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (l.max_memory_bytes > 0) {
        double rss = resident_bytes();
        if (rss > l.max_memory_bytes)
          stop("memory limit reached: resident set " + human(rss) + " exceeds --max-memory " +
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
