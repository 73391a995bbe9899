// What a claim-language function file needs: the evaluator, its values and
// helpers, and the table sections the files contribute (functions.cpp joins
// them in order). A function is one FunctionInfo entry holding its
// signature, summary and handler; docs/architecture.md says how to add one.
#pragma once
#include <string>
#include <vector>

#include "claims/eval/claim_eval.hpp"
#include "claims/syntax/claim_parser.hpp"

namespace netpoly::claims_detail {

// Matrices are lists of rows (matrices.cpp): a non-empty list of non-empty
// rows of one length, entries numbers or polynomials (`what` names the call
// in the message); and a matrix as a value.
using Row = std::vector<Value>;
using Matrix = std::vector<Row>;
Matrix need_matrix(const Value& v, const SrcLoc& at, const std::string& what);
Value matrix_value(const Matrix& m);

// Named arguments of bound(...), log3bound(...) and regime(...).
const std::vector<std::string>& bound_option_names();

// The sections of the table, in the order the language reference lists them.
std::vector<FunctionInfo> network_constructors();     // networks.cpp
std::vector<FunctionInfo> polynomial_constructors();  // polynomials.cpp
std::vector<FunctionInfo> partition_functions();      // partitions.cpp
std::vector<FunctionInfo> network_transforms();       // networks.cpp
std::vector<FunctionInfo> sep_functions();            // seps.cpp
std::vector<FunctionInfo> polynomial_measures();      // polynomials.cpp
std::vector<FunctionInfo> bound_functions();          // bounds.cpp
std::vector<FunctionInfo> network_measures();         // networks.cpp
std::vector<FunctionInfo> arithmetic_functions();     // arithmetic.cpp
std::vector<FunctionInfo> matrix_functions();         // matrices.cpp
std::vector<FunctionInfo> linalg_functions();         // linalg.cpp
std::vector<FunctionInfo> grid_functions();           // grid_matrix.cpp

}  // namespace netpoly::claims_detail
