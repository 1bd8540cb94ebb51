#include "merlin/core/study/fanout_tables.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "merlin/core/spec/env_names.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/visible_text.h"

namespace merlin {
namespace fs = std::filesystem;
namespace {

// Whether a text table has more than `limit` rows (non-empty lines), read in blocks and
// stopping at the first row past the limit: a huge file is refused before the reader indexes
// every row of it. Binary (.npy) tables give their rows from the header instead.
bool text_rows_exceed(const std::string& path, std::uint64_t limit) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;  // the reader reports it
  std::vector<char> buf(1 << 20);
  std::uint64_t rows = 0;
  bool in_line = false;
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0 && rows <= limit) {
    for (std::size_t i = 0; i < n; ++i) {
      const char c = buf[i];
      if (c == '\n') {
        if (in_line) ++rows;
        in_line = false;
      } else if (c != '\r' && c != ' ' && c != '\t') {
        in_line = true;
      }
    }
  }
  if (in_line) ++rows;
  std::fclose(f);
  return rows > limit;
}

}  // namespace

FanoutTables::FanoutTables(const StudyGraph& graph, std::vector<std::string> files)
    : graph_(graph), files_(std::move(files)) {
  files_.resize(graph.instances().size());
  for (auto& f : files_)
    if (!f.empty() && fs::path(f).is_relative())
      f = (fs::path(graph.tokens().workspace) / f).lexically_normal().string();
  if (graph.spec().samples) level_max_dirs_ = graph.spec().samples->level_max_dirs;
}

std::string FanoutTables::what(InstanceId id) const {
  return "step '" + graph_.step_of(id).name + "' (samples_from " + files_[id.v] + ")";
}

std::string FanoutTables::copy_path(InstanceId id) const {
  return graph_.tokens().info_dir + "/fanout/" + graph_.instance(id).base_name +
         fs::path(files_[id.v]).extension().string();
}

bool FanoutTables::loop_again(InstanceId decider) const {
  return files::exists(graph_.tokens().workspace + "/" + graph_.instance(decider).rel_dir +
                       "/MERLIN_LOOP_AGAIN");
}

bool FanoutTables::expanded(InstanceId id) const { return files::exists(copy_path(id)); }

Result<const FanoutTables::Entry*> FanoutTables::open_copy_locked(InstanceId id) const {
  auto it = cache_.find(id.v);
  if (it != cache_.end()) return &it->second;
  auto table = samples::open_sample_table(copy_path(id));
  if (!table) return table.error();
  Entry e;
  e.hierarchy = SampleHierarchy((*table)->rows(), level_max_dirs_);
  e.table = std::move(*table);
  return &cache_.emplace(id.v, std::move(e)).first->second;
}

Result<void> FanoutTables::make_copy(InstanceId id) const {
  const auto& node = graph_.step_of(id);
  const auto& from = *node.spec->run.samples_from;
  const std::string& src = files_[id.v];
  if (!files::exists(src))
    return Error::bad_input(what(id) +
                            ": file not found; the steps it depends on finished "
                            "without writing it");
  struct stat st {};
  if (::stat(src.c_str(), &st) == 0 && st.st_size == 0)
    return Error::bad_input(what(id) + ": the file is empty (no sample rows)");
  if (fs::path(src).extension() != ".npy" && text_rows_exceed(src, from.max_rows))
    return Error::bad_input(what(id) + ": more than max_rows (" + std::to_string(from.max_rows) +
                            ") rows");
  auto table = samples::open_sample_table(src);
  if (!table) return Error::bad_input(what(id) + ": " + table.error().message);
  const auto& t = **table;
  if (t.rows() == 0) return Error::bad_input(what(id) + ": the file has no sample rows");
  if (t.rows() > from.max_rows)
    return Error::bad_input(what(id) + ": " + std::to_string(t.rows()) +
                            " rows, more than max_rows (" + std::to_string(from.max_rows) + ")");
  if (t.columns() != from.column_labels.size())
    return Error::bad_input(what(id) + ": rows have " + std::to_string(t.columns()) +
                            " columns but column_labels names " +
                            std::to_string(from.column_labels.size()));
  samples::ValueRules rules;
  rules.shell_safe_only = !graph_.spec().allow_shell_metachars;
  for (const auto& label : from.column_labels)
    rules.max_bytes.push_back(spec::is_exported_label(label)
                                  ? samples::kMaxArgStringBytes - label.size() - 2
                                  : samples::kMaxArgStringBytes - 1);
  if (auto bad = samples::find_bad_value(t, rules)) {
    const char* why = bad->problem == samples::ValueProblem::kTooLong ? "is too long"
                      : bad->problem == samples::ValueProblem::kNulByte
                          ? "holds a NUL byte"
                          : "has shell metacharacters";
    return Error::bad_input(what(id) + ": row " + std::to_string(bad->row + 1) + ", column '" +
                            from.column_labels[bad->col] + "', " + why + ": '" +
                            visible_text(bad->value, 200) + "'");
  }
  // Copy under a temporary name, then link(2): it fails if the copy exists, so the first
  // expansion's rows are the ones every later reader sees.
  const std::string dst = copy_path(id);
  auto d = files::make_dirs(fs::path(dst).parent_path().string());
  if (!d) return d;
  const std::string tmp = dst + ".tmp." + std::to_string(::getpid());
  auto c = files::copy(src, tmp);
  if (!c) return c;
  int rc = ::link(tmp.c_str(), dst.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (rc != 0 && err != EEXIST)
    return Error::runtime("cannot place " + dst + ": " + std::strerror(err));
  return ok();
}

Result<std::uint64_t> FanoutTables::expand(InstanceId id) const {
  std::lock_guard lock(mu_);
  if (!graph_.step_of(id).fanout) return graph_.instance(id).count;
  if (!expanded(id)) {
    auto made = make_copy(id);
    if (!made) {
      (void)files::make_dirs(graph_.tokens().info_dir + "/fanout");
      (void)files::write_atomic(copy_path(id) + ".error", made.error().message);
      return made.error();
    }
  }
  auto e = open_copy_locked(id);
  if (!e) return Error::bad_input(what(id) + ": " + e.error().message);
  return static_cast<std::uint64_t>((*e)->table->rows());
}

SampleHierarchy FanoutTables::hierarchy(InstanceId id) const {
  std::lock_guard lock(mu_);
  auto it = cache_.find(id.v);  // per task and per split: no syscall once opened
  if (it != cache_.end()) return it->second.hierarchy;
  if (files::exists(copy_path(id))) {
    auto e = open_copy_locked(id);
    if (e) return (*e)->hierarchy;
  }
  return SampleHierarchy(1, level_max_dirs_);
}

Result<const samples::SampleTable*> FanoutTables::table(InstanceId id) const {
  std::lock_guard lock(mu_);
  auto it = cache_.find(id.v);
  if (it != cache_.end()) return it->second.table.get();
  if (!files::exists(copy_path(id))) {
    auto why = files::read(copy_path(id) + ".error");
    if (why && !why->empty()) return Error::bad_input(*why);
    return Error::bad_input(what(id) + ": not expanded (its samples were never read)");
  }
  auto e = open_copy_locked(id);
  if (!e) return Error::bad_input(what(id) + ": " + e.error().message);
  return (*e)->table.get();
}

}  // namespace merlin
