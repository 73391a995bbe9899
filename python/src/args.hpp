// A Python call's arguments, read with the same checks as the CLI's: every
// value is converted by its type (never cast blindly: pybind11's casts raise
// RuntimeError or wrap around), and a bad one is an InputError naming the
// argument as Python spells it. Analysis options go through the option table
// (netpoly/options.hpp); the rest (preset shapes, table lists) through the
// typed readers here.
#pragma once
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "netpoly/error.hpp"
#include "netpoly/options.hpp"

namespace netpoly::python {

namespace py = pybind11;

// "a bool", "an int", "a str", ... for messages.
inline std::string py_type(py::handle v) { return std::string("a ") + Py_TYPE(v.ptr())->tp_name; }

inline std::string py_repr(py::handle v) {
  std::string r;
  try {
    r = py::repr(v).cast<std::string>();
  } catch (const py::error_already_set&) {
    r = py_type(v);
  }
  return clip(r, 60);
}

// Python's bool or NumPy's (numpy.bool_, which has __index__ but is no more a
// number than True is).
inline bool py_is_bool(py::handle v) {
  if (PyBool_Check(v.ptr())) return true;
  const std::string t = Py_TYPE(v.ptr())->tp_name;
  return t == "numpy.bool" || t == "numpy.bool_";
}

// A Python integer (or anything with __index__, numpy's integers included;
// never a bool, NumPy's included, or a float) as JSON: an integer when it fits
// 64 bits, else its decimal text (which the option's check then refuses as out
// of range).
inline nlohmann::json py_integer(py::handle v) {
  if (py_is_bool(v) || PyFloat_Check(v.ptr()) || !PyIndex_Check(v.ptr())) return nullptr;
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
  if (!i) {
    PyErr_Clear();
    return nullptr;
  }
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow == 0) return static_cast<std::int64_t>(x);
  const unsigned long long u = PyLong_AsUnsignedLongLong(i.ptr());
  if (!PyErr_Occurred()) return static_cast<std::uint64_t>(u);
  PyErr_Clear();
  return "a whole number beyond 2^64";
}

// A value for an analysis option, converted by the option's type.
inline nlohmann::json py_option(const OptionSpec& o, py::handle v) {
  using json = nlohmann::json;
  auto refuse = [&]() -> json { return "<" + py_type(v) + " " + py_repr(v) + ">"; };
  switch (o.type) {
    case OptionType::flag:
      return PyBool_Check(v.ptr()) ? json(v.ptr() == Py_True) : refuse();
    case OptionType::count:
    case OptionType::seed:
    case OptionType::prime: {
      json j = py_integer(v);
      return j.is_null() ? refuse() : j;
    }
    case OptionType::seconds:
    case OptionType::real:
    case OptionType::memory: {
      if (PyBool_Check(v.ptr())) return refuse();
      if (o.type == OptionType::memory && py::isinstance<py::str>(v)) return v.cast<std::string>();
      if (py::isinstance<py::str>(v)) return v.cast<std::string>() == "inf" ? json("inf") : refuse();
      json j = py_integer(v);
      if (!j.is_null() && !j.is_string()) return j;
      if (PyFloat_Check(v.ptr())) {
        const double x = PyFloat_AsDouble(v.ptr());
        if (std::isnan(x)) return "nan";  // refused by the check, shown as nan
        return std::isinf(x) && x > 0 ? json("inf") : json(x);
      }
      return refuse();
    }
    case OptionType::share:
      return py::isinstance<py::str>(v) ? json(v.cast<std::string>()) : refuse();
    case OptionType::methods: {
      if (py::isinstance<py::str>(v)) return v.cast<std::string>();
      if (!py::isinstance<py::list>(v) && !py::isinstance<py::tuple>(v)) return refuse();
      json list = json::array();
      for (py::handle w : v) {
        if (!py::isinstance<py::str>(w)) return refuse();  // the whole list quoted as given
        list.push_back(w.cast<std::string>());
      }
      return list;
    }
    case OptionType::templates: {
      json j = py_integer(v);
      if (!j.is_null()) return j;
      if (!py::isinstance<py::list>(v) && !py::isinstance<py::tuple>(v) &&
          !py::hasattr(v, "tolist"))
        return refuse();
      py::object rows = py::hasattr(v, "tolist") ? v.attr("tolist")() : py::reinterpret_borrow<py::object>(v);
      json out = json::array();
      for (py::handle r : rows) {
        json row = json::array();
        if (!py::isinstance<py::list>(r) && !py::isinstance<py::tuple>(r)) return refuse();
        for (py::handle x : r) {
          json k = py_integer(x);
          if (!k.is_null()) {
            row.push_back(k.is_string() ? json(py::str(x).cast<std::string>()) : k);
          } else if (py::isinstance<py::str>(x)) {
            row.push_back(x.cast<std::string>());
          } else if (py::hasattr(x, "numerator") && py::hasattr(x, "denominator") && !PyFloat_Check(x.ptr())) {
            row.push_back(py::str(x.attr("numerator")).cast<std::string>() + "/" +
                          py::str(x.attr("denominator")).cast<std::string>());
          } else {
            row.push_back(1.5);  // a float: refused by the check (no floats: exactness)
          }
        }
        out.push_back(row);
      }
      return out;
    }
  }
  return refuse();
}

// The analysis options of a call: each keyword through the option table;
// an unknown one (a misspelling) is an InputError listing the valid ones.
inline SepOptions py_sep_options(const py::dict& kw) {
  SepOptions so;
  for (auto [k, v] : kw) {
    const std::string name = py::str(k).cast<std::string>();
    if (v.is_none()) continue;  // None: the default
    const OptionSpec* o = find_option(name);
    if (!o || !(o->scope & kPython)) {
      set_option(so, name, nullptr, Spelling::python, kPython);  // throws, listing the names
      continue;
    }
    set_option(so, *o, py_option(*o, v), Spelling::python);
  }
  return so;
}

// A library message as Python spells it: each CLI flag `--name` (the CLI
// spelling of the option table, or of make's, bounds', check's and table's
// flags) becomes the keyword `name=` a Python caller types; `renamed` maps
// the flags whose keyword differs (the default: make's --range, check's
// --filter). Messages name what the caller gave, in either front end.
inline std::string python_spelling(const std::string& msg, const std::map<std::string, std::string>& renamed = {
                                                               {"range", "weight_range"}, {"filter", "match"}}) {
  std::string out;
  for (std::size_t i = 0; i < msg.size();) {
    const bool flag = msg.compare(i, 2, "--") == 0 && i + 2 < msg.size() && std::islower(static_cast<unsigned char>(msg[i + 2])) &&
                      (i == 0 || !(std::isalnum(static_cast<unsigned char>(msg[i - 1])) || msg[i - 1] == '-'));
    if (!flag) {
      out += msg[i++];
      continue;
    }
    std::size_t j = i + 2;
    while (j < msg.size() && (std::islower(static_cast<unsigned char>(msg[j])) ||
                              std::isdigit(static_cast<unsigned char>(msg[j])) || msg[j] == '-'))
      ++j;
    while (msg[j - 1] == '-') --j;
    std::string name = msg.substr(i + 2, j - i - 2);
    std::replace(name.begin(), name.end(), '-', '_');
    const OptionSpec* o = find_option(name);
    const auto r = renamed.find(name);
    out += o ? option_spelling(*o, Spelling::python) : (r != renamed.end() ? r->second : name) + "=";
    i = j;
  }
  return out;
}

// Keyword arguments read one by one with their types; finish() refuses the
// ones nobody read (misspellings), naming them and the accepted names.
class Args {
 public:
  Args(py::dict d, std::string fn) : d_(std::move(d)), fn_(std::move(fn)) {}
  bool has(const char* k) const { return d_.contains(k) && !d_[k].is_none(); }
  // Marks k as known (its value is read elsewhere, e.g. through the option table).
  void mark(const char* k) { seen_.insert(k); }
  std::uint64_t count(const char* k, std::uint64_t lo, std::uint64_t hi, std::uint64_t def) {
    seen_.insert(k);
    if (!has(k)) return def;
    const nlohmann::json j = py_integer(d_[k]);
    if (j.is_null() || j.is_string() || (j.is_number_integer() && !j.is_number_unsigned() && j.get<std::int64_t>() < 0) ||
        j.get<std::uint64_t>() < lo || j.get<std::uint64_t>() > hi)
      throw InputError(fn_ + ": " + k + "=: expected a whole number in [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "], got " + py_repr(d_[k]));
    return j.get<std::uint64_t>();
  }
  bool flag(const char* k, bool def) {
    seen_.insert(k);
    if (!has(k)) return def;
    if (!PyBool_Check(d_[k].ptr()))
      throw InputError(fn_ + ": " + k + "=: expected True or False, got " + py_repr(d_[k]));
    return d_[k].ptr() == Py_True;
  }
  std::string text(const char* k, const std::string& def) {
    seen_.insert(k);
    if (!has(k)) return def;
    if (!py::isinstance<py::str>(d_[k])) throw InputError(fn_ + ": " + k + "=: expected a str, got " + py_repr(d_[k]));
    return d_[k].cast<std::string>();
  }
  // A list of whole numbers (or one) as the CLI's text "1,2,3".
  std::string counts(const char* k, const std::string& def) {
    seen_.insert(k);
    if (!has(k)) return def;
    py::handle v = d_[k];
    std::string out;
    auto one = [&](py::handle x) {
      const nlohmann::json j = py_integer(x);
      if (j.is_null() || j.is_string() || (j.is_number_integer() && !j.is_number_unsigned() && j.get<std::int64_t>() < 0))
        throw InputError(fn_ + ": " + k + "=: expected whole numbers >= 0, got " + py_repr(v));
      out += (out.empty() ? "" : ",") + std::to_string(j.get<std::uint64_t>());
    };
    if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v) || py::isinstance(v, py::module_::import("builtins").attr("range"))) {
      for (py::handle x : v) one(x);
      if (out.empty()) throw InputError(fn_ + ": " + k + "=: expected at least one value");
    } else {
      one(v);
    }
    return out;
  }
  void finish() const {
    for (auto [k, v] : d_) {
      const std::string name = py::str(k).cast<std::string>();
      if (!seen_.count(name)) {
        std::string list;
        for (const auto& s : seen_) list += (list.empty() ? "" : ", ") + s;
        throw InputError(fn_ + ": unknown keyword '" + name + "' (expected one of " + list + ")");
      }
    }
  }

 private:
  py::dict d_;
  std::string fn_;
  std::set<std::string> seen_;
};

}  // namespace netpoly::python
