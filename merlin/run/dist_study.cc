#include "merlin/run/dist_study.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "adapters/broker/local/local_state_store.h"
#include "merlin/core/plan/plan.h"
#include "merlin/core/study/resource_tokens.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/process_info.h"

namespace merlin::run {

Result<spec::LoadedSpec> load_spec_with_vars(const std::string& spec_path,
                                             const std::vector<std::string>& vars) {
  if (spec_path.empty()) return Error::bad_input("a spec file is required (see --help)");
  auto parsed = parse_vars(vars);
  if (!parsed) return parsed.error();
  spec::LoadOptions lo;
  lo.vars = *parsed;
  auto loaded = spec::load_spec(spec_path, lo);
  if (!loaded) return loaded.error();
  auto tokens = spec_tokens(loaded->spec);
  if (!tokens) return tokens.error();
  substitute_resource_tokens(loaded->spec, *tokens);
  return loaded;
}

Result<StudyTokens> spec_tokens(const spec::StudySpec& spec) {
  StudyTokenOptions to;
  to.environment = process_environment();
  to.timestamp = "00000000-000000";
  to.cwd = current_dir();
  return resolve_study_tokens(spec, to);
}

Result<std::string> spec_study_name(const std::string& spec_path,
                                    const std::vector<std::pair<std::string, std::string>>& vars) {
  spec::LoadOptions lo;
  lo.vars = vars;
  auto loaded = spec::load_spec(spec_path, lo);
  if (!loaded) return loaded.error();
  auto tokens = spec_tokens(loaded->spec);
  if (!tokens) return tokens.error();
  return tokens->study_name;
}

std::vector<std::string> study_queues(const StudyGraph& graph) {
  std::vector<std::string> out;
  for (const auto& s : graph.steps()) out.push_back(s.spec->run.task_queue);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

StudyEnqueue study_enqueue_of(const PreparedStudy& s) {
  StudyEnqueue st;
  st.record.key = study_key_of(s.tokens.workspace);
  st.record.workspace = s.tokens.workspace;
  st.record.name = s.tokens.study_name;
  st.record.created = now_epoch();
  st.counts = s.graph->start_counts();  // fan-out instances: unknown until released
  st.queues = study_queues(*s.graph);
  return st;
}

Result<void> add_ready_messages(StudyEnqueue& st, const StudyGraph& graph, StateStore& store,
                                const FanoutSource* fanout) {
  Plan plan(graph, fanout);
  auto ready = plan.ready_at_start(store);
  if (!ready) return ready.error();
  for (const auto& r : *ready) {
    st.released.push_back(r.message.instance.v);
    st.messages.emplace_back(r.queue, r.message);
  }
  auto progress = store.progress();
  if (!progress) return progress.error();
  for (std::size_t i = 0; i < st.counts.size() && i < progress->size(); ++i) {
    const auto& p = (*progress)[i];
    if (st.counts[i] != kCountUnknown || !p.count_known) continue;
    st.counts[i] = p.total;
    if (i < st.remaining.size()) st.remaining[i] = p.total - std::min(p.total, p.done);
  }
  return ok();
}

Result<EnqueueReport> enqueue_study(PreparedStudy& s, Backend& backend) {
  StudyEnqueue st = study_enqueue_of(s);
  // The first messages and release claims are decided on an empty in-process store, then
  // written to the broker at once: the study is queued whole or not at all.
  LocalStateStore fresh(st.counts);
  auto added = add_ready_messages(st, *s.graph, fresh);
  if (!added) return added.error();
  EnqueueReport report;
  report.messages = st.messages.size();
  report.tasks = s.graph->total_tasks();
  // run.env first: a worker that sees the study must find it a broker workspace.
  auto w = record_broker(s.tokens.workspace, backend.kind().str(), backend.location());
  if (!w) return w.error();
  auto start = std::chrono::steady_clock::now();
  auto q = backend.studies().enqueue(st);
  if (!q) return q.error();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

Result<std::vector<StudyRecord>> studies_named(StudyRegistry& studies, const std::string& name) {
  return studies.list_named(name);
}

Result<std::vector<StudyRecord>> studies_of_spec(
    const std::string& spec_path, const std::vector<std::pair<std::string, std::string>>& vars,
    StudyRegistry& studies) {
  auto name = spec_study_name(spec_path, vars);
  if (!name) return name.error();
  return studies_named(studies, *name);
}

Result<std::unique_ptr<PreparedStudy>> reopen_study(const std::string& workspace, bool open_samples,
                                                    const std::string& app_scratch) {
  auto po = reopen_options(workspace, current_dir());
  if (!po) return po.error();
  po->open_samples = open_samples;
  po->scratch.app_scratch = app_scratch;
  po->rank_env = rank_env_program();
  return prepare_study(*po);
}

}  // namespace merlin::run
