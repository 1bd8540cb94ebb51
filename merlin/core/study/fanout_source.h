#pragma once
/// What the Plan reads that steps wrote (docs/fanout.md): the samples of a fan-out step
/// (`samples_from`) when it is released, and a loop decider's verdict. Behind an interface so
/// that the Plan's decisions are tested with a fake and the file I/O lives in FanoutTables.
#include <cstdint>

#include "merlin/core/study/ids.h"
#include "merlin/core/study/sample_hierarchy.h"
#include "merlin/core/util/result.h"

namespace merlin {

class FanoutSource {
 public:
  virtual ~FanoutSource() = default;
  /// Expands a fan-out instance: its number of sample rows. The first call that succeeds fixes
  /// the rows (a copy every later call, worker and restart reads); later calls return the same
  /// count, so calling it again after redelivery or restart is harmless. Errors (kBadInput)
  /// say why the step cannot run, naming the step and the file. Thread-safe.
  virtual Result<std::uint64_t> expand(InstanceId instance) const = 0;
  /// The directory hierarchy of an expanded instance's samples (a single sample's when it is
  /// not expanded). Thread-safe.
  virtual SampleHierarchy hierarchy(InstanceId instance) const = 0;
  /// True when the loop decider instance `decider` (finished) asked for another iteration: it
  /// left the file `MERLIN_LOOP_AGAIN` in its directory. Thread-safe.
  virtual bool loop_again(InstanceId decider) const = 0;
};

}  // namespace merlin
