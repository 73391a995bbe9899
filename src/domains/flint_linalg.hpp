// RAII wrappers over FLINT 2.9's rational matrices and univariate rational
// polynomials, for the claim language's exact linear algebra (det, rank,
// eps_rank's eigenvalue counts). The same rule as flint.hpp: no raw
// init/clear outside these classes.
#pragma once
#include <flint/fmpq_mat.h>
#include <flint/fmpq_poly.h>

#include "netpoly/flint.hpp"

namespace netpoly {

class FmpqMat {
 public:
  FmpqMat(slong r, slong c) { fmpq_mat_init(m_, r, c); }
  FmpqMat(const FmpqMat& o) { fmpq_mat_init_set(m_, o.m_); }
  FmpqMat& operator=(const FmpqMat&) = delete;
  ~FmpqMat() { fmpq_mat_clear(m_); }
  fmpq_mat_struct* get() { return m_; }
  const fmpq_mat_struct* get() const { return m_; }
  fmpq* at(slong i, slong j) { return fmpq_mat_entry(m_, i, j); }
  const fmpq* at(slong i, slong j) const { return fmpq_mat_entry(m_, i, j); }
  slong rows() const { return m_->r; }
  slong cols() const { return m_->c; }

 private:
  fmpq_mat_t m_;
};

class FmpqPoly {
 public:
  FmpqPoly() { fmpq_poly_init(p_); }
  FmpqPoly(const FmpqPoly& o) { fmpq_poly_init(p_); fmpq_poly_set(p_, o.p_); }
  FmpqPoly& operator=(const FmpqPoly& o) { fmpq_poly_set(p_, o.p_); return *this; }
  ~FmpqPoly() { fmpq_poly_clear(p_); }
  fmpq_poly_struct* get() { return p_; }
  const fmpq_poly_struct* get() const { return p_; }
  slong length() const { return fmpq_poly_length(p_); }

 private:
  fmpq_poly_t p_;
};

}  // namespace netpoly
