#include "merlin/run/collect_run.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <thread>

#include "merlin/core/data/chunking.h"
#include "merlin/core/data/output_reader.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/log.h"
#include "merlin/run/bounded_queue.h"
#include "merlin/run/collect_plan.h"
#include "merlin/run/collect_sources.h"
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

// What the study, step and output say before any sample is read, and where its rows come
// from (the iterations found so far).
struct Setup {
  std::unique_ptr<PreparedStudy> study;
  std::unique_ptr<CollectSources> src;
  std::vector<collect::OutputFile> files;
  data::DatasetLayout base;  ///< without fields
  data::DatasetOrigin origin;
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
  s.src = std::make_unique<CollectSources>(*s.study, **node);
  s.base.step = o.step;
  s.base.iterations = s.src->iterated();
  s.base.compression = o.compression;
  for (const auto& f : s.files) s.base.files.push_back(f.name);
  const auto* table = s.study->table.get();
  if ((*node)->fanout) {
    // The step's own columns: every iteration's table has them (checked at its expansion).
    s.base.input_columns = (*node)->spec->run.samples_from->column_labels;
  } else {
    const auto& labels =
        s.study->spec.samples ? s.study->spec.samples->column_labels : std::vector<std::string>{};
    for (std::size_t c = 0; table && c < table->columns(); ++c)
      s.base.input_columns.push_back(c < labels.size() ? labels[c] : "column" + std::to_string(c));
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
// `parent` holds the directory above the sample's (the reading thread's own).
SampleRead read_sample(const Setup& s, const SampleOutcomes& outcomes, std::uint64_t id,
                       std::uint64_t max_bytes, data::HeldDirectory& parent) {
  SampleRead r;
  r.id = id;
  if (!outcomes.succeeded[id]) {
    r.status = SampleStatus::kFailed;
    r.problem = "the step failed for this sample (its journal says so)";
    return r;
  }
  // The files are looked up from the parent directory, held open across the samples below it.
  std::string dir = s.src->dir_of(id);
  int at = AT_FDCWD;
  if (const auto cut = dir.rfind('/'); cut != std::string::npos && cut > 0) {
    if (const int fd = parent.open(dir.substr(0, cut)); fd >= 0) {
      at = fd;
      dir.erase(0, cut + 1);
    }
  }
  dir += '/';
  std::string text;
  for (const auto& f : s.files) {
    if (auto got = data::read_output_file_at(at, dir + f.name, max_bytes, text);
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
        ledger.record_row(row, s.src->keys().key_of(iteration, id).value_or(~std::uint64_t{0}), st);
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
  const std::uint64_t count = s.src->keys().size();
  // Samples read but not yet written: at most `capacity` (about one batch of field data; wide
  // rows: fewer samples), half in the queue and the rest in batches of at most `per_push`,
  // the readers' (one being filled each) and the writer's.
  const std::size_t capacity =
      writer.sink() ? data::queue_items_for(o.queue_items, writer.sink()->layout()) : o.queue_items;
  const unsigned threads = std::max(1u, o.threads);
  BoundedQueue<SampleRead> queue(std::max<std::size_t>(1, capacity / 2));
  // Reads go through the queue in batches (one lock and wake-up each, not one per sample).
  const std::size_t per_push = std::clamp<std::size_t>(capacity / (2 * (threads + 1)), 1,
                                                       static_cast<std::size_t>(kClaim));
  std::atomic<std::uint64_t> next{0};
  std::atomic<unsigned> active{threads};
  std::vector<std::thread> readers;
  for (unsigned t = 0; t < threads; ++t)
    readers.emplace_back([&] {
      std::vector<SampleRead> batch;
      data::HeldDirectory parent;
      bool open = true;
      while (open) {
        const std::uint64_t lo = next.fetch_add(kClaim);
        if (lo >= count) break;
        for (std::uint64_t id = lo; id < std::min(lo + kClaim, count) && open; ++id) {
          if (!todo[id]) continue;
          batch.push_back(read_sample(s, outcomes, id, o.max_output_bytes, parent));
          if (batch.size() >= per_push) open = queue.push_all(batch);
        }
      }
      if (open) queue.push_all(batch);
      if (--active == 0) queue.close();
    });
  Result<void> failed = ok();
  std::vector<SampleRead> reads;
  while (queue.pop_all(reads, per_push)) {
    for (auto& r : reads) {
      if (!failed) break;  // drain: the readers stop at the closed queue
      if (const auto to = collect::route_read(ledger, r.id, r.status); to.rewrite)
        failed = writer.rewrite(to.was.row, to.was.was, std::move(r));
      else
        failed = writer.add(std::move(r));
      if (!failed) queue.close();
      ++seen;
      if (progress && progress->due()) progress->update(seen, round_total);
    }
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
  CollectSummary sum;
  sum.output = o.output;
  sum.iterated = s.src->iterated();
  // The iterations released so far, before the file's rows are matched to them.
  auto observed = s.src->observe();
  if (!observed) return observed.error();

  // Samples in the file or handed to the writer, and the file's rows to read again.
  collect::Ledger ledger(s.src->keys().size());
  auto sink = open_existing(o, format, s, ledger);
  if (!sink) return sink.error();
  sum.already = *sink ? (*sink)->rows() : 0;
  if (*sink) (*sink)->set_compress_threads(std::max(1u, o.threads));

  const std::size_t columns = s.base.input_columns.size();
  std::uint64_t warned = 0;  // only the writer (this thread) warns
  CollectWriter writer(
      std::move(*sink), s.base,
      [&](const data::DatasetLayout& layout) {
        auto made = format.create(o.output, layout, s.origin);
        if (made) (*made)->set_compress_threads(std::max(1u, o.threads));
        return made;
      },
      [&](std::uint64_t key, std::vector<double>& out) { s.src->inputs(key, columns, out); },
      [&](const SampleRead& r) {
        if (++warned > o.max_warnings) return;
        const std::string more =
            warned == o.max_warnings ? " (further sample warnings are only counted)" : "";
        const auto& p = s.src->part(r.id);
        if (s.src->iterated())
          log::warn("collect: sample {} of iteration {} ({}): {}{}", r.id - p.offset, p.iteration,
                    s.src->dir_of(r.id), r.problem, more);
        else
          log::warn("collect: sample {} ({}): {}{}", r.id, s.src->dir_of(r.id), r.problem, more);
      },
      o.batch_rows);
  if (s.src->iterated())
    writer.row_key = [&](std::uint64_t key) {
      const auto& p = s.src->part(key);
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
      observed = s.src->observe();
      if (!observed) return observed.error();
    }
    const SampleOutcomes* outcomes = &observed->outcomes;
    const std::uint64_t count = s.src->keys().size();
    sum.iterations = s.src->keys().parts().size();
    sum.no_table = observed->no_table;
    ledger.grow(count);
    const collect::Round round =
        collect::plan_round(ledger, outcomes->finished, outcomes->succeeded, first_round);
    const std::vector<bool>& todo = round.todo;
    sum.unfinished = count - outcomes->finished_count;

    // A new file's fields: those of the lowest sample id whose files all read (never those of
    // whichever reader thread comes first). Reading stops at the first: usually sample 0 (of
    // the first iteration).
    data::HeldDirectory parent;
    for (std::uint64_t id = 0; id < count && !writer.has_layout(); ++id) {
      if (!todo[id] || !outcomes->succeeded[id]) continue;
      auto made = writer.adopt_layout(read_sample(s, *outcomes, id, o.max_output_bytes, parent));
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
  sum.samples = s.src->keys().size();
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
