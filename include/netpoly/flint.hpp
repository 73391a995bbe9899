// RAII wrappers over the FLINT 2.9 types netpoly uses. No raw init/clear
// outside this file: every FLINT object lives inside one of these classes.
#pragma once
#include <flint/flint.h>
#include <flint/fmpq.h>
#include <flint/fmpq_mpoly.h>
#include <flint/fmpz.h>
#include <flint/fmpz_mat.h>
#include <flint/fmpz_mpoly.h>
#include <flint/nmod_mat.h>
#include <flint/nmod_mpoly.h>
#include <flint/ulong_extras.h>

#include <memory>
#include <string>
#include <utility>

namespace netpoly {

// ---------------------------------------------------------------- integers
class Fmpz {
 public:
  Fmpz() { fmpz_init(v_); }
  Fmpz(slong x) { fmpz_init_set_si(v_, x); }  // NOLINT: implicit by design
  Fmpz(const Fmpz& o) { fmpz_init_set(v_, o.v_); }
  Fmpz(Fmpz&& o) noexcept { fmpz_init(v_); fmpz_swap(v_, o.v_); }
  Fmpz& operator=(const Fmpz& o) { fmpz_set(v_, o.v_); return *this; }
  Fmpz& operator=(Fmpz&& o) noexcept { fmpz_swap(v_, o.v_); return *this; }
  ~Fmpz() { fmpz_clear(v_); }
  // Parses a decimal integer; returns false (and leaves *this unspecified) if s is not one.
  bool set_str(const std::string& s);
  std::string str() const;
  fmpz* get() { return v_; }
  const fmpz* get() const { return v_; }
  bool operator==(const Fmpz& o) const { return fmpz_equal(v_, o.v_); }
  bool operator<(const Fmpz& o) const { return fmpz_cmp(v_, o.v_) < 0; }
  bool is_zero() const { return fmpz_is_zero(v_); }

 private:
  fmpz_t v_;
};

// --------------------------------------------------------------- rationals
class Fmpq {
 public:
  Fmpq() { fmpq_init(v_); }
  Fmpq(slong x) { fmpq_init(v_); fmpq_set_si(v_, x, 1); }  // NOLINT: implicit by design
  Fmpq(slong p, ulong q) { fmpq_init(v_); fmpq_set_si(v_, p, q); }
  explicit Fmpq(const Fmpz& z) { fmpq_init(v_); fmpz_set(fmpq_numref(v_), z.get()); }
  Fmpq(const Fmpq& o) { fmpq_init(v_); fmpq_set(v_, o.v_); }
  Fmpq(Fmpq&& o) noexcept { fmpq_init(v_); fmpq_swap(v_, o.v_); }
  Fmpq& operator=(const Fmpq& o) { fmpq_set(v_, o.v_); return *this; }
  Fmpq& operator=(Fmpq&& o) noexcept { fmpq_swap(v_, o.v_); return *this; }
  ~Fmpq() { fmpq_clear(v_); }
  std::string str() const;  // "p" or "p/q"
  fmpq* get() { return v_; }
  const fmpq* get() const { return v_; }
  const fmpz* num() const { return fmpq_numref(v_); }
  const fmpz* den() const { return fmpq_denref(v_); }
  bool is_zero() const { return fmpq_is_zero(v_); }
  bool is_integer() const { return fmpz_is_one(fmpq_denref(v_)); }
  bool operator==(const Fmpq& o) const { return fmpq_equal(v_, o.v_); }
  bool operator!=(const Fmpq& o) const { return !fmpq_equal(v_, o.v_); }
  double to_double() const { return fmpq_get_d(v_); }

 private:
  fmpq_t v_;
};

// Monomial order used by every polynomial context.
inline constexpr ordering_t kOrder = ORD_DEGREVLEX;

// ------------------------------------------------ polynomials over Q (exact)
class FmpqMpolyCtx {
 public:
  explicit FmpqMpolyCtx(slong nvars, ordering_t ord = kOrder) { fmpq_mpoly_ctx_init(ctx_, nvars, ord); }
  FmpqMpolyCtx(const FmpqMpolyCtx&) = delete;
  FmpqMpolyCtx& operator=(const FmpqMpolyCtx&) = delete;
  ~FmpqMpolyCtx() { fmpq_mpoly_ctx_clear(ctx_); }
  fmpq_mpoly_ctx_struct* get() const { return ctx_; }
  slong nvars() const { return ctx_->zctx->minfo->nvars; }

 private:
  mutable fmpq_mpoly_ctx_t ctx_;
};
using FmpqMpolyCtxPtr = std::shared_ptr<const FmpqMpolyCtx>;

class FmpqMpoly {
 public:
  explicit FmpqMpoly(FmpqMpolyCtxPtr ctx) : ctx_(std::move(ctx)) { fmpq_mpoly_init(p_, c()); }
  FmpqMpoly(const FmpqMpoly& o) : ctx_(o.ctx_) { fmpq_mpoly_init(p_, c()); fmpq_mpoly_set(p_, o.p_, c()); }
  FmpqMpoly(FmpqMpoly&& o) noexcept : ctx_(o.ctx_) { fmpq_mpoly_init(p_, c()); fmpq_mpoly_swap(p_, o.p_, c()); }
  FmpqMpoly& operator=(const FmpqMpoly& o) {
    if (this != &o) { reset_ctx(o.ctx_); fmpq_mpoly_set(p_, o.p_, c()); }
    return *this;
  }
  FmpqMpoly& operator=(FmpqMpoly&& o) noexcept {
    if (this != &o) { reset_ctx(o.ctx_); fmpq_mpoly_swap(p_, o.p_, c()); }
    return *this;
  }
  ~FmpqMpoly() { fmpq_mpoly_clear(p_, c()); }
  fmpq_mpoly_struct* get() { return p_; }
  const fmpq_mpoly_struct* get() const { return p_; }
  fmpq_mpoly_ctx_struct* c() const { return ctx_->get(); }
  const FmpqMpolyCtxPtr& ctx() const { return ctx_; }
  slong length() const { return fmpq_mpoly_length(p_, c()); }
  bool is_zero() const { return fmpq_mpoly_is_zero(p_, c()); }
  bool operator==(const FmpqMpoly& o) const { return fmpq_mpoly_equal(p_, o.p_, c()); }

 private:
  void reset_ctx(const FmpqMpolyCtxPtr& n) {
    if (n.get() != ctx_.get()) { fmpq_mpoly_clear(p_, c()); ctx_ = n; fmpq_mpoly_init(p_, c()); }
  }
  FmpqMpolyCtxPtr ctx_;
  fmpq_mpoly_t p_;
};

// ------------------------------------- polynomials over Z/pZ (modular expansion)
class NmodMpolyCtx {
 public:
  NmodMpolyCtx(slong nvars, ulong p) { nmod_mpoly_ctx_init(ctx_, nvars, kOrder, p); }
  NmodMpolyCtx(const NmodMpolyCtx&) = delete;
  NmodMpolyCtx& operator=(const NmodMpolyCtx&) = delete;
  ~NmodMpolyCtx() { nmod_mpoly_ctx_clear(ctx_); }
  nmod_mpoly_ctx_struct* get() const { return ctx_; }
  ulong modulus() const { return ctx_->mod.n; }
  slong nvars() const { return ctx_->minfo->nvars; }

 private:
  mutable nmod_mpoly_ctx_t ctx_;
};
using NmodMpolyCtxPtr = std::shared_ptr<const NmodMpolyCtx>;

class NmodMpoly {
 public:
  explicit NmodMpoly(NmodMpolyCtxPtr ctx) : ctx_(std::move(ctx)) { nmod_mpoly_init(p_, c()); }
  NmodMpoly(const NmodMpoly& o) : ctx_(o.ctx_) { nmod_mpoly_init(p_, c()); nmod_mpoly_set(p_, o.p_, c()); }
  NmodMpoly(NmodMpoly&& o) noexcept : ctx_(o.ctx_) { nmod_mpoly_init(p_, c()); nmod_mpoly_swap(p_, o.p_, c()); }
  NmodMpoly& operator=(const NmodMpoly& o) {
    if (this != &o) { reset_ctx(o.ctx_); nmod_mpoly_set(p_, o.p_, c()); }
    return *this;
  }
  NmodMpoly& operator=(NmodMpoly&& o) noexcept {
    if (this != &o) { reset_ctx(o.ctx_); nmod_mpoly_swap(p_, o.p_, c()); }
    return *this;
  }
  ~NmodMpoly() { nmod_mpoly_clear(p_, c()); }
  nmod_mpoly_struct* get() { return p_; }
  const nmod_mpoly_struct* get() const { return p_; }
  nmod_mpoly_ctx_struct* c() const { return ctx_->get(); }
  const NmodMpolyCtxPtr& ctx() const { return ctx_; }
  slong length() const { return nmod_mpoly_length(p_, c()); }
  bool is_zero() const { return nmod_mpoly_is_zero(p_, c()); }
  bool operator==(const NmodMpoly& o) const { return nmod_mpoly_equal(p_, o.p_, c()); }

 private:
  void reset_ctx(const NmodMpolyCtxPtr& n) {
    if (n.get() != ctx_.get()) { nmod_mpoly_clear(p_, c()); ctx_ = n; nmod_mpoly_init(p_, c()); }
  }
  NmodMpolyCtxPtr ctx_;
  nmod_mpoly_t p_;
};

// ---------------------------------------------------------------- matrices
class FmpzMat {
 public:
  FmpzMat(slong r, slong c) { fmpz_mat_init(m_, r, c); }
  FmpzMat(const FmpzMat& o) { fmpz_mat_init_set(m_, o.m_); }
  FmpzMat& operator=(const FmpzMat&) = delete;
  ~FmpzMat() { fmpz_mat_clear(m_); }
  fmpz_mat_struct* get() { return m_; }
  const fmpz_mat_struct* get() const { return m_; }
  fmpz* at(slong i, slong j) { return fmpz_mat_entry(m_, i, j); }
  const fmpz* at(slong i, slong j) const { return fmpz_mat_entry(m_, i, j); }
  slong rows() const { return m_->r; }
  slong cols() const { return m_->c; }

 private:
  fmpz_mat_t m_;
};

class NmodMat {
 public:
  NmodMat(slong r, slong c, ulong p) { nmod_mat_init(m_, r, c, p); }
  NmodMat(const NmodMat& o) { nmod_mat_init_set(m_, o.m_); }
  NmodMat& operator=(const NmodMat&) = delete;
  ~NmodMat() { nmod_mat_clear(m_); }
  nmod_mat_struct* get() { return m_; }
  const nmod_mat_struct* get() const { return m_; }
  mp_limb_t& at(slong i, slong j) { return nmod_mat_entry(m_, i, j); }
  mp_limb_t at(slong i, slong j) const { return nmod_mat_entry(m_, i, j); }
  slong rows() const { return m_->r; }
  slong cols() const { return m_->c; }
  ulong modulus() const { return m_->mod.n; }

 private:
  nmod_mat_t m_;
};

// Checks that p is a prime that fits nmod (FLINT does not check; a composite
// modulus would silently give wrong ranks). Throws InputError naming `what`.
void require_prime_modulus(ulong p, const std::string& what);

// Bits of |z| (0 for zero).
inline ulong bits(const Fmpz& z) { return fmpz_bits(z.get()); }

}  // namespace netpoly
