#pragma once
/// Where `merlin status` and `detailed-status` read a broker study's progress from when the
/// broker configured now (app.yaml, MERLIN_BROKER_URL, --broker) may not be the one the study
/// was queued on (run.env's `broker_at=`, recorded masked): `merlin server start` rewrote
/// app.yaml, or another URL was exported. In order:
///  1. the recorded broker is the configured one (the same server, whichever ACL user), and it
///     knows the study: read it there;
///  2. else the recorded broker, when it can be reached with what run.env keeps (a URL without
///     a password) and knows the study: read it there;
///  3. else, for a study run.env marks finished (`finished=1`): the workspace's task journals,
///     which hold every commit of it;
///  4. else refuse, naming both brokers and how to point merlin at the study's.
/// Never a table of INITIALIZED tasks read from a broker that has no record of the study.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "merlin/core/broker/backend.h"
#include "merlin/core/broker/broker_location.h"
#include "merlin/core/broker/broker_provider.h"
#include "merlin/run/prepared_study.h"
#include "merlin/run/run_record.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

/// Opens the backend of a location without contacting it (the CLI's open_backend).
using BackendOpener = std::function<Result<std::unique_ptr<Backend>>(const BrokerLocation&)>;

struct StatusSource {
  /// The broker that holds the study's progress; null: read the workspace's task journals.
  std::unique_ptr<Backend> backend;
  BrokerLocation loc;  ///< that broker (meaningless without a backend)
  /// One line for stderr when the answer does not come from the configured broker ("": it
  /// does). Names both brokers, never a password.
  std::string note;
};

/// Chooses as the header says. `configured`: the broker merlin is pointed at now; `providers`
/// read the recorded URL back; `open`:
/// makes a backend for a location. The recorded broker is tried without retrying (a server
/// that is not there fails at once). Errors: kRuntime naming both brokers when the study is in
/// neither and not finished; a broker's own error when the configured broker (which is also
/// the recorded one) cannot be read.
Result<StatusSource> open_status_source(const std::string& workspace, const RunRecord& record,
                                        const BrokerLocation& configured,
                                        const BrokerProviders& providers,
                                        const BackendOpener& open);

/// Per-instance progress from every task journal of the workspace: the local run's and each
/// worker's in merlin_info/tasks/ (a success recorded after a failure replaces it).
Result<std::vector<InstanceProgress>> task_journals_progress(const PreparedStudy& study);

}  // namespace merlin::run
