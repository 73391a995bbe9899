// One exception hierarchy; each kind carries the process exit code it maps to.
#pragma once
#include <stdexcept>
#include <string>

namespace netpoly {

// A user's text cut for a message: at most n bytes, never inside a UTF-8
// character (a message is printed and written into JSON), "..." when cut.
inline std::string clip(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  std::size_t k = n >= 3 ? n - 3 : 0;
  while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;  // a continuation byte
  return s.substr(0, k) + "...";
}

enum class ExitCode : int {
  ok = 0,
  check_failed = 1,  // a claim or verification did not hold
  input = 2,         // usage and input errors
  limit = 3,         // a resource limit (--max-terms, --max-memory, --budget) was reached
  internal = 70,  // a bug: an exception netpoly did not expect
  interrupted = 130,
};

class Error : public std::runtime_error {
 public:
  Error(const std::string& what, ExitCode code) : std::runtime_error(what), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Malformed files, bad options, values out of range: exit code 2.
class InputError : public Error {
 public:
  explicit InputError(const std::string& what) : Error(what, ExitCode::input) {}
};

// A value cannot be represented in the requested number domain
// (e.g. a weight whose denominator vanishes mod p): exit code 2.
class DomainError : public Error {
 public:
  explicit DomainError(const std::string& what) : Error(what, ExitCode::input) {}
};

// A resource limit was reached before or during work: exit code 3.
class LimitError : public Error {
 public:
  explicit LimitError(const std::string& what) : Error(what, ExitCode::limit) {}
};

// The wall clock's safety net was reached before the work's own limits
// (nominal seconds, terms, points, memory): a statement about the machine
// (too slow, or too loaded), never about the mathematics. A claim that meets
// it is an ERROR, not INCONCLUSIVE (its verdict would have turned on the
// machine's speed); exit code 3. Not a LimitError, so that no analysis takes
// it for one of its own limits and goes on without the work.
class MachineLimit : public Error {
 public:
  explicit MachineLimit(const std::string& what) : Error(what, ExitCode::limit) {}
};

// The caller cancelled the work (Ctrl-C in a library caller): exit code 130.
class Interrupted : public Error {
 public:
  explicit Interrupted(const std::string& what) : Error(what, ExitCode::interrupted) {}
};

// A verification or claim failed: exit code 1.
class CheckFailed : public Error {
 public:
  explicit CheckFailed(const std::string& what) : Error(what, ExitCode::check_failed) {}
};

// A bug: an invariant of netpoly does not hold (never the user's input):
// exit code 70, distinct from a failed check (1) and an input error (2).
class InternalError : public Error {
 public:
  explicit InternalError(const std::string& what) : Error("internal: " + what, ExitCode::internal) {}
};

// A FLINT call reported failure (e.g. exponent overflow in pow): an internal limit.
class FlintFailure : public Error {
 public:
  explicit FlintFailure(const std::string& what) : Error(what, ExitCode::limit) {}
};

}  // namespace netpoly
