#include "merlin/run/collect_run.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <thread>

#include "merlin/core/data/output_reader.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/log.h"
#include "merlin/run/bounded_queue.h"
#include "merlin/run/collect_iterations.h"
#include "merlin/run/collect_plan.h"
#include "merlin/run/collect_writer.h"
#include "merlin/run/local_run.h"
#include "merlin/run/prepared_study.h"
#include "merlin/run/progress.h"
#include "merlin/run/run_record.h"
#include "merlin/run/sample_outcomes.h"

namespace merlin::run {
namespace fs = std::filesystem;
using data::SampleStatus;

namespace {

constexpr std::uint64_t kClaim = 64;  // samples a reader takes at a time
constexpr std::chrono::seconds kGoneAfter{5};

// What the study, step and output say before any sample is read, and the iterations found
// so far. Reader threads read it while the collect's thread only waits for them.
struct Setup {
  std::unique_ptr<PreparedStudy> study;
  const StepNode* node = nullptr;
  bool iterated = false;         ///< in a loop or fan-out: keys are (iteration, sample) pairs
  std::uint32_t iterations = 1;  ///< the loop's bound (1 outside loops)
  collect::KeySpace keys;        ///< a step of one iteration: key = sample id
  std::vector<const samples::SampleTable*> tables;  ///< per part of `keys`: its inputs
  std::vector<bool> warned_no_table;                ///< per iteration - 1
  std::vector<collect::OutputFile> files;
  data::DatasetLayout base;  ///< without fields
  data::DatasetOrigin origin;

  const collect::Part& part(std::uint64_t key) const { return keys.parts()[keys.part_index(key)]; }
  std::string dir_of(std::uint64_t key) const {
    const auto& p = part(key);
    return study->renderer->task_dir(p.instance, key - p.offset);
  }
};

Result<void> check_output(const std::string& output) {
  fs::path p(output);
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Error::bad_input(output + ": no directory " + dir.string() + " to write it in");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return Error::bad_input(output + ": cannot write in " + dir.string() + ": " +
                            std::strerror(errno));
  if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))
    return Error::bad_input(output + ": there is something there that is not a file");
  return ok();
}

Result<Setup> set_up(const CollectOptions& o, const std::string& cwd) {
  Setup s;
  auto files = collect::output_files(o.files);
  if (!files) return files.error();
  s.files = std::move(*files);
  if (auto r = check_output(o.output); !r) return r.error();
  std::error_code ec;
  if (!fs::is_directory(o.workspace, ec) || !fs::exists(fs::path(o.workspace) / "merlin_info", ec))
    return Error::bad_input(o.workspace + ": not a study workspace (no merlin_info/ there)");
  auto po = reopen_options(o.workspace, cwd);
  if (!po) return po.error();
  auto study = prepare_study(*po);
  if (!study) return study.error();
  s.study = std::move(*study);
  const StudyGraph& g = *s.study->graph;
  auto node = collect::collectable_step(g, o.step);
  if (!node) return node.error();
  s.node = *node;
  s.iterated = s.node->fanout || s.node->loop >= 0;
  s.iterations = s.node->loop >= 0 ? g.loops()[s.node->loop].iterations : 1;
  s.warned_no_table.assign(s.iterations, false);
  s.base.step = o.step;
  s.base.iterations = s.iterated;
  for (const auto& f : s.files) s.base.files.push_back(f.name);
  const auto* table = s.study->table.get();
  if (s.node->fanout) {
    // The step's own columns: every iteration's table has them (checked at its expansion).
    s.base.input_columns = s.node->spec->run.samples_from->column_labels;
  } else {
    const auto& labels =
        s.study->spec.samples ? s.study->spec.samples->column_labels : std::vector<std::string>{};
    for (std::size_t c = 0; table && c < table->columns(); ++c)
      s.base.input_columns.push_back(c < labels.size() ? labels[c] : "column" + std::to_string(c));
  }
  if (!s.iterated) {
    s.keys.add(1, s.node->first_instance, g.instance(s.node->first_instance).count);
    s.tables.push_back(table);
  }
  s.origin.study = s.study->tokens.study_name;
  s.origin.workspace = fs::absolute(o.workspace).lexically_normal().string();
  auto text = files::read(po->spec_path);
  s.origin.spec_text = text ? *text : "";
  for (const auto& [k, v] : po->vars)
    s.origin.vars += (s.origin.vars.empty() ? "" : " ") + k + "=" + v;
  return s;
}

// One sample's files, read and parsed (a reader thread's work). A failed sample's files are
// not read; the first file missing or malformed decides the sample's status.
SampleRead read_sample(const Setup& s, const SampleOutcomes& outcomes, std::uint64_t id,
                       std::uint64_t max_bytes) {
  SampleRead r;
  r.id = id;
  if (!outcomes.succeeded[id]) {
    r.status = SampleStatus::kFailed;
    r.problem = "the step failed for this sample (its journal says so)";
    return r;
  }
  const std::string dir = s.dir_of(id) + "/";
  std::string text;
  for (const auto& f : s.files) {
    if (auto got = data::read_output_file(dir + f.name, max_bytes, text);
        got.status != SampleStatus::kOk) {
      r.status = got.status;
      r.problem = f.name + ": " + got.problem;
      r.fields.clear();
      return r;
    }
    if (auto p = data::parse_output(f.kind, f.stem, text, r.fields); !p) {
      r.status = SampleStatus::kMalformed;
      r.problem = f.name + ": " + p.error().message;
      r.fields.clear();
      return r;
    }
  }
  return r;
}

// What one round reads of the study's records: the samples finished (and succeeded) by key,
// and whether iterations may still bring rows. A loop or fan-out step's iterations found
// released now are added to `s.keys` (with their tables); a step of one iteration reads its
// instance's outcomes as it always did.
struct Observed {
  SampleOutcomes outcomes;
  bool more_to_come = false;
};

Result<Observed> observe(Setup& s, std::uint32_t instances, CollectSummary& sum) {
  Observed ob;
  const std::string& info_dir = s.study->tokens.info_dir;
  if (!s.iterated) {
    auto out = read_sample_outcomes(info_dir, instances, s.node->first_instance, s.keys.size());
    if (!out) return out.error();
    ob.outcomes = std::move(*out);
    return ob;
  }
  const StudyGraph& g = *s.study->graph;
  const FanoutTables& fanout = s.study->renderer->fanout();
  const StepNode* decider = s.node->loop >= 0 ? &g.step(g.loops()[s.node->loop].decider) : nullptr;
  std::vector<InstanceId> wanted;
  for (std::uint32_t it = 1; it <= s.iterations; ++it) {
    wanted.push_back(g.in_iteration(s.node->id, 0, it));
    for (std::uint32_t k = 0; decider && k < decider->instance_count; ++k)
      wanted.push_back(g.in_iteration(decider->id, k, it));
  }
  const std::uint64_t static_count = s.node->fanout ? 0 : g.instance(s.node->first_instance).count;
  const std::uint64_t max_samples = std::max<std::uint64_t>(
      1, s.node->fanout ? s.node->spec->run.samples_from->max_rows : static_count);
  auto records = read_instance_records(info_dir, instances, wanted, max_samples);
  if (!records) return records.error();
  std::vector<collect::IterationSeen> seen;
  std::vector<collect::IterationRows> rows;
  sum.no_table = 0;
  for (std::uint32_t it = 1; it <= s.iterations; ++it) {
    const InstanceId inst = g.in_iteration(s.node->id, 0, it);
    const InstanceRecords& rec = (*records)[inst.v];
    collect::IterationSeen v;
    v.iteration = it;
    v.recorded = rec.recorded;
    v.journaled = rec.journaled;
    v.finished_any = rec.outcomes.finished_count > 0;
    const samples::SampleTable* table = nullptr;
    std::string why;
    if (s.node->fanout && !s.keys.has(it)) {
      // The copy its tasks were rendered from (merlin_info/fanout/): the rows as it ran them.
      if (auto t = fanout.table(inst)) {
        table = *t;
        v.table_rows = table->rows();
      } else {
        why = t.error().message;
      }
    }
    if (decider) {
      // A finished decider that left no MERLIN_LOOP_AGAIN ended the loop at this iteration.
      bool all = decider->instance_count > 0, again = false;
      for (std::uint32_t k = 0; k < decider->instance_count; ++k) {
        const InstanceId d = g.in_iteration(decider->id, k, it);
        if ((*records)[d.v].outcomes.finished_count == 0)
          all = false;
        else
          again = again || fanout.loop_again(d);
      }
      v.stop_after = all && !again;
    }
    collect::IterationRows r = collect::iteration_rows(v, s.node->fanout, static_count);
    if (s.keys.has(it)) r = {it, collect::IterationState::kRows, 0};  // found in an earlier round
    if (r.state == collect::IterationState::kRows && s.keys.add(it, inst, r.count))
      s.tables.push_back(s.node->fanout ? table : s.study->table.get());
    if (r.state == collect::IterationState::kNoTable) {
      sum.no_table++;
      if (!s.warned_no_table[it - 1]) {
        s.warned_no_table[it - 1] = true;
        log::warn(
            "collect: iteration {} of step {} has no rows: {} (fix the file, then merlin "
            "restart the study and collect again)",
            it, s.node->name, why.empty() ? "its samples were never read" : why);
      }
    }
    seen.push_back(v);
    rows.push_back(r);
  }
  ob.more_to_come = collect::more_to_come(seen, rows);
  sum.iterations = s.keys.parts().size();
  SampleOutcomes& out = ob.outcomes;
  out.finished.assign(s.keys.size(), false);
  out.succeeded.assign(s.keys.size(), false);
  for (const auto& p : s.keys.parts()) {
    const SampleOutcomes& o = (*records)[p.instance.v].outcomes;
    for (std::uint64_t id = 0; id < p.count && id < o.finished.size(); ++id)
      if (o.finished[id]) {
        out.finished[p.offset + id] = true;
        out.succeeded[p.offset + id] = o.succeeded[id];
        out.finished_count++;
      }
  }
  return ob;
}

// The file `o.output` when it exists: its layout must be this collect's, and its rows go into
// `ledger` (appending to it). Null when there is none yet.
Result<std::unique_ptr<data::DatasetSink>> open_existing(const CollectOptions& o,
                                                         data::DatasetFormat& format,
                                                         const Setup& s, collect::Ledger& ledger) {
  std::error_code ec;
  if (!fs::exists(o.output, ec)) return std::unique_ptr<data::DatasetSink>();
  auto opened = format.open(o.output);
  if (!opened) return opened.error();
  if (auto why = collect::layout_mismatch((*opened)->layout(), s.base); !why.empty())
    return Error::bad_input(o.output + ": " + why +
                            "; give another -o (the file is left as it is)");
  // A row of an iteration not found (yet) is ignored, as a row past the step's samples is.
  auto r = (*opened)->for_each_keyed_row(
      [&](std::uint64_t row, std::uint64_t id, std::uint32_t iteration, SampleStatus st) {
        ledger.record_row(row, s.keys.key_of(iteration, id).value_or(~std::uint64_t{0}), st);
      });
  if (!r) return r.error();
  return std::move(*opened);
}

// One round's reading and writing: reader threads take ranges of `todo`'s sample ids and hand
// each sample's outputs through a bounded queue to this thread, which routes them to the
// writer; the writer is flushed at the end. The first writer error closes the queue (the
// readers stop) and is returned.
Result<void> pump_round(const CollectOptions& o, const Setup& s, const SampleOutcomes& outcomes,
                        const std::vector<bool>& todo, CollectWriter& writer,
                        collect::Ledger& ledger, Progress* progress, std::uint64_t& seen,
                        std::uint64_t round_total) {
  const std::uint64_t count = s.keys.size();
  BoundedQueue<SampleRead> queue(o.queue_items);
  std::atomic<std::uint64_t> next{0};
  std::atomic<unsigned> active{std::max(1u, o.threads)};
  std::vector<std::thread> readers;
  for (unsigned t = 0; t < std::max(1u, o.threads); ++t)
    readers.emplace_back([&] {
      for (;;) {
        const std::uint64_t lo = next.fetch_add(kClaim);
        if (lo >= count) break;
        bool open = true;
        for (std::uint64_t id = lo; id < std::min(lo + kClaim, count) && open; ++id)
          if (todo[id]) open = queue.push(read_sample(s, outcomes, id, o.max_output_bytes));
        if (!open) break;
      }
      if (--active == 0) queue.close();
    });
  Result<void> failed = ok();
  while (auto r = queue.pop()) {
    if (!failed) continue;  // drain: the readers stop at the closed queue
    if (const auto to = collect::route_read(ledger, r->id, r->status); to.rewrite)
      failed = writer.rewrite(to.was.row, to.was.was, std::move(*r));
    else
      failed = writer.add(std::move(*r));
    if (!failed) queue.close();
    ++seen;
    if (progress && progress->due()) progress->update(seen, round_total);
  }
  for (auto& t : readers) t.join();
  if (failed) failed = writer.flush();
  if (progress) progress->update(seen, round_total);
  return failed;
}

}  // namespace

Result<CollectSummary> collect_outputs(const CollectOptions& o, data::DatasetFormat& format,
                                       const std::string& cwd) {
  auto setup = set_up(o, cwd);
  if (!setup) return setup.error();
  Setup& s = *setup;
  const StudyGraph& graph = *s.study->graph;
  const std::uint32_t instances = static_cast<std::uint32_t>(graph.instances().size());
  CollectSummary sum;
  sum.output = o.output;
  sum.iterated = s.iterated;
  // The iterations released so far, before the file's rows are matched to them.
  auto observed = observe(s, instances, sum);
  if (!observed) return observed.error();

  // Samples in the file or handed to the writer, and the file's rows to read again.
  collect::Ledger ledger(s.keys.size());
  auto sink = open_existing(o, format, s, ledger);
  if (!sink) return sink.error();
  sum.already = *sink ? (*sink)->rows() : 0;

  const std::size_t columns = s.base.input_columns.size();
  std::uint64_t warned = 0;  // only the writer (this thread) warns
  CollectWriter writer(
      std::move(*sink), s.base,
      [&](const data::DatasetLayout& layout) { return format.create(o.output, layout, s.origin); },
      [&](std::uint64_t key, std::vector<double>& out) {
        const std::size_t i = s.keys.part_index(key);
        const samples::SampleTable* table = s.tables[i];
        const std::uint64_t id = key - s.keys.parts()[i].offset;
        for (std::size_t c = 0; c < columns; ++c)
          out.push_back(table && c < table->columns() ? collect::input_value(table->value(id, c))
                                                      : std::numeric_limits<double>::quiet_NaN());
      },
      [&](const SampleRead& r) {
        if (++warned > o.max_warnings) return;
        const std::string more =
            warned == o.max_warnings ? " (further sample warnings are only counted)" : "";
        const auto& p = s.part(r.id);
        if (s.iterated)
          log::warn("collect: sample {} of iteration {} ({}): {}{}", r.id - p.offset, p.iteration,
                    s.dir_of(r.id), r.problem, more);
        else
          log::warn("collect: sample {} ({}): {}{}", r.id, s.dir_of(r.id), r.problem, more);
      },
      o.batch_rows);
  if (s.iterated)
    writer.row_key = [&](std::uint64_t key) {
      const auto& p = s.part(key);
      return RowKey{key - p.offset, p.iteration};
    };

  auto progress = o.progress ? progress_on(stderr, "collect ", std::chrono::milliseconds(250),
                                           std::chrono::milliseconds(10000))
                             : nullptr;
  const bool local = !is_broker_workspace(o.workspace);
  collect::FollowState follow{~std::uint64_t{0}, std::chrono::steady_clock::now()};
  std::uint64_t seen = 0;  // samples handed to the writer by this collect
  for (bool first_round = true;; first_round = false) {
    if (!first_round) {
      observed = observe(s, instances, sum);
      if (!observed) return observed.error();
    }
    const SampleOutcomes* outcomes = &observed->outcomes;
    const std::uint64_t count = s.keys.size();
    ledger.grow(count);
    const collect::Round round =
        collect::plan_round(ledger, outcomes->finished, outcomes->succeeded, first_round);
    const std::vector<bool>& todo = round.todo;
    sum.unfinished = count - outcomes->finished_count;

    // A new file's fields: those of the lowest sample id whose files all read (never those of
    // whichever reader thread comes first). Reading stops at the first: usually sample 0 (of
    // the first iteration).
    for (std::uint64_t id = 0; id < count && !writer.has_layout(); ++id) {
      if (!todo[id] || !outcomes->succeeded[id]) continue;
      auto made = writer.adopt_layout(read_sample(s, *outcomes, id, o.max_output_bytes));
      if (!made) return made.error();
    }

    // Progress counts this collect's samples; with --follow the unfinished ones are to come.
    const std::uint64_t round_total = seen + round.count + (o.follow ? sum.unfinished : 0);
    Result<void> failed =
        pump_round(o, s, *outcomes, todo, writer, ledger, progress.get(), seen, round_total);
    if (!failed) {
      if (progress) progress->finish();
      return failed.error();
    }
    // Iterations still to come count as one sample more (as status counts an unknown count).
    const auto after = collect::next_round(
        o.follow, local, outcomes->finished_count, count + (observed->more_to_come ? 1 : 0),
        [&] { return !live_running(*s.study).empty(); }, follow, std::chrono::steady_clock::now(),
        kGoneAfter);
    if (after == collect::NextRound::kDone) break;
    if (after == collect::NextRound::kGone) {
      log::warn("collect: no run of {} is alive and {} samples of {} are unfinished; stopping",
                o.workspace, sum.unfinished, o.step);
      break;
    }
    std::this_thread::sleep_for(o.poll);
  }
  if (progress) progress->finish();
  sum.samples = s.keys.size();
  collect::WriterTally tally;
  std::copy(writer.counts(), writer.counts() + 4, tally.counts);
  std::copy(writer.rewritten_counts(), writer.rewritten_counts() + 4, tally.rewritten_counts);
  tally.written = writer.written();
  tally.waiting = writer.waiting();
  tally.rows = writer.sink() ? writer.sink()->rows() : 0;
  tally.rewritten = writer.rewritten();
  return collect::summary_of(std::move(sum), tally);
}

std::string collect_summary_text(const CollectSummary& s) {
  std::string t = "collect: " + std::to_string(s.written) + " rows appended to " + s.output + " (" +
                  std::to_string(s.ok) + " ok, " + std::to_string(s.failed) + " failed, " +
                  std::to_string(s.malformed) + " malformed, " + std::to_string(s.missing) +
                  " missing output); " + std::to_string(s.rows) + " rows in the file, " +
                  std::to_string(s.samples) + " samples in the step";
  if (s.iterated)
    t += "'s " + std::to_string(s.iterations) +
         (s.iterations == 1 ? " iteration so far" : " iterations so far");
  if (s.unfinished) t += ", " + std::to_string(s.unfinished) + " not finished yet";
  if (s.rewritten)
    t += "; " + std::to_string(s.rewritten) + " rows rewritten (" + std::to_string(s.rewritten_ok) +
         " ok now)";
  if (s.no_table)
    t += "; " + std::to_string(s.no_table) +
         (s.no_table == 1 ? " iteration has" : " iterations have") +
         " no rows: the step could not read its samples_from file";
  if (s.unwritten)
    t += "; " + std::to_string(s.unwritten) +
         " finished samples not written: none has readable outputs yet, and a new file takes "
         "its fields from the first that has";
  return t;
}

}  // namespace merlin::run
