#include "netpoly/version.hpp"

#include <flint/flint.h>

#include "netpoly_build_id.hpp"  // generated at every build (cmake/build_id.cmake)

namespace netpoly {

const std::string& netpoly_build() {
  static const std::string s = [] {
    const std::string git = NETPOLY_GIT_COMMIT;
    return std::string(NETPOLY_VERSION) + " (" + (git.empty() ? "" : "git " + git + ", ") + "FLINT " + FLINT_VERSION + ")";
  }();
  return s;
}

}  // namespace netpoly
