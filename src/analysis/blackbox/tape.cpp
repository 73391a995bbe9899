// The black-box's compiled forward pass (blackbox/tape.hpp).
#include "analysis/blackbox/tape.hpp"
#include "analysis/blackbox/tape_program.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdlib>

#include "model/forward.hpp"
#include "netpoly/error.hpp"
#include "netpoly/rings.hpp"
#include "domains/batch_rings.hpp"

namespace netpoly::methods {
namespace tape {

// ------------------------------------------------------------- recording

struct Recorder {
  std::vector<RecOp> ops;
  int regs = 0;
  int fresh() { return regs++; }
};

// The recorder of the forward pass being recorded on this thread: a register
// copied by value (a layer's `Y[t] = X[perm[t]]`, `std::vector<E> v(n, zero)`)
// gets its own register and a copy instruction here.
thread_local Recorder* recording = nullptr;

struct Reg {
  int r = -1;
  Reg() = default;
  explicit Reg(int v) : r(v) {}
  Reg(const Reg& o) : r(copy_of(o.r)) {}
  Reg(Reg&& o) noexcept : r(o.r) { o.r = -1; }
  Reg& operator=(const Reg& o) {
    if (this != &o) r = copy_of(o.r);
    return *this;
  }
  Reg& operator=(Reg&& o) noexcept {
    if (this != &o) {
      r = o.r;
      o.r = -1;
    }
    return *this;
  }
  static int copy_of(int x) {
    if (x < 0) return -1;  // a moved-from register copied: stays unset (a use of it is refused)
    if (!recording) throw InternalError("blackbox tape: a register copied outside a recording");
    const int v = recording->fresh();
    recording->ops.push_back({false, v, {x}, {1}, {}, {}, 0});
    return v;
  }
};

// The recording ring: the operations the layers call (rings.hpp's batch
// rings have the same), each appended to the recorder as an instruction.
// Scalars are residues mod p in [0, p) (BatchF64Ring's).
struct TapeRing {
  using Elem = Reg;
  using Scalar = double;
  Recorder* rec;
  bool is_zero(Scalar s) const { return s == 0; }
  Elem fill(double c) const {
    const int v = rec->fresh();
    rec->ops.push_back({false, v, {}, {}, {}, {}, c});
    return Elem(v);
  }
  Elem zero() const { return fill(0); }
  Elem one() const { return fill(1); }
  Elem constant(ulong c) const { return fill(static_cast<double>(c)); }
  static int use(const Elem& x) {
    if (x.r < 0) throw InternalError("blackbox tape: a layer read a moved-from value");
    return x.r;
  }
  void axpy(Elem& r, Scalar s, const Elem& x) const { rec->ops.push_back({true, use(r), {use(x)}, {s}, {}, {}, 0}); }
  void add(Elem& r, const Elem& x) const { axpy(r, 1, x); }
  void addmul(Elem& r, const Elem& a, const Elem& b) const {
    rec->ops.push_back({true, use(r), {}, {}, {use(a)}, {use(b)}, 0});
  }
  Elem mul(const Elem& a, const Elem& b) const {
    const int v = rec->fresh();
    rec->ops.push_back({false, v, {}, {}, {use(a)}, {use(b)}, 0});
    return Elem(v);
  }
  void lincomb(Elem& r, const std::vector<Scalar>& s, const std::vector<const Elem*>& x) const {
    RecOp o{true, use(r), {}, s, {}, {}, 0};
    for (const Elem* e : x) o.a.push_back(use(*e));
    rec->ops.push_back(std::move(o));
  }
  void addmuls(Elem& r, const std::vector<const Elem*>& a, const std::vector<const Elem*>& b) const {
    RecOp o{true, use(r), {}, {}, {}, {}, 0};
    for (std::size_t k = 0; k < a.size(); ++k) {
      o.pa.push_back(use(*a[k]));
      o.pb.push_back(use(*b[k]));
    }
    rec->ops.push_back(std::move(o));
  }
};

// ------------------------------------------------------------- running it

// The centred residue of c in [0, p): in (-p/2, p/2].
double centred(ulong c, ulong p) { return c > p / 2 ? -static_cast<double>(p - c) : static_cast<double>(c); }

// The arithmetic for p (blackbox/tape_ops.hpp): a sum starts below h = 2p in
// magnitude; lazy sums take (2^53 - h) / p^2 products, else (2^53 - h) / p
// remainders in (-p, p).
Arith arith_for(ulong p) {
  const long double P = static_cast<long double>(p), room = 0x1p53L - 2 * P;
  const long double lazy = std::floor(room / (P * P)), rem = std::floor(room / P);
  Arith a{static_cast<double>(p), 1.0 / static_cast<double>(p), 1, lazy >= 2};
  const long double every = a.lazy ? lazy : rem;
  a.every = every > 0x1p20L ? std::size_t{1} << 20 : static_cast<std::size_t>(every);
  return a;
}

// Coefficients and constants centred (the arithmetic's premise).
void centre(Program& prog, ulong p) {
  for (auto& o : prog.ops) o.c = centred(res(o.c), p);
  for (std::size_t k = 0; k < prog.coef.size(); ++k) prog.coef[k] = centred(res(prog.coef[k]), p);
}

// The first 64-byte aligned double of v (which has 8 to spare).
double* aligned(std::vector<double>& v) {
  const auto addr = reinterpret_cast<std::uintptr_t>(v.data());
  return v.data() + ((64 - addr % 64) % 64) / sizeof(double);
}

// A thread's slots for a program of n slots (one per thread and `which`):
// kLanes doubles each, 64-byte aligned, and their addresses.
double* const* scratch(std::size_t which, std::size_t n) {
  thread_local std::vector<double> buf[2];
  thread_local std::vector<double*> at[2];
  auto& b = buf[which];
  if (b.size() < n * kLanes + 8) b.resize(n * kLanes + 8);
  double* base = aligned(b);
  auto& a = at[which];
  a.resize(n);
  for (std::size_t s = 0; s < n; ++s) a[s] = base + s * kLanes;
  return a.data();
}

// Side B's values kept per set of columns at most this large; beyond it B's
// instructions run with M (in every row) and only the inputs are kept.
constexpr double kMaxPrepared = 256.0 * 1024 * 1024;

class TapeEval final : public BatchEval {
 public:
  TapeEval(std::array<Split, 2> sp, ulong p, std::size_t na, std::size_t nb, bool avx512)
      : sp_(std::move(sp)), p_(p), ar_(arith_for(p)), na_(na), nb_(nb), avx512_(avx512) {
    for (auto& s : sp_) {
      centre(s.A, p);
      centre(s.B, p);
      centre(s.M, p);
    }
  }

  void prepare(Columns& C) const override {
    // The split when its values fit, else side B's inputs only.
    prepare_variant(C, static_cast<double>(C.n) * static_cast<double>(sp_[0].b_width) * 8 <= kMaxPrepared ? 0 : 1);
  }
  void prepare_variant(Columns& C, std::size_t v) const {
    const Split& s = sp_[v];
    const std::size_t chunks = (C.n + kLanes - 1) / kLanes;
    C.pre.assign(chunks * s.b_width * kLanes + 8, 0.0);
    double* pre = aligned(C.pre);
    C.variant = v;
    C.prepared_by = this;
    double* const* slot = scratch(0, s.B.slots);
    for (std::size_t ch = 0; ch < chunks; ++ch) {
      const std::size_t c0 = ch * kLanes, n = std::min(kLanes, C.n - c0);
      for (std::size_t q = 0; q < nb_; ++q) {
        const std::int64_t sl = s.B.in_slot[q];
        if (sl < 0) continue;
        double* x = slot[sl];
        const ulong* b = C.input(q) + c0;
        for (std::size_t j = 0; j < n; ++j) x[j] = static_cast<double>(b[j]);
        std::fill(x + n, x + kLanes, 0.0);
      }
      run(s.B, slot);
      for (std::size_t u = 0; u < s.b_width; ++u)
        std::memcpy(pre + (ch * s.b_width + u) * kLanes, slot[s.B.out_slot[u]], kLanes * sizeof(double));
    }
  }

  std::vector<ulong> row(const std::vector<ulong>& a, const Columns& C, std::size_t j0, std::size_t k) const override {
    if (C.prepared_by != this) throw InternalError("blackbox tape: a row over columns this evaluator did not prepare");
    const Split& s = sp_[C.variant];
    std::vector<ulong> r(k - j0);
    // A, once: side A's inputs in every lane, then its values into M's kept slots.
    double* const* sa = scratch(0, s.A.slots);
    for (std::size_t q = 0; q < na_; ++q) {
      const std::int64_t sl = s.A.in_slot[q];
      if (sl >= 0) std::fill_n(sa[sl], kLanes, static_cast<double>(a[q]));
    }
    run(s.A, sa);
    double* const* sm = scratch(1, s.M.slots);
    for (std::size_t u = 0; u < s.a_width; ++u) {
      const std::int64_t sl = s.M.in_slot[u];
      if (sl >= 0) std::fill_n(sm[sl], kLanes, sa[s.A.out_slot[u]][0]);
    }
    // M per chunk of the prepared columns: B's values read where they are.
    auto* bslot = const_cast<double**>(sm);
    for (std::size_t ch = j0 / kLanes; ch * kLanes < k; ++ch) {
      double* pre = aligned(const_cast<std::vector<double>&>(C.pre)) + ch * s.b_width * kLanes;
      for (std::size_t u = 0; u < s.b_width; ++u) {
        const std::int64_t sl = s.M.in_slot[s.a_width + u];
        if (sl >= 0) bslot[sl] = pre + u * kLanes;
      }
      run(s.M, sm);
      // Back to [0, p): |y| < p.
      const double* y = sm[s.M.out_slot[0]];
      const std::size_t lo = std::max(j0, ch * kLanes), hi = std::min(k, (ch + 1) * kLanes);
      for (std::size_t j = lo; j < hi; ++j) {
        const double v = y[j - ch * kLanes];
        r[j - j0] = static_cast<ulong>(v + (v < 0 ? ar_.p : 0.0));
      }
    }
    return r;
  }
  std::string ring() const override { return avx512_ ? "f64-avx512" : "f64-avx2"; }
  const std::array<Split, 2>& splits() const { return sp_; }

 private:
  void run(const Program& prog, double* const* slot) const {
    (avx512_ ? run_avx512 : run_avx2)(prog.ops.data(), prog.ops.size(), prog.src.data(), prog.coef.data(), slot, ar_);
  }
  std::array<Split, 2> sp_;  // with side B's values prepared, and without
  ulong p_;
  Arith ar_;
  std::size_t na_, nb_;
  bool avx512_;
};

}  // namespace tape

std::string simd_choice() {
  const char* e = std::getenv("NETPOLY_SIMD");
  const std::string want = e ? e : "";
  if (want == "portable" || !BatchF64Ring::supported()) return "portable";
  if (want != "avx2" && __builtin_cpu_supports("avx512f")) return "avx512";
  return "avx2";
}

bool tape_applies(ulong p) { return p >= 3 && p < BatchF64Ring::kMaxPrime && simd_choice() != "portable"; }

std::unique_ptr<BatchEval> make_tape_eval(const Network<double>& net, ulong p, std::vector<std::size_t> va,
                                          std::vector<std::size_t> vb, const Need& need, std::size_t out) {
  if (!tape_applies(p)) return nullptr;
  const std::string simd = simd_choice();
  tape::Recorder rec;
  tape::recording = &rec;
  struct Reset {
    ~Reset() { tape::recording = nullptr; }
  } reset;
  const tape::TapeRing R{&rec};
  const std::size_t nin = net.num_inputs();
  std::vector<tape::Reg> X;
  X.reserve(nin);
  for (std::size_t q = 0; q < nin; ++q) X.emplace_back(rec.fresh());
  auto y = forward(R, net, std::move(X), need);
  if (out >= y.size() || y[out].r < 0) throw InternalError("blackbox tape: the output entry was not computed");
  std::array<tape::Split, 2> sp{tape::compile(rec.ops, rec.regs, va, vb, y[out].r, p, true),
                                tape::compile(rec.ops, rec.regs, va, vb, y[out].r, p, false)};
  return std::make_unique<tape::TapeEval>(std::move(sp), p, va.size(), vb.size(), simd == "avx512");
}

void prepare_without_split(const BatchEval& e, Columns& C) {
  const auto* t = dynamic_cast<const tape::TapeEval*>(&e);
  if (!t) throw InternalError("prepare_without_split: not a compiled pass");
  t->prepare_variant(C, 1);
}

TapeStats tape_stats(const BatchEval& e, bool split) {
  const auto* t = dynamic_cast<const tape::TapeEval*>(&e);
  if (!t) return {};
  const auto& s = t->splits()[split ? 0 : 1];
  return {s.recorded, s.A.ops.size(), s.B.ops.size(), s.M.ops.size(), s.M.slots, s.a_width, s.b_width};
}

}  // namespace netpoly::methods
