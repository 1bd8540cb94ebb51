#include "merlin/run/prepared_study.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <sstream>

#include "merlin/core/study/resource_tokens.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/log.h"
#include "merlin/core/util/process_info.h"
#include "merlin/core/util/visible_text.h"
#include "workers/step_environment.h"

namespace merlin::run {
namespace fs = std::filesystem;

namespace {

// The last lines of generate.cmd's output file, indented and made visible, for a message: the
// workspace holding the file is removed when the run stops there.
std::string output_tail(const std::string& path) {
  constexpr std::size_t kLines = 10;
  constexpr std::size_t kBytes = 4096;
  auto text = files::read(path);
  if (!text || text->empty()) return "";
  std::string_view t = *text;
  if (t.size() > kBytes) t = t.substr(t.size() - kBytes);
  while (!t.empty() && t.back() == '\n') t.remove_suffix(1);
  std::vector<std::string_view> lines;
  while (!t.empty()) {
    const auto nl = t.find('\n');
    lines.push_back(t.substr(0, nl));
    t = nl == std::string_view::npos ? std::string_view() : t.substr(nl + 1);
  }
  std::string out;
  for (std::size_t i = lines.size() > kLines ? lines.size() - kLines : 0; i < lines.size(); ++i)
    out += "\n  | " + visible_text(lines[i]);
  return out;
}

// `generate.cmd` when the samples file is missing: run in merlin_info/, output kept beside it.
// The script is written as a step's is (`#!/bin/bash`, blank line, command, newline).
Result<void> generate_samples(const PreparedStudy& s, const std::string& cmd) {
  const std::string& info = s.tokens.info_dir;
  auto w = files::write(info + "/cmd.sh", "#!/bin/bash\n\n" + cmd + "\n", 0755);
  if (!w) return w;
  std::string quoted = "'";
  for (char c : info) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  // Like a step, the command is not given the variables that carry the broker's credentials
  // (workers/step_environment.h; docs/security.md).
  std::string unset = "unset";
  for (auto name : credential_variables()) unset += " " + std::string(name);
  std::string line =
      "cd " + quoted + " && " + unset + " && /bin/bash ./cmd.sh > cmd.out 2> cmd.err";
  log::info("generating samples cmd={}/cmd.sh", info);
  int rc = std::system(line.c_str());
  if (rc != 0) {
    const std::string err = output_tail(info + "/cmd.err");
    return Error::bad_input(
        "samples generation (merlin.samples.generate.cmd) failed with exit code " +
        std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc)) +
        (err.empty() ? "; it wrote nothing to stderr" : "; the end of its stderr:" + err) +
        "\n(the new workspace was removed; fix the command and run again)");
  }
  return ok();
}

Result<void> open_samples(const PrepareOptions& o, PreparedStudy& s, bool* created) {
  const auto& spec = s.spec;
  std::string path = expand_path(!o.samples_file.empty() ? o.samples_file
                                 : spec.samples          ? s.tokens.substitute(spec.samples->file)
                                                         : std::string(),
                                 process_environment());
  if (path.empty()) return ok();
  if (fs::path(path).is_relative()) path = (fs::path(o.cwd) / path).lexically_normal().string();
  // `*created`: the workspace was made here (so its removal on error is ours); `generated`:
  // generate.cmd ran just now. Only the second explains a missing file by the command.
  bool generated = false;
  const bool has_generate = spec.samples && !spec.samples->generate_cmd.empty();
  if (!files::exists(path) && o.samples_file.empty() && has_generate) {
    auto d = files::make_dirs(s.tokens.info_dir);
    if (!d) return d;
    *created = true;
    generated = true;
    auto g = generate_samples(s, s.tokens.substitute(spec.samples->generate_cmd));
    if (!g) return g;
  }
  if (!files::exists(path)) {
    std::string why;
    if (generated) {
      const std::string out = output_tail(s.tokens.info_dir + "/cmd.out");
      const std::string err = output_tail(s.tokens.info_dir + "/cmd.err");
      why = " (generate.cmd ran, exit code 0, but did not create it" +
            (out.empty() ? std::string() : "; the end of its stdout:" + out) +
            (err.empty() ? std::string() : "\nthe end of its stderr:" + err) + ")";
    } else if (o.samples_file.empty() && !has_generate) {
      why =
          " (the spec has no merlin.samples.generate.cmd to make it: create the file, or give "
          "one with --samplesfile)";
    }
    return Error::bad_input("samples file not found: " + path + why);
  }
  auto table = samples::open_sample_table(path);
  if (!table) return table.error();
  std::size_t labels = spec.samples ? spec.samples->column_labels.size() : 0;
  if ((*table)->columns() != labels)
    return Error::bad_input(path + ": has " + std::to_string((*table)->columns()) +
                            " columns but merlin.samples.column_labels names " +
                            std::to_string(labels));
  s.samples_path = path;
  s.sample_count = (*table)->rows();
  s.table = std::move(*table);
  return ok();
}

// Every value of a sampled study, before any task is made: a value longer than one argument
// or environment string may be (every task would fail with E2BIG) and, unless the spec opts
// in, shell metacharacters. Unsampled studies never hand values to a step.
Result<void> check_sample_values(const PreparedStudy& s) {
  if (!s.table || !s.spec.samples) return ok();
  bool sampled = false;
  for (const auto& n : s.graph->steps()) sampled |= n.sampled;
  if (!sampled) return ok();
  const auto& labels = s.spec.samples->column_labels;
  samples::ValueRules rules;
  rules.shell_safe_only = !s.spec.allow_shell_metachars;
  for (const auto& label : labels)  // "LABEL=value" and a NUL, or the value alone and a NUL
    rules.max_bytes.push_back(exported_as_env(label)
                                  ? samples::kMaxArgStringBytes - label.size() - 2
                                  : samples::kMaxArgStringBytes - 1);
  auto bad = samples::find_bad_value(*s.table, rules);
  if (!bad) return ok();
  std::string label = bad->col < labels.size() ? labels[bad->col] : std::to_string(bad->col);
  bool exported = exported_as_env(label);
  std::string where = s.samples_path + ": sample " + std::to_string(bad->row) + " (row " +
                      std::to_string(bad->row + 1) + "), column '" + label + "'";
  if (bad->problem == samples::ValueProblem::kTooLong)
    return Error::bad_input(
        where + ", holds " + std::to_string(bad->value.size()) + " bytes, more than the " +
        std::to_string(rules.max_bytes[bad->col]) +
        " a step can be given: Linux limits one argument or environment string to " +
        std::to_string(samples::kMaxArgStringBytes) + " bytes (MAX_ARG_STRLEN)" +
        (exported ? ", and this value is exported as " + label + "=..." : std::string()) +
        "; shorten it, or put it in a file and pass the file's name");
  if (bad->problem == samples::ValueProblem::kNulByte)
    return Error::bad_input(where + ", holds a NUL byte: '" + visible_text(bad->value, 200) +
                            "'; no argument or environment variable can carry one");
  return Error::bad_input(
      where + ", has shell metacharacters: '" + visible_text(bad->value, 200) +
      "'. Sample values are pasted into shell commands unquoted, so only plain values are "
      "accepted; to run anyway set merlin.samples.allow_shell_metacharacters: true" +
      (exported ? " and use \"$" + label + "\" (exported to the step) instead of $(" + label + ")"
                : std::string()) +
      " (see docs/sample-safety.md)");
}

Result<void> write_info(const PrepareOptions& o, PreparedStudy& s) {
  const auto& info = s.tokens.info_dir;
  auto d = files::make_dirs(info);
  if (!d) return d;
  const std::string base = info + "/" + s.tokens.spec_stem;
  auto w = files::write(base + ".orig.yaml", s.spec.source_text);
  if (!w) return w;
  auto partial = spec::emit_with_overrides(s.spec.source_text, o.vars);
  if (!partial) return partial.error();
  w = files::write(base + ".partial.yaml", *partial + "\n");
  if (!w) return w;
  w = files::write(base + ".expanded.yaml", s.tokens.substitute(*partial) + "\n");
  if (!w) return w;
  if (!s.samples_path.empty() && fs::path(s.samples_path).parent_path() != fs::path(info)) {
    std::string copy = info + "/" + fs::path(s.samples_path).filename().string();
    auto c = files::copy(s.samples_path, copy);
    if (!c) return c;
    s.samples_path = copy;  // restart reads the copy: the original may change or go away
  }
  RunRecord r;
  r.spec_path = fs::absolute(o.spec_path).lexically_normal().string();
  r.timestamp = s.tokens.values.at("MERLIN_TIMESTAMP");
  r.samples_file = s.samples_path;
  r.samples = s.sample_count;
  r.vars = o.vars;
  r.lean = s.spec.layout == spec::WorkspaceLayout::kLean;
  return write_run_record(info, r);
}

}  // namespace

Result<std::unique_ptr<PreparedStudy>> prepare_study(const PrepareOptions& o) {
  auto s = std::make_unique<PreparedStudy>();
  spec::LoadOptions lo;
  lo.vars = o.vars;
  lo.samples_file = o.samples_file;
  auto loaded = spec::load_spec(o.spec_path, lo);
  if (!loaded) return loaded.error();
  s->spec = std::move(loaded->spec);
  s->warnings = std::move(loaded->warnings);
  if (o.lean) s->spec.layout = spec::WorkspaceLayout::kLean;
  StudyTokenOptions to{o.timestamp, o.cwd,       o.workspace,
                       o.spec_root, o.spec_stem, process_environment()};
  bool created = false;
  for (int bump = 0;; ++bump) {
    if (o.epoch > 0) to.timestamp = format_timestamp(o.epoch + bump);
    auto tokens = resolve_study_tokens(s->spec, to);
    if (!tokens) return tokens.error();
    s->tokens = std::move(*tokens);
    if (!o.create_workspace) break;
    // mkdir is the claim: of two runs started in the same second, one gets the name and the
    // other moves on a second.
    auto parent = files::make_dirs(s->tokens.output_path);
    if (!parent) return parent.error();
    if (::mkdir(s->tokens.workspace.c_str(), 0755) == 0) {
      created = true;
      break;
    }
    if (errno != EEXIST)
      return Error::runtime("cannot create " + s->tokens.workspace + ": " + std::strerror(errno));
    if (o.epoch == 0 || bump >= 600)
      return Error::runtime("workspace already exists: " + s->tokens.workspace);
  }

  substitute_resource_tokens(s->spec, s->tokens);  // task_queue: $(Q), worker names...

  auto cleanup = [&](Error e) -> Result<std::unique_ptr<PreparedStudy>> {
    if (created) {
      std::error_code ec;
      fs::remove_all(s->tokens.workspace, ec);
    }
    return e;
  };
  if (o.open_samples) {
    auto r = open_samples(o, *s, &created);
    if (!r) return cleanup(r.error());
    if (!o.workspace.empty() && s->sample_count != o.expect_samples)
      return Error::bad_input(s->samples_path + " now has " + std::to_string(s->sample_count) +
                              " samples, the run recorded " + std::to_string(o.expect_samples) +
                              "; the workspace's samples must not change");
  } else {
    s->sample_count = o.expect_samples;
  }
  // The graph keeps pointers to spec and tokens: both live in *s, which never moves.
  auto graph = StudyGraph::build(s->spec, s->tokens, s->sample_count);
  if (!graph) return cleanup(graph.error());
  s->graph = std::make_unique<StudyGraph>(std::move(*graph));
  auto safe = check_sample_values(*s);
  if (!safe) return cleanup(safe.error());
  if (o.create_workspace) {
    auto w = write_info(o, *s);
    if (!w) return cleanup(w.error());
  }
  if (o.open_samples)
    s->renderer = std::make_unique<TaskRenderer>(*s->graph, s->table.get(), o.scratch, o.rank_env);
  return s;
}

std::string rank_env_program() {
  if (const char* env = std::getenv("MERLIN_RANK_ENV")) return env;
  const std::string beside = beside_self("merlin-rank-env");
  // One shell word: $(LAUNCHER) is shell text (an install path with a space stays whole).
  return ::access(beside.c_str(), X_OK) == 0 ? shell_quote(beside) : "";
}

Result<PrepareOptions> reopen_options(const std::string& workspace, const std::string& cwd) {
  auto rec = read_run_record(workspace);
  if (!rec) return rec.error();
  fs::path original(rec->spec_path);
  PrepareOptions po;
  po.spec_path = workspace + "/merlin_info/" + original.stem().string() + ".orig.yaml";
  po.spec_root = original.parent_path().string();
  po.spec_stem = original.stem().string();
  po.vars = rec->vars;
  po.samples_file = rec->samples_file;
  po.timestamp = rec->timestamp;
  po.cwd = cwd;
  po.workspace = workspace;
  po.create_workspace = false;
  po.expect_samples = rec->samples;
  po.lean = rec->lean;
  return po;
}

Result<std::string> latest_workspace(const std::string& spec_path, const std::string& cwd,
                                     const std::string& output_path) {
  auto loaded = spec::load_spec(spec_path);
  if (!loaded) return loaded.error();
  auto tokens = resolve_study_tokens(loaded->spec,
                                     {"00000000-000000", cwd, "", "", "", process_environment()});
  if (!tokens) return tokens.error();
  if (!output_path.empty())  // Merlin's `status -o DIR`: look there instead of OUTPUT_PATH
    tokens->output_path = (fs::path(cwd) / output_path).lexically_normal().string();
  std::string prefix = tokens->study_name + "_";
  std::string best;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(tokens->output_path, ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) == 0 && n.size() == prefix.size() + 15 && e.is_directory() &&
        files::exists(e.path().string() + "/merlin_info/run.env"))
      best = std::max(best, n);
  }
  if (best.empty())
    return Error::bad_input("no workspace of study '" + tokens->study_name + "' under " +
                            tokens->output_path);
  return tokens->output_path + "/" + best;
}

Result<StudyAtHand> open_for_status(const std::string& target, const std::string& cwd,
                                    const std::string& output_path) {
  StudyAtHand out;
  out.workspace = target;
  if (!std::filesystem::is_directory(target)) {
    // A path written as a directory names a workspace, not a spec: say so.
    if (!target.empty() && target.back() == '/')
      return Error::bad_input(target +
                              ": no such workspace (a study's directory, or give its "
                              "spec to look at its newest workspace)");
    auto latest = latest_workspace(target, cwd, output_path);
    if (!latest) return latest.error();
    out.workspace = *latest;
  }
  auto reopened = reopen_options(out.workspace, cwd);
  if (!reopened) return reopened.error();
  PrepareOptions po = *reopened;
  po.open_samples = false;  // the count is in run.env: status never reads the samples
  auto s = prepare_study(po);
  if (!s) return s.error();
  out.study = std::move(*s);
  return out;
}

}  // namespace merlin::run
