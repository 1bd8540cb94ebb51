#pragma once
/// The broker-backed mode's shared steps: queue a prepared study in the broker (atomically), find
/// the studies of a spec, reopen a queued study's workspace, and the run.env record that says a
/// workspace belongs to the broker.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "merlin/core/broker/backend.h"
#include "merlin/core/broker/broker_location.h"
#include "merlin/core/broker/state_store.h"
#include "merlin/run/prepared_study.h"
#include "merlin/run/run_record.h"

namespace merlin::run {

/// Loads SPEC with `--vars K=V` strings applied, and its variables substituted in queue,
/// worker and batch text (substitute_resource_tokens): the spec argument of the queue commands.
/// Errors (kBadInput): no spec given, a malformed K=V, any problem of the spec.
Result<spec::LoadedSpec> load_spec_with_vars(const std::string& spec_path,
                                             const std::vector<std::string>& vars);

/// The study-level tokens of a loaded spec outside any workspace (no timestamp): its
/// study_name is the name its studies are registered under; its values substitute variables.
Result<StudyTokens> spec_tokens(const spec::StudySpec& spec);

/// description.name of a spec (after --vars), as the studies it queued are registered.
Result<std::string> spec_study_name(const std::string& spec_path,
                                    const std::vector<std::pair<std::string, std::string>>& vars);

/// Every queue the study's steps use, sorted, once each.
std::vector<std::string> study_queues(const StudyGraph& graph);

struct EnqueueReport {
  std::uint64_t messages = 0, tasks = 0;
  double seconds = 0;  ///< the broker part only
};

/// A study's registration, counts and queues as `StudyRegistry::enqueue` takes them, with no
/// messages yet.
StudyEnqueue study_enqueue_of(const PreparedStudy& s);

/// Adds the messages and release claims that start the study from the progress in `store`
/// (decided by `Plan::ready_at_start`; `store` takes the claims). Fan-out instances it
/// releases (through `fanout`, which may be null when none can be) get their recorded counts
/// in `st.counts` (and `st.remaining`, when given).
Result<void> add_ready_messages(StudyEnqueue& st, const StudyGraph& graph, StateStore& store,
                                const FanoutSource* fanout = nullptr);

/// Queues `s` in `backend` (all or nothing), after recording `broker=` (its kind) and
/// `broker_at=` (its masked location) in merlin_info/run.env.
Result<EnqueueReport> enqueue_study(PreparedStudy& s, Backend& backend);

/// The registered studies whose name is `name`, oldest first.
Result<std::vector<StudyRecord>> studies_named(StudyRegistry& studies, const std::string& name);

/// The studies queued from `spec_path` (by its study name) in `studies`.
Result<std::vector<StudyRecord>> studies_of_spec(
    const std::string& spec_path, const std::vector<std::pair<std::string, std::string>>& vars,
    StudyRegistry& studies);

/// A queued study reopened from its workspace (spec copy, samples copy, tokens);
/// `app_scratch`: app.yaml's `scratch:` for steps with `scratch: auto`.
Result<std::unique_ptr<PreparedStudy>> reopen_study(const std::string& workspace,
                                                    bool open_samples = true,
                                                    const std::string& app_scratch = "");

}  // namespace merlin::run
