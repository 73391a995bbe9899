#pragma once
// The singular values of a dense matrix of doubles or complex doubles,
// largest first (Eigen's BDCSVD, values only). Eigen's SVD templates are the
// costliest code in the library to compile (about 40 s of CPU per element
// type at -O3), so they are instantiated once, in rank/singular_values.cpp, for
// every caller: the numeric method, eps_rank in claims and LV's witness.
#include <Eigen/Core>

namespace netpoly {

Eigen::VectorXd singular_values(const Eigen::MatrixXd& M);
Eigen::VectorXd singular_values(const Eigen::MatrixXcd& M);

}  // namespace netpoly
