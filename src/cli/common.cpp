#include <flint/flint.h>

#include <thread>

#include "commands.hpp"
#include "netpoly/error.hpp"

namespace netpoly::cli {

Entry parse_entry(const std::string& s, const std::string& option) {
  auto comma = s.find(',');
  auto bad = [&]() { return InputError(option + " \"" + s + "\": expected TOKEN,CHANNEL (e.g. 0,1)"); };
  if (comma == std::string::npos) throw bad();
  Entry e;
  try {
    std::size_t p1 = 0, p2 = 0;
    std::string a = s.substr(0, comma), b = s.substr(comma + 1);
    if (a.empty() || b.empty() || a[0] == '-' || b[0] == '-') throw bad();
    e.token = std::stoul(a, &p1);
    e.channel = std::stoul(b, &p2);
    if (p1 != a.size() || p2 != b.size()) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  return e;
}

void set_threads(unsigned n) {
  if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
  if (n > 256) throw InputError("--threads: at most 256");
  flint_set_num_threads(static_cast<int>(n));
}

}  // namespace netpoly::cli
