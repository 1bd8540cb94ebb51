#pragma once
/// How a run stops, the same for `run --local` and `run-workers`: interrupts (SIGINT, SIGTERM,
/// and SIGUSR1 for workers) are counted by a signal handler that does nothing else, and a
/// control loop turns the count, stop requests and the allocation's end into two steps:
/// drain (running tasks finish and commit, reserved ones go back) and abort (running steps get
/// SIGTERM, then SIGKILL; their tasks go back uncommitted).
#include <atomic>
#include <initializer_list>

namespace merlin::run {

/// The process's interrupt counter and its handler (signals are per process).
class Interrupts {
 public:
  /// Installs the counting handler for `signals` and resets the count.
  static void install(std::initializer_list<int> signals);
  /// Back to the default action for `signals`, and the count to 0: what was counted belonged to
  /// the run that installed the handler, not to the next one (nor to a later test).
  static void uninstall(std::initializer_list<int> signals);
  static int count();
  /// For tests and for a process that serves several runs: counts one more.
  static void raise_one();
};

/// The decisions of a control loop, apart from the signals (unit-tested).
class StopControl {
 public:
  struct Steps {
    bool drain = false;  ///< start draining now (once)
    bool abort = false;  ///< end the running steps now (once)
  };
  /// `interrupts`: the count now; `stop_wanted`: a stop request (stop-workers,
  /// MERLIN_STOP_WORKERS) or the allocation's end. The first interrupt or stop drains; the
  /// second interrupt aborts (and drains, if that had not happened).
  Steps advance(int interrupts, bool stop_wanted);
  bool draining() const { return drained_; }
  bool aborted() const { return aborted_; }

 private:
  bool drained_ = false, aborted_ = false;
};

}  // namespace merlin::run
