// The black-box's rounds as a caller sees them: the straight round to the
// caps, each block's rank reported as it finishes, and what a round that is
// interrupted keeps (blackbox/rounds.cpp, issue 53 §5).
#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "netpoly/error.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/seprank.hpp"

using namespace netpoly;

namespace {

constexpr const char* kStraight = "blackbox: every block to its cap";
constexpr const char* kRound = "blackbox: rank >=";

bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// A mixer (p, d, N = 4) at the half partition with support's certified upper
// bound and the black-box from seed 1 on two threads; what it records: the
// progress lines, and the black-box's certified lower ends so far, each with
// the number of progress lines before it (so a test can tell which came
// after the straight line). `cancel_when` may ask for a Ctrl-C from a lower
// end on.
struct MixerRun {
  Model m;
  Partition P;
  SepOptions o;
  std::vector<std::string> lines;
  std::vector<std::pair<std::size_t, std::size_t>> lower;  // (lines before it, value)
  std::function<bool(const MixerRun&)> cancel_when;
  bool cancel = false;

  MixerRun(std::size_t layers, std::size_t width)
      : m(make_preset(PresetOptions{.shape = {.arch = parse_arch("mixer"), .layers = layers, .width = width, .tokens = 4}})), P(parse_partition("half", m.tokens, m.width)) {
    o.blackbox_seed = 1;
    o.methods = {Method::support, Method::blackbox};
  }
  std::vector<SepResult> run() {
    AnalysisContext ctx;
    ctx.threads = 2;
    ctx.progress = [&](const std::string& s) { lines.push_back(s); };
    ctx.cancelled = [&] { return cancel; };
    auto progress = [&](const SepResult& r, bool finished) {
      if (finished) return;
      for (const auto& x : r.runs)
        if (x.method == Method::blackbox && x.value && x.details.value("unfinished", false) &&
            (lower.empty() || lower.back().second != *x.value)) {
          lower.emplace_back(lines.size(), *x.value);
          if (cancel_when && cancel_when(*this)) cancel = true;
        }
    };
    return analyse_network(m, {Entry{0, 0}}, {P}, o, progress, ctx);
  }
  // The index of the straight line (lines.size() if there is none).
  std::size_t straight() const {
    return static_cast<std::size_t>(std::find_if(lines.begin(), lines.end(), [](const std::string& s) {
                                      return starts(s, kStraight);
                                    }) - lines.begin());
  }
  std::size_t rounds_after(std::size_t from) const {
    std::size_t n = 0;
    for (std::size_t j = from; j < lines.size(); ++j) n += starts(lines[j], kRound);
    return n;
  }
  // The rank of the whole coefficient matrix (the exact method: a second path).
  std::size_t exact() const {
    SepOptions ex = o;
    ex.methods = {Method::exact};
    const auto full = analyse_network(m, {Entry{0, 0}}, {P}, ex, {}, AnalysisContext{});
    REQUIRE(full.at(0).lower.value);
    return *full[0].lower.value;
  }
};

}  // namespace

TEST_CASE("the small prime's phase goes straight to the caps in one round when the probe leaves every block full rank",
          "[seprank][blackbox]") {
  // Mixer (3,4,4), half: support's bound 660 equals the exact rank of the
  // coefficient matrix (the exact method, a second path). After the probe
  // (256 points, every block still full rank) the black-box takes one round
  // to every block's cap; its ranks sum to the exact rank.
  MixerRun x(3, 4);
  const auto r = x.run();
  REQUIRE(r.at(0).lower.value);
  CHECK(*r[0].lower.value == x.exact());
  CHECK(r[0].status == BracketStatus::exact);
  // The straight line, then exactly one round's line.
  REQUIRE(x.straight() < x.lines.size());
  CHECK(x.rounds_after(x.straight()) == 1);
  // Each block's rank is reported as it finishes: the certified lower end
  // takes more values than there are rounds, rising, each at most the exact
  // rank (a Ctrl-C in a round keeps the blocks that finished).
  CHECK(x.lower.size() > x.rounds_after(0));
  for (const auto& [at, v] : x.lower) CHECK(v <= 660);
  CHECK(std::is_sorted(x.lower.begin(), x.lower.end()));
}

TEST_CASE("a straight round reports its blocks one by one, and a Ctrl-C in it keeps the ones that finished",
          "[seprank][blackbox]") {
  // Mixer (3,7,4), half: nine A-degree components with caps 1, 14, 105,
  // 560, 2,380, 560, 105, 14, 1 (--plan), support's certified upper bound
  // 3,740 (their sum). After the probe the straight round ranks its blocks (or
  // their classes) in stages, smallest first, with a checkpoint at half the
  // points of a block of >= 2,048: so the lower end rises at least twice
  // inside that round before its last value, and meets support's bound (a
  // second method) at the end.
  MixerRun whole(3, 7);
  const auto r = whole.run();
  REQUIRE(r.at(0).lower.value);
  REQUIRE(r.at(0).upper.value);
  CHECK(*r[0].lower.value == 3740);
  CHECK(*r[0].upper.value == 3740);
  const std::size_t s = whole.straight();
  REQUIRE(s < whole.lines.size());
  REQUIRE(whole.rounds_after(s) == 1);
  std::vector<std::size_t> inside;  // lower ends told after the straight line
  for (const auto& [at, v] : whole.lower)
    if (at > s) inside.push_back(v);
  CHECK(inside.size() >= 3);
  CHECK(std::is_sorted(inside.begin(), inside.end()));
  for (std::size_t v : inside) CHECK(v <= 3740);

  // The same run, cancelled at the first lower end told inside the straight
  // round: Interrupted, with no round line after the straight one (the round
  // was cut), and the bound kept is that lower end, above what the probe had.
  MixerRun cut(3, 7);
  std::size_t before = 0;
  cut.cancel_when = [&](const MixerRun& x) {
    const std::size_t st = x.straight();
    if (st == x.lines.size()) return false;
    for (const auto& [at, v] : x.lower)
      if (at <= st) before = v;
    return x.lower.back().first > st;
  };
  CHECK_THROWS_AS(cut.run(), Interrupted);
  REQUIRE(cut.cancel);
  REQUIRE(cut.straight() < cut.lines.size());
  CHECK(cut.rounds_after(cut.straight()) == 0);
  CHECK(cut.lower.back().second > before);
  CHECK(cut.lower.back().second < 3740);
}
