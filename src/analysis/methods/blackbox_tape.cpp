// The black-box's compiled forward pass (blackbox_tape.hpp).
#include "blackbox_tape.hpp"
#include "blackbox_tape_ops.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdlib>

#include "model/forward.hpp"
#include "netpoly/error.hpp"
#include "netpoly/rings.hpp"

namespace netpoly::methods {
namespace tape {

// ------------------------------------------------------------- recording

// One recorded instruction on registers: dst (+)= c + sum s[k] a[k] + sum
// pa[k] pb[k] (Op's form, on registers instead of slots).
struct RecOp {
  bool acc;
  int dst;
  std::vector<int> a;
  std::vector<double> s;
  std::vector<int> pa, pb;
  double c = 0;
  int carry = -1;  // after compile's renaming: the register `acc` adds into (dst is new)
};

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

// ------------------------------------------------------------- compiling

// A program on slots: its instructions, the slots its inputs are read into
// (-1: unused) and those its outputs are left in.
struct Program {
  std::vector<Op> ops;
  std::vector<std::uint32_t> src;
  std::vector<double> coef;
  std::vector<std::int64_t> in_slot;
  std::vector<std::uint32_t> out_slot;
  std::size_t slots = 0;
};

// Where a value depends on: side A's inputs, side B's, both (0: a constant).
enum : unsigned { kConst = 0, kSideA = 1, kSideB = 2, kBoth = 3 };

// The pass in three programs: A runs once per row (side A alone), B once
// per set of columns (side B alone, kept in Columns::pre), M per chunk of
// columns on what both left (`a_out` and `b_out` are M's inputs, in that
// order). Without the split, B is empty and M reads side B's inputs.
struct Split {
  Program A, B, M;
  std::size_t a_width = 0, b_width = 0;  // values A and B hand to M
  std::size_t recorded = 0;
};

ulong mulmod(ulong a, ulong b, ulong p) { return static_cast<ulong>((static_cast<unsigned __int128>(a) * b) % p); }
ulong res(double x) { return static_cast<ulong>(x); }

// Constants folded: a term reading a known constant joins the instruction's
// constant c, a product with one known factor becomes a linear term, and
// `r += ...` on a known r becomes an assignment; instructions left without
// terms set a constant. Afterwards no instruction reads a constant register.
void fold(std::vector<RecOp>& ops, int regs, ulong p, std::vector<char>& known, std::vector<ulong>& value) {
  known.assign(static_cast<std::size_t>(regs), 0);
  value.assign(static_cast<std::size_t>(regs), 0);
  for (RecOp& o : ops) {
    const auto d = static_cast<std::size_t>(o.dst);
    ulong c = res(o.c);
    if (o.acc && known[d]) {
      c = (c + value[d]) % p;
      o.acc = false;
    }
    std::vector<int> a;
    std::vector<double> s;
    std::vector<int> pa, pb;
    for (std::size_t k = 0; k < o.a.size(); ++k) {
      const auto x = static_cast<std::size_t>(o.a[k]);
      const ulong sk = res(o.s[k]);
      if (sk == 0) continue;
      if (known[x]) c = (c + mulmod(sk, value[x], p)) % p;
      else a.push_back(o.a[k]), s.push_back(o.s[k]);
    }
    for (std::size_t k = 0; k < o.pa.size(); ++k) {
      const auto x = static_cast<std::size_t>(o.pa[k]), y = static_cast<std::size_t>(o.pb[k]);
      if (known[x] && known[y]) c = (c + mulmod(value[x], value[y], p)) % p;
      else if (known[x] || known[y]) {
        const ulong w = known[x] ? value[x] : value[y];
        if (w) a.push_back(known[x] ? o.pb[k] : o.pa[k]), s.push_back(static_cast<double>(w));
      } else {
        pa.push_back(o.pa[k]), pb.push_back(o.pb[k]);
      }
    }
    o.a = std::move(a), o.s = std::move(s), o.pa = std::move(pa), o.pb = std::move(pb);
    o.c = static_cast<double>(c);
    const bool none = o.a.empty() && o.pa.empty();
    known[d] = none && !o.acc;
    value[d] = c;
  }
}

// Gives the registers of `ops` slots (a slot is reused once its register's
// last reader ran). `inputs` are read into slots before the program runs;
// `keep` (inputs of later runs: M's values from A) keep theirs for good;
// `outputs` are live at the end.
Program allocate(const std::vector<const RecOp*>& ops, int regs, const std::vector<int>& inputs,
                 const std::vector<char>& keep, const std::vector<int>& outputs) {
  Program prog;
  constexpr std::size_t kNever = static_cast<std::size_t>(-1), kEnd = kNever - 1;
  std::vector<std::size_t> last(static_cast<std::size_t>(regs), kNever);
  for (std::size_t n = 0; n < ops.size(); ++n) {
    const RecOp& o = *ops[n];
    last[static_cast<std::size_t>(o.dst)] = n;
    if (o.carry >= 0) last[static_cast<std::size_t>(o.carry)] = n;
    for (int x : o.a) last[static_cast<std::size_t>(x)] = n;
    for (int x : o.pa) last[static_cast<std::size_t>(x)] = n;
    for (int x : o.pb) last[static_cast<std::size_t>(x)] = n;
  }
  for (std::size_t q = 0; q < inputs.size(); ++q)
    if (keep[q] && last[static_cast<std::size_t>(inputs[q])] != kNever) last[static_cast<std::size_t>(inputs[q])] = kEnd;
  for (int r : outputs) last[static_cast<std::size_t>(r)] = kEnd;
  std::vector<std::int64_t> slot(static_cast<std::size_t>(regs), -1);
  std::vector<std::uint32_t> free_slots;
  const auto take = [&]() -> std::uint32_t {
    if (!free_slots.empty()) {
      const std::uint32_t s = free_slots.back();
      free_slots.pop_back();
      return s;
    }
    return static_cast<std::uint32_t>(prog.slots++);
  };
  prog.in_slot.assign(inputs.size(), -1);
  for (std::size_t q = 0; q < inputs.size(); ++q) {
    const auto r = static_cast<std::size_t>(inputs[q]);
    if (last[r] != kNever) prog.in_slot[q] = slot[r] = take();
  }
  const auto slot_of = [&](int r) -> std::uint32_t {
    const std::int64_t s = slot[static_cast<std::size_t>(r)];
    if (s < 0) throw InternalError("blackbox tape: register " + std::to_string(r) + " read before it was written");
    return static_cast<std::uint32_t>(s);
  };
  for (std::size_t n = 0; n < ops.size(); ++n) {
    const RecOp& o = *ops[n];
    Op c{false, 0, static_cast<std::uint32_t>(o.a.size()), static_cast<std::uint32_t>(o.pa.size()),
         static_cast<std::uint32_t>(prog.src.size()), o.c};
    // Adding into a register read for the last time here: in its slot (dst
    // takes it over); otherwise its value is one more term.
    auto& sd = slot[static_cast<std::size_t>(o.dst)];
    if (o.carry >= 0) {
      const auto cr = static_cast<std::size_t>(o.carry);
      if (last[cr] == n) {
        c.acc = true;
        sd = slot_of(o.carry);
        slot[cr] = -1;
      } else {
        prog.src.push_back(slot_of(o.carry));
        prog.coef.push_back(1);
        ++c.nlin;
      }
    }
    for (std::size_t k = 0; k < o.a.size(); ++k) {
      prog.src.push_back(slot_of(o.a[k]));
      prog.coef.push_back(o.s[k]);
    }
    for (std::size_t k = 0; k < o.pa.size(); ++k) {
      prog.src.push_back(slot_of(o.pa[k]));
      prog.src.push_back(slot_of(o.pb[k]));
      prog.coef.push_back(0);
      prog.coef.push_back(0);
    }
    if (sd < 0) sd = take();
    c.dst = static_cast<std::uint32_t>(sd);
    prog.ops.push_back(c);
    const auto release = [&](int r) {
      auto& s = slot[static_cast<std::size_t>(r)];
      if (last[static_cast<std::size_t>(r)] == n && s >= 0) {
        free_slots.push_back(static_cast<std::uint32_t>(s));
        s = -1;
      }
    };
    for (int x : o.a) release(x);
    for (int x : o.pa) release(x);
    for (int x : o.pb) release(x);
    release(o.dst);
  }
  for (int r : outputs) prog.out_slot.push_back(slot_of(r));
  return prog;
}

// The recorded pass, folded, pruned to what `out` needs and split by what
// each instruction depends on (`split_b`: side B's own instructions in B;
// otherwise in M).
Split compile(std::vector<RecOp> ops, int regs, const std::vector<std::size_t>& va, const std::vector<std::size_t>& vb,
              int out, ulong p, bool split_b) {
  Split sp;
  sp.recorded = ops.size();
  std::vector<char> known;
  std::vector<ulong> value;
  fold(ops, regs, p, known, value);
  // The output, as one last instruction of M reading it (or its constant).
  {
    RecOp last{false, regs++, {}, {}, {}, {}, 0};
    const auto o = static_cast<std::size_t>(out);
    if (known[o]) last.c = static_cast<double>(value[o]);
    else last.a = {out}, last.s = {1};
    ops.push_back(std::move(last));
    out = regs - 1;
  }
  // Renaming, forward: every instruction writes a new register, so a value
  // one program hands to another is never changed after (A runs whole before
  // M); `r += ...` reads the old register as its carry. Classes: what each
  // value depends on.
  std::vector<unsigned> cls(static_cast<std::size_t>(regs), kConst);
  for (std::size_t v : va) cls[v] = kSideA;
  for (std::size_t v : vb) cls[v] = split_b ? kSideB : kBoth;
  std::vector<int> cur(static_cast<std::size_t>(regs));
  for (int r = 0; r < regs; ++r) cur[static_cast<std::size_t>(r)] = r;
  std::vector<RecOp> renamed;
  renamed.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    RecOp o = std::move(ops[i]);
    for (int& x : o.a) x = cur[static_cast<std::size_t>(x)];
    for (int& x : o.pa) x = cur[static_cast<std::size_t>(x)];
    for (int& x : o.pb) x = cur[static_cast<std::size_t>(x)];
    unsigned c = kConst;
    for (int x : o.a) c |= cls[static_cast<std::size_t>(x)];
    for (int x : o.pa) c |= cls[static_cast<std::size_t>(x)];
    for (int x : o.pb) c |= cls[static_cast<std::size_t>(x)];
    if (o.acc) {
      o.carry = cur[static_cast<std::size_t>(o.dst)];
      c |= cls[static_cast<std::size_t>(o.carry)];
      o.acc = false;
    }
    if (i + 1 == ops.size()) c = kBoth;  // the output: M's
    const int v = static_cast<int>(cls.size());
    cls.push_back(c);
    cur[static_cast<std::size_t>(o.dst)] = v;
    o.dst = v;
    renamed.push_back(std::move(o));
  }
  regs = static_cast<int>(cls.size());
  out = renamed.back().dst;
  // Backward: only what the output reads.
  std::vector<char> live(static_cast<std::size_t>(regs), 0), keep(renamed.size(), 0);
  live[static_cast<std::size_t>(out)] = 1;
  for (std::size_t i = renamed.size(); i-- > 0;) {
    const RecOp& o = renamed[i];
    const auto d = static_cast<std::size_t>(o.dst);
    if (!live[d]) continue;
    keep[i] = 1;
    if (o.carry >= 0) live[static_cast<std::size_t>(o.carry)] = 1;
    for (int x : o.a) live[static_cast<std::size_t>(x)] = 1;
    for (int x : o.pa) live[static_cast<std::size_t>(x)] = 1;
    for (int x : o.pb) live[static_cast<std::size_t>(x)] = 1;
  }
  // The three lists, and what A and B hand to M.
  std::vector<const RecOp*> la, lb, lm;
  std::vector<char> to_m(static_cast<std::size_t>(regs), 0);
  for (std::size_t i = 0; i < renamed.size(); ++i) {
    if (!keep[i]) continue;
    const RecOp& o = renamed[i];
    const unsigned c = cls[static_cast<std::size_t>(o.dst)];
    if (c == kSideA) la.push_back(&o);
    else if (c == kSideB) lb.push_back(&o);
    else if (c == kConst) throw InternalError("blackbox tape: an instruction without terms was not folded");
    else {
      lm.push_back(&o);
      if (o.carry >= 0) to_m[static_cast<std::size_t>(o.carry)] = 1;
      for (int x : o.a) to_m[static_cast<std::size_t>(x)] = 1;
      for (int x : o.pa) to_m[static_cast<std::size_t>(x)] = 1;
      for (int x : o.pb) to_m[static_cast<std::size_t>(x)] = 1;
    }
  }
  std::vector<int> a_out, b_out, m_in;
  for (int r = 0; r < regs; ++r) {
    if (!to_m[static_cast<std::size_t>(r)]) continue;
    if (cls[static_cast<std::size_t>(r)] == kSideA) a_out.push_back(r);
  }
  for (int r = 0; r < regs; ++r) {
    if (!to_m[static_cast<std::size_t>(r)]) continue;
    if (cls[static_cast<std::size_t>(r)] == kSideB) b_out.push_back(r);
  }
  // Side B's inputs read by M directly (without the split, all of them are M's).
  std::vector<int> b_in_m;
  if (!split_b)
    for (std::size_t v : vb)
      if (to_m[v]) b_in_m.push_back(static_cast<int>(v));
  std::vector<int> ia(va.begin(), va.end()), ib(vb.begin(), vb.end());
  sp.A = allocate(la, regs, ia, std::vector<char>(ia.size(), 0), a_out);
  sp.B = allocate(lb, regs, ib, std::vector<char>(ib.size(), 0), split_b ? b_out : b_in_m);
  m_in = a_out;
  const std::vector<int>& bm = split_b ? b_out : b_in_m;
  m_in.insert(m_in.end(), bm.begin(), bm.end());
  // M's inputs keep their slots: A's are filled once per row, and B's point
  // into the prepared columns (a slot reused there would write into them).
  sp.M = allocate(lm, regs, m_in, std::vector<char>(m_in.size(), 1), {out});
  sp.a_width = a_out.size();
  sp.b_width = bm.size();
  return sp;
}

// ------------------------------------------------------------- running it

// The centred residue of c in [0, p): in (-p/2, p/2].
double centred(ulong c, ulong p) { return c > p / 2 ? -static_cast<double>(p - c) : static_cast<double>(c); }

// The arithmetic for p (blackbox_tape_ops.hpp): a sum starts below h = 2p in
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
    C.width = s.b_width;
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

std::unique_ptr<BatchEval> make_tape_eval(const Network<double>& net, ulong p, std::vector<std::size_t> va,
                                          std::vector<std::size_t> vb, const Need& need, std::size_t out) {
  const std::string simd = simd_choice();
  if (p < 3 || p >= BatchF64Ring::kMaxPrime || simd == "portable") return nullptr;
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
  return {s.recorded, s.A.ops.size(), s.B.ops.size(), s.M.ops.size(), s.M.slots, s.b_width};
}

}  // namespace netpoly::methods
