#pragma once
/// Stops a step asks for with its return code, told to every worker process of a study:
/// MERLIN_HARD_FAIL stops a queue, MERLIN_STOP_WORKERS (`all`) the processes. Ordered by the
/// server, not by the hosts' clocks.
#include <string>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin {

struct StudyHalt {
  std::string queue, step, by;  ///< `by`: the worker id that saw the return code
  bool all = false;
};

class StopChannel {
 public:
  virtual ~StopChannel() = default;
  /// Tells every worker of the study.
  virtual Result<void> halt(const std::string& study_key, const StudyHalt& h) = 0;
  /// The server's clock now, as a mark: a process takes it when it starts and obeys only the
  /// halts after it (new workers resume a stopped queue, as Merlin's do).
  virtual Result<std::string> clock_mark() = 0;
  /// Halts after `mark`, oldest first; advances `mark` past them.
  virtual Result<std::vector<StudyHalt>> halts_since(const std::string& study_key,
                                                     std::string& mark) = 0;
};

}  // namespace merlin
