// Numbers in messages: a count or a number of seconds to three significant
// figures ("%.3g"), the one format every estimate, limit and probability of
// a message uses.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace netpoly {

std::string fmt_g(double x);  // "%.3g": 0.000123, 1.5, 1.23e+06

// A list of whole numbers as a sweep's flags write it: "1..3", "2,4",
// "1..3,8" (each at most 9 digits, a range at most 10,001 long); InputError
// naming `option` otherwise.
std::vector<std::uint64_t> parse_list(const std::string& s, const std::string& option);

}  // namespace netpoly
