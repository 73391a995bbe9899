// A table's journal read back for --resume (internal; table.cpp).
#pragma once
#include <vector>

#include "netpoly/table.hpp"
#include "runtime/io.hpp"

namespace netpoly {

// The rows of a journal that --resume keeps: those of `mine` (this shard's
// configurations), each read strictly and judged like a fresh row (an edited
// journal is not trusted), measured with s's options and by this build (one
// table, one build); an InputError otherwise, the journal left as it was.
std::vector<TableRow> resumed_rows(const Journal& jf, const SweepSpec& s, const std::vector<SweepConfig>& mine);

}  // namespace netpoly
