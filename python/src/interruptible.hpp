// Long calls of the Python module: the work runs on a worker thread with the
// GIL released, under a context made from the call's options (budget,
// max_memory, threads); the calling thread polls Python's signal handlers and
// shows progress, and Ctrl-C cancels the work through the context and raises
// KeyboardInterrupt within a fraction of a second (a worker inside a long step
// that polls only when it ends is left to stop on its own; the interpreter's
// exit waits for it).
#pragma once
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "netpoly/context.hpp"
#include "netpoly/error.hpp"
#include "netpoly/parallel.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::python {

namespace py = pybind11;

// ------------------------------------------------------------------ limits, progress and Ctrl-C
// The context of one call, from its options (budget, max_memory, threads).
inline AnalysisContext context_for(const SepOptions& o, std::shared_ptr<std::atomic<bool>> cancel,
                                   std::shared_ptr<std::pair<std::mutex, std::string>> line) {
  AnalysisContext c;
  const auto start = std::chrono::steady_clock::now();
  const double budget = o.budget;
  c.budget_left = [start, budget] {
    return budget - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  c.max_memory_bytes = o.max_memory > 0 ? o.max_memory : default_memory_limit();
  c.memory_default = o.max_memory <= 0;
  c.resident_bytes = [] { return netpoly::resident_bytes(); };
  set_thread_count(o.threads);
  c.threads = thread_count();
  c.cancelled = [cancel] { return cancel->load(); };
  c.progress = [line](const std::string& s) {
    std::lock_guard<std::mutex> g(line->first);
    line->second = s;
  };
  return c;
}

// Workers still running after the call that started them returned (Ctrl-C
// handed back what they had without waiting for them): the interpreter's exit
// waits for them (wait_for_stopped_work), so that none runs while the process
// tears down the library it uses.
struct Strays {
  std::mutex mu;
  std::condition_variable cv;
  int running = 0;
};
inline Strays& strays() {
  static Strays* s = new Strays;  // never destroyed: a stray may end after static destructors began
  return *s;
}

// How long Ctrl-C waits for the work to reach its next cancellation poll
// before handing back what it has (a long step, such as a rank of a large
// matrix mod p, polls only when it ends): the CLI's stop is about as fast.
constexpr auto kStopWait = std::chrono::milliseconds(300);

// Runs f(context) on a worker thread; Ctrl-C sets the cancel flag and raises
// KeyboardInterrupt (Interrupted, through the translator below) unless f
// returned (an interrupted f that keeps partial results returns normally with
// them). With `detachable`, f owns everything it reads (it captures no
// reference to the caller's frame) and Ctrl-C waits at most kStopWait for it:
// a worker still in a long step is left to stop at its next poll, and the
// caller reads what it handed over so far (under its own lock). Otherwise the
// call waits for f to stop. `progress` (a Python callable or None) is called
// with each new progress line, from this thread, with the GIL held.
template <class F>
auto interruptible(const SepOptions& o, py::object progress, F&& f, bool detachable = false)
    -> decltype(f(std::declval<const AnalysisContext&>())) {
  using R = decltype(f(std::declval<const AnalysisContext&>()));
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto line = std::make_shared<std::pair<std::mutex, std::string>>();
  auto ctx = std::make_shared<const AnalysisContext>(context_for(o, cancel, line));
  auto task = std::make_shared<std::packaged_task<R()>>([ctx, fn = std::forward<F>(f)]() mutable { return fn(*ctx); });
  std::future<R> fut = task->get_future();
  {
    std::lock_guard<std::mutex> g(strays().mu);
    ++strays().running;
  }
  std::thread([task] {
    (*task)();
    std::lock_guard<std::mutex> g(strays().mu);
    --strays().running;
    strays().cv.notify_all();
  }).detach();
  bool interrupted = false;
  std::chrono::steady_clock::time_point stopped;
  std::string shown;
  {
    py::gil_scoped_release release;
    while (fut.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
      if (interrupted) {
        if (detachable && std::chrono::steady_clock::now() - stopped >= kStopWait) break;
        continue;
      }
      py::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) {
        interrupted = true;
        stopped = std::chrono::steady_clock::now();
        cancel->store(true);
        PyErr_Clear();
        continue;
      }
      std::string now;
      {
        std::lock_guard<std::mutex> g(line->first);
        now = line->second;
      }
      if (!progress.is_none() && now != shown) {
        shown = now;
        try {
          progress(now);
        } catch (const py::error_already_set&) {
          PyErr_Clear();  // a display that fails must not stop the analysis
        }
      }
    }
  }
  if (!progress.is_none() && !shown.empty()) {
    try {
      progress(py::none());  // done: the display may close
    } catch (const py::error_already_set&) {
      PyErr_Clear();
    }
  }
  if (fut.wait_for(std::chrono::seconds(0)) != std::future_status::ready) throw Interrupted("interrupted");
  return fut.get();  // Interrupted becomes KeyboardInterrupt (the translator below)
}

// At the interpreter's exit: waits (at most `seconds`) for the workers that
// Ctrl-C left to stop; whether none runs any more.
inline bool wait_for_stopped_work(double seconds) {
  py::gil_scoped_release release;
  std::unique_lock<std::mutex> g(strays().mu);
  return strays().cv.wait_for(g, std::chrono::duration<double>(seconds), [] { return strays().running == 0; });
}

}  // namespace netpoly::python
