#include "netpoly/version.hpp"

#include <flint/flint.h>

#include <regex>

#include "netpoly_build_id.hpp"  // generated at every build (cmake/build_id.cmake)

namespace netpoly {

const std::string& netpoly_build() {
  static const std::string s = [] {
    const std::string git = NETPOLY_GIT_COMMIT;
    return std::string(NETPOLY_VERSION) + " (" + (git.empty() ? "" : "git " + git + ", ") + "FLINT " + FLINT_VERSION + ")";
  }();
  return s;
}

std::string citation_bibtex() {
  return std::string("@software{netpoly,\n") +
         "  title   = {netpoly: exact network polynomials and their separation ranks},\n"
         "  author  = {{The netpoly authors}},\n"
         "  year    = {2026},\n"
         "  version = {" NETPOLY_VERSION "},\n"
         "  license = {MIT},\n"
         "  note    = {netpoly " + netpoly_build() + "}\n"
         "}\n";
}

bool is_build_string(const std::string& s) {
  static const std::regex form(R"([0-9][0-9A-Za-z.+~-]{0,31} \((git [0-9a-f]{4,40}(-dirty)?, )?FLINT [0-9][0-9A-Za-z.+~-]{0,31}\))");
  return s.size() <= 160 && std::regex_match(s, form);
}

}  // namespace netpoly
