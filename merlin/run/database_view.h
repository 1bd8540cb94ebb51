#pragma once
/// `merlin database` (Merlin 2.0's command) answered from what this build already keeps: the
/// broker's study records and progress (a Merlin "run" is one `merlin run`: one workspace; a
/// "study" is every run of one study name), the workers a run's spec defines (Merlin's logical
/// workers: a name and the queues of its steps) and the workers' heartbeats (its physical
/// workers). Pure: the command gathers the records, this groups and prints them in Merlin's
/// layout. Merlin's IDs are UUIDs of its own database; here a study's ID is its name, a run's
/// its workspace's directory name, a logical worker's "<name> [queue,...]" and a physical
/// worker's its heartbeat id "<host>.<pid>.<name>".
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/broker/worker_registry.h"

namespace merlin::run {

/// One `merlin run`: a registered study of the broker.
struct DbRun {
  std::string id;         ///< the workspace's directory name (the broker's study key)
  std::string workspace;  ///< absolute path
  std::string study;      ///< the study's name
  std::vector<std::string> queues;
  std::uint64_t done = 0, total = 0, failed = 0;
  bool progress_known = false;  ///< the broker answered for its progress
  bool complete() const { return progress_known && total > 0 && done >= total; }
};

/// A worker a run's spec defines (`merlin.resources.workers`).
struct DbLogicalWorker {
  std::string name;
  std::vector<std::string> queues;  ///< sorted, unique
  std::vector<std::string> runs;    ///< ids of the runs whose spec defines it
  std::string id() const;           ///< "<name> [q1,q2]"
};

/// Everything `merlin database` shows.
struct DbView {
  std::vector<DbRun> runs;                  ///< oldest first
  std::vector<DbLogicalWorker> logical;     ///< by id
  std::vector<WorkerRecord> physical;       ///< by id
  /// Study names, in the order of their first run.
  std::vector<std::string> studies() const;
  /// The physical workers of a logical one: same name, reading one of its queues.
  std::vector<const WorkerRecord*> instances(const DbLogicalWorker& w) const;
  /// The physical workers serving a run now: reading one of its queues, for its study name.
  std::vector<const WorkerRecord*> serving(const DbRun& r) const;
};

/// Adds `w` as a worker defined by run `run_id`: merged with an equal one (same name, same
/// queues) of other runs.
void add_logical_worker(DbView& view, const std::string& run_id, std::string name,
                        std::vector<std::string> queues);

/// Merlin's `database info` text: the broker's kind, version and address (no password), and
/// the number of each kind of entry.
std::string render_info(const DbView& view, const std::string& kind, const std::string& version,
                        const std::string& address);

/// One entry in Merlin's layout ("Study with ID ...", a rule, "Field: value" lines, a blank
/// line). `now_ms` dates the heartbeats.
std::string render_study(const DbView& view, const std::string& name);
std::string render_run(const DbView& view, const DbRun& run);
std::string render_logical(const DbView& view, const DbLogicalWorker& w);
std::string render_physical(const DbView& view, const WorkerRecord& w, std::int64_t now_ms);

/// What `database get WHAT [IDS...]` selects. Unknown ids are returned in `missing` (each may
/// be an id, or for a run its workspace path, for a physical worker its name).
struct DbSelection {
  std::string text;
  std::vector<std::string> missing;
};
/// WHAT: all-studies, study, all-runs, run, all-logical-workers, logical-worker,
/// all-physical-workers, physical-worker, everything. kBadInput for another word or for ids
/// given to an all-* (or none to a single kind).
Result<DbSelection> select_entries(const DbView& view, const std::string& what,
                                   const std::vector<std::string>& ids, std::int64_t now_ms);

}  // namespace merlin::run
