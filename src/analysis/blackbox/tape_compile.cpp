// The compiled forward pass's compiler (blackbox/tape_program.hpp): the
// recorded pass folded, pruned, inlined, split by side and given slots.
#include "analysis/blackbox/tape_program.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "netpoly/error.hpp"

namespace netpoly::methods::tape {
namespace {

// Where a value depends on: side A's inputs, side B's, both (0: a constant).
enum : unsigned { kConst = 0, kSideA = 1, kSideB = 2, kBoth = 3 };

ulong mulmod(ulong a, ulong b, ulong p) { return static_cast<ulong>((static_cast<unsigned __int128>(a) * b) % p); }

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

// Inlines M's linear instructions (no products) into the M instructions
// that read them as linear terms, where that does not add terms: a value
// read once, or a multiple of one value read anywhere linearly. `r = c + s
// x + t y` read as `u r` becomes the reader's terms `u s x + u t y` and
// constant `u c` (mod p), so the reader's value is the same residue; each
// inlined instruction saves one pass over the lanes (its reduction, store
// and the reader's load). The registers are renamed (each written once) and
// `keep` marks the live instructions; inlined ones are dropped from it.
void inline_linear(std::vector<RecOp>& ops, std::vector<char>& keep, const std::vector<unsigned>& cls, ulong p) {
  const std::size_t regs = cls.size();
  std::vector<std::size_t> uses(regs, 0);
  std::vector<char> nonlinear(regs, 0), outside(regs, 0);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!keep[i]) continue;
    const RecOp& o = ops[i];
    const bool m = cls[static_cast<std::size_t>(o.dst)] == kBoth;
    const auto lin = [&](int x) {
      ++uses[static_cast<std::size_t>(x)];
      if (!m) outside[static_cast<std::size_t>(x)] = 1;
    };
    if (o.carry >= 0) lin(o.carry);
    for (int x : o.a) lin(x);
    for (int x : o.pa) ++uses[static_cast<std::size_t>(x)], nonlinear[static_cast<std::size_t>(x)] = 1;
    for (int x : o.pb) ++uses[static_cast<std::size_t>(x)], nonlinear[static_cast<std::size_t>(x)] = 1;
  }
  const int last = ops.empty() ? -1 : ops.back().dst;  // the output: kept
  struct Expr {
    ulong c = 0;
    std::vector<std::pair<int, ulong>> t;
  };
  std::vector<std::optional<Expr>> repl(regs);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!keep[i]) continue;
    RecOp& o = ops[i];
    const auto d = static_cast<std::size_t>(o.dst);
    if (cls[d] != kBoth) continue;
    // The linear terms with inlined values expanded, a register once.
    bool expanded = o.carry >= 0 && repl[static_cast<std::size_t>(o.carry)];
    for (int x : o.a) expanded = expanded || repl[static_cast<std::size_t>(x)];
    Expr e;
    e.c = res(o.c);
    if (expanded) {
      std::vector<std::pair<int, ulong>> terms;
      const auto add = [&](int x, ulong s) {
        if (const auto& r = repl[static_cast<std::size_t>(x)]) {
          e.c = (e.c + mulmod(s, r->c, p)) % p;
          for (const auto& [y, t] : r->t) terms.push_back({y, mulmod(s, t, p)});
        } else {
          terms.push_back({x, s});
        }
      };
      if (o.carry >= 0) add(o.carry, 1);
      for (std::size_t k = 0; k < o.a.size(); ++k) add(o.a[k], res(o.s[k]));
      std::sort(terms.begin(), terms.end());
      o.carry = -1;
      o.a.clear(), o.s.clear();
      for (std::size_t k = 0; k < terms.size(); ++k) {
        if (!o.a.empty() && o.a.back() == terms[k].first) {
          o.s.back() = static_cast<double>((res(o.s.back()) + terms[k].second) % p);
        } else {
          o.a.push_back(terms[k].first), o.s.push_back(static_cast<double>(terms[k].second));
        }
      }
      // Terms whose coefficients cancelled are dropped (without terms, the instruction sets its constant).
      std::size_t w = 0;
      for (std::size_t k = 0; k < o.a.size(); ++k)
        if (res(o.s[k]) != 0) o.a[w] = o.a[k], o.s[w] = o.s[k], ++w;
      o.a.resize(w), o.s.resize(w);
      o.c = static_cast<double>(e.c);
    }
    if (o.dst == last || !o.pa.empty() || o.carry >= 0 || nonlinear[d] || outside[d] || uses[d] == 0) continue;
    if (uses[d] > 1 && !(o.a.size() == 1 && e.c == 0)) continue;
    for (std::size_t k = 0; k < o.a.size(); ++k) e.t.push_back({o.a[k], res(o.s[k])});
    repl[d] = std::move(e);
    keep[i] = 0;
  }
}

}  // namespace

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
  inline_linear(renamed, keep, cls, p);
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

}  // namespace netpoly::methods::tape
