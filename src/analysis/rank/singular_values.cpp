#include "analysis/rank/singular_values.hpp"

#include <Eigen/SVD>

namespace netpoly {

Eigen::VectorXd singular_values(const Eigen::MatrixXd& M) { return Eigen::BDCSVD<Eigen::MatrixXd>(M).singularValues(); }

Eigen::VectorXd singular_values(const Eigen::MatrixXcd& M) {
  return Eigen::BDCSVD<Eigen::MatrixXcd>(M).singularValues();
}

}  // namespace netpoly
