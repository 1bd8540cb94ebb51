#include "workers/journaled_store.h"

#include "merlin/core/util/log.h"

namespace merlin {

Result<CommitResult> JournaledStore::commit(InstanceId instance, SampleId sample,
                                            Outcome outcome, double seconds) {
  auto c = inner_.commit(instance, sample, outcome, seconds);
  if (c && c->newly_done) append({instance, sample, outcome, static_cast<float>(seconds)});
  return c;
}

Result<CommitResult> JournaledStore::commit_trial(InstanceId instance, SampleId task,
                                                  Outcome outcome, double seconds, double value) {
  auto c = inner_.commit_trial(instance, task, outcome, seconds, value);
  if (c && c->newly_done) append({instance, task, outcome, static_cast<float>(seconds)});
  return c;
}

void JournaledStore::started(InstanceId instance, SampleId sample) {
  JournalRecord r{instance, sample};
  r.started = true;
  append(r);
}

void JournaledStore::append(const JournalRecord& r) {
  auto a = journal_.append(r);
  if (!a && !warned_.exchange(true))
    log::warn(
        "cannot write this worker's task journal error=\"{}\"; tasks run and are committed as "
        "before, but detailed-status will not show this worker's details",
        a.error().message);
}

}  // namespace merlin
