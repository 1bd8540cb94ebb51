#include "merlin/run/study_recovery.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <thread>

#include "adapters/broker/local/local_state_store.h"
#include "merlin/run/progress.h"
#include "merlin/run/progress_totals.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/process_info.h"
#include "merlin/core/workspace/journal.h"
#include "merlin/core/workspace/task_journals.h"

namespace merlin::run {
namespace {

namespace fs = std::filesystem;

// "<name>_YYYYMMDD-HHMMSS", as prepare_study names a workspace.
bool is_workspace_name(const std::string& dir, const std::string& name) {
  if (dir.size() != name.size() + 16 || dir.compare(0, name.size(), name) != 0) return false;
  if (dir[name.size()] != '_' || dir[name.size() + 9] != '-') return false;
  for (std::size_t i = name.size() + 1; i < dir.size(); ++i)
    if (i != name.size() + 9 && (dir[i] < '0' || dir[i] > '9')) return false;
  return true;
}

// Workspaces under `output_path` queued on the broker `display` that it does not know
// (`known` keys) and that never finished.
std::vector<LostStudy> forgotten_workspaces(const std::string& output_path, const std::string& name,
                                            const std::string& display,
                                            const std::set<std::string>& known) {
  std::vector<LostStudy> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(output_path, ec)) {
    const std::string dir = e.path().filename().string();
    if (!is_workspace_name(dir, name) || known.count(dir)) continue;
    const std::string ws = e.path().string();
    if (!is_broker_workspace(ws)) continue;
    auto rec = read_run_record(ws);
    if (!rec || rec->broker_at != display || rec->finished) continue;
    LostStudy l;
    l.key = dir;
    l.workspace = ws;
    out.push_back(std::move(l));
  }
  std::sort(out.begin(), out.end(),
            [](const LostStudy& a, const LostStudy& b) { return a.key < b.key; });
  return out;
}

}  // namespace

std::string LostStudy::describe(const std::string& where) const {
  std::string what =
      registered ? std::to_string(total - done) + " of " + std::to_string(total) +
                       " tasks are unfinished and none is queued, reserved or delayed on " + where
                 : "the broker at " + where + " has no record of it and it never finished";
  return "study " + key + " lost its work: " + what + "; `merlin restart " + workspace +
         "` queues the unfinished tasks again (the workspace's markers say which)";
}

void sleep_wait(std::chrono::milliseconds how_long) { std::this_thread::sleep_for(how_long); }

std::vector<LostStudy> confirm_lost(std::vector<LostStudy> suspects,
                                    const std::vector<bool>& purged,
                                    const std::vector<bool>& still_zero) {
  std::vector<LostStudy> lost;
  for (std::size_t i = 0; i < suspects.size(); ++i) {
    if (!still_zero.empty() && !still_zero[i]) continue;  // work showed up: not lost
    if (i < purged.size() && purged[i]) continue;         // `merlin purge` removed it on purpose
    lost.push_back(std::move(suspects[i]));
  }
  return lost;
}

Result<std::vector<LostStudy>> find_lost_studies(Backend& backend, const std::string& name,
                                                 const std::string& output_path, const Wait& wait) {
  StudyRegistry& studies = backend.studies();
  auto registered = studies_named(studies, name);
  if (!registered) return registered.error();
  std::vector<LostStudy> suspects;
  std::vector<bool> purged;
  std::set<std::string> known;
  for (const auto& r : *registered) {
    known.insert(r.key);
    // Pending first: once it reads 0 nothing is in flight, so counters read after it that
    // still say unfinished mean lost work, not work about to be published.
    auto pending = studies.pending(r.key);
    if (!pending) return pending.error();
    if (*pending > 0) continue;
    auto progress = backend.store(r.key)->progress();
    if (!progress) return progress.error();
    LostStudy l;
    l.key = r.key;
    l.workspace = r.workspace;
    l.registered = true;
    const auto totals = totals_of(*progress);
    l.done = totals.done;
    l.total = totals.total;
    if (l.done == l.total) {
      auto m = mark_study_finished(r.workspace);
      (void)m;  // a workspace we cannot write to is reported by whoever serves it
      continue;
    }
    suspects.push_back(std::move(l));
    purged.push_back(r.purged);
  }
  // A broker that cannot count a message between a worker's take and its record of it
  // (it declares lost_recheck) may read zero for that moment: lost only if it still reads zero
  // well after.
  std::vector<bool> still_zero;
  if (const auto recheck = backend.lost_recheck(); recheck.count() > 0 && !suspects.empty()) {
    wait(recheck);
    for (const auto& l : suspects) {
      auto again = studies.pending(l.key);
      if (!again) return again.error();
      still_zero.push_back(*again == 0);
    }
  }
  auto lost = confirm_lost(std::move(suspects), purged, still_zero);
  auto forgotten = forgotten_workspaces(output_path, name, backend.location(), known);
  lost.insert(lost.end(), forgotten.begin(), forgotten.end());
  return lost;
}

namespace {

// A lean workspace without markers (docs/lean-workspace.md): the tasks its task journals record
// as successful, per instance a bit per sample of `counts`.
Result<std::vector<std::vector<bool>>> journal_successes(const PreparedStudy& s,
                                                         const std::vector<std::uint64_t>& counts) {
  std::vector<std::vector<bool>> done(counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] != kCountUnknown) done[i].assign(counts[i], false);
  auto journals = study_journals(s.tokens.info_dir);
  if (!journals) return journals.error();
  const auto instances = static_cast<std::uint32_t>(counts.size());
  for (const auto& path : *journals) {
    auto n = read_journal(path, instances, [&](const JournalRecord& r) {
      if (r.outcome != Outcome::kSuccess || r.instance.v >= done.size()) return;
      auto& bits = done[r.instance.v];
      if (r.sample < bits.size()) bits[r.sample] = true;
    });
    if (!n) return n.error();
  }
  return done;
}

// Whether the workspace says task (`i`, `sample`) succeeded: its MERLIN_FINISHED marker, or with
// `journaled` (a lean workspace without markers) its journal's record.
bool marked_done(const PreparedStudy& s, const std::vector<std::vector<bool>>* journaled,
                 std::uint32_t i, SampleId sample) {
  if (journaled) return (*journaled)[i][sample];
  return files::exists(s.renderer->task_dir(InstanceId{i}, sample) + "/MERLIN_FINISHED");
}

}  // namespace

Result<RebuildReport> rebuild_from_markers(PreparedStudy& s, Backend& backend, bool progress) {
  if (!s.renderer) return Error::runtime("rebuild_from_markers: the samples are not open");
  StudyEnqueue st = study_enqueue_of(s);
  // What is done is decided on an in-process store from the markers, then written to the
  // broker with the study's registration at once, as `merlin run` queues a new study.
  // A fan-out instance expanded before (its copy exists) has its rows; the others stay
  // unknown and are expanded when released.
  const FanoutTables& fanout = s.renderer->fanout();
  for (std::uint32_t i = 0; i < st.counts.size(); ++i)
    if (st.counts[i] == kCountUnknown && fanout.expanded(InstanceId{i}))
      if (auto rows = fanout.expand(InstanceId{i})) st.counts[i] = *rows;
  LocalStateStore markers(st.counts);
  const bool from_journals =
      s.spec.layout == spec::WorkspaceLayout::kLean && !s.spec.finished_markers;
  std::vector<std::vector<bool>> journaled;
  if (from_journals) {
    auto j = journal_successes(s, st.counts);
    if (!j) return j.error();
    journaled = std::move(*j);
  }
  RebuildReport report;
  report.tasks = s.graph->total_tasks();
  // One stat per task: ~2.4 µs each with a warm cache, ~70 µs cold on a VM's disk, so a
  // progress line every few seconds on large studies.
  std::unique_ptr<Progress> line;
  if (progress)
    line =
        progress_on(stderr, "reading markers: ", std::chrono::seconds(1), std::chrono::seconds(3));
  std::uint64_t looked = 0;
  for (std::uint32_t i = 0; i < st.counts.size(); ++i) {
    std::string bitmap;
    std::uint64_t done = 0;
    if (st.counts[i] == kCountUnknown) {
      st.remaining.push_back(kCountUnknown);
      continue;
    }
    for (SampleId sample = 0; sample < st.counts[i]; ++sample) {
      if (line && ++looked % 4096 == 0) line->update(looked, report.tasks);
      if (!marked_done(s, from_journals ? &journaled : nullptr, i, sample)) continue;
      auto c = markers.commit(InstanceId{i}, sample, Outcome::kSuccess, 0);
      if (!c) return c.error();
      if (bitmap.empty()) bitmap.assign((st.counts[i] + 7) / 8, '\0');
      bitmap[sample / 8] = static_cast<char>(bitmap[sample / 8] | (0x80 >> (sample % 8)));
      ++done;
    }
    st.remaining.push_back(st.counts[i] - done);
    report.done += done;
    if (done > 0) st.done.emplace_back(i, std::move(bitmap));
  }
  if (line) line->finish();
  auto added = add_ready_messages(st, *s.graph, markers, &fanout);
  if (!added) return added.error();
  report.messages = st.messages.size();
  StudyRegistry& studies = backend.studies();
  auto gone =
      studies.forget(st.record.key);  // whatever is left of it: the markers are the record now
  if (!gone) return gone.error();
  auto w = record_broker(s.tokens.workspace, backend.kind().str(), backend.location());
  if (!w) return w.error();
  auto q = studies.enqueue(st);
  if (!q) return q.error();
  return report;
}

Result<std::uint64_t> commit_marked_tasks(const PreparedStudy& s, StateStore& store,
                                          bool progress) {
  if (!s.renderer) return Error::runtime("commit_marked_tasks: the samples are not open");
  auto before = store.progress();
  if (!before) return before.error();
  const bool from_journals =
      s.spec.layout == spec::WorkspaceLayout::kLean && !s.spec.finished_markers;
  std::vector<std::vector<bool>> journaled;
  if (from_journals) {
    std::vector<std::uint64_t> counts;
    for (const auto& p : *before) counts.push_back(p.count_known ? p.total : kCountUnknown);
    auto j = journal_successes(s, counts);
    if (!j) return j.error();
    journaled = std::move(*j);
  }
  std::uint64_t unfinished = 0;
  for (const auto& p : *before)
    if (p.count_known && !p.finished()) unfinished += p.total - p.done;
  std::unique_ptr<Progress> line;
  if (progress && unfinished > 0)
    line =
        progress_on(stderr, "reading markers: ", std::chrono::seconds(1), std::chrono::seconds(3));
  std::uint64_t committed = 0, looked = 0;
  for (std::uint32_t i = 0; i < before->size(); ++i) {
    const InstanceProgress& p = (*before)[i];
    // A tuned instance's commits decide promotions from a result the marker does not hold.
    if (!p.count_known || p.finished() || s.graph->step_of(InstanceId{i}).tune) continue;
    // The done bitmap in one read; a store that cannot list samples is asked per sample.
    auto bits = store.sample_bits(InstanceId{i});
    for (SampleId sample = 0; sample < p.total; ++sample) {
      if (bits) {
        if (bits->is_done(sample)) continue;
      } else {
        auto done = store.is_done(InstanceId{i}, sample);
        if (!done) return done.error();
        if (*done) continue;
      }
      if (line && ++looked % 4096 == 0) line->update(looked, unfinished);
      if (!marked_done(s, from_journals ? &journaled : nullptr, i, sample)) continue;
      auto c = store.commit(InstanceId{i}, sample, Outcome::kSuccess, 0);
      if (!c) return c.error();
      if (c->newly_done) ++committed;
    }
  }
  if (line) line->finish();
  return committed;
}

}  // namespace merlin::run
