// blackbox: the adapter of the black-box (analysis/blackbox/): its
// descriptor and registration.
#include "analysis/blackbox/blackbox.hpp"

namespace netpoly::methods {
namespace {

const MethodInfo blackbox_info{
    .id = Method::blackbox,
    .order = 3,
    .kind = RunKind::lower,
    .summary = "rank mod a random prime of [y(a_i, b_j)] at random points, no expansion; "
               "equal to sep with probability >= 1 - eps",
    .plan = {.expandable = 4, .unexpandable = 1, .polynomial = -1, .generic = 1},
    .run = run_blackbox,
};
const RegisterMethod blackbox_registered(blackbox_info);

}  // namespace
}  // namespace netpoly::methods
