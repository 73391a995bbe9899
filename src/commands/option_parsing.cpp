#include <flint/flint.h>

#include <cmath>
#include <thread>

#include "commands/commands.hpp"
#include "netpoly/error.hpp"
#include "netpoly/options.hpp"
#include "netpoly/parallel.hpp"

namespace netpoly::cli {

Entry parse_entry(const std::string& s, const std::string& option) {
  auto comma = s.find(',');
  auto bad = [&]() { return InputError(option + " \"" + s + "\": expected TOKEN,CHANNEL (e.g. 0,1)"); };
  if (comma == std::string::npos) throw bad();
  Entry e;
  try {
    std::size_t p1 = 0, p2 = 0;
    std::string a = s.substr(0, comma), b = s.substr(comma + 1);
    // Digits only: stoul alone would also take " 1", "+1" and "-1" (as 2^64 - 1).
    const char* digits = "0123456789";
    if (a.empty() || b.empty() || a.find_first_not_of(digits) != std::string::npos ||
        b.find_first_not_of(digits) != std::string::npos)
      throw bad();
    e.token = std::stoul(a, &p1);
    e.channel = std::stoul(b, &p2);
    if (p1 != a.size() || p2 != b.size()) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  return e;
}

std::uint64_t parse_u64(const std::string& s, const std::string& flag, std::uint64_t lo, std::uint64_t hi) {
  auto range = [&] { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]"; };
  if (s.empty() || s.size() > 40 || s.find_first_not_of("0123456789") != std::string::npos)
    throw InputError(flag + " \"" + clip(s, 40) + "\": expected a whole number in " + range());
  std::uint64_t v = 0;
  for (char c : s) {
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) throw InputError(flag + " " + s + ": out of range " + range());
    v = v * 10 + d;
  }
  if (v < lo || v > hi) throw InputError(flag + " " + s + ": out of range " + range());
  return v;
}

void set_threads(unsigned n) {
  if (n > 256) throw InputError("--threads: at most 256");
  set_thread_count(n);
}

}  // namespace netpoly::cli
