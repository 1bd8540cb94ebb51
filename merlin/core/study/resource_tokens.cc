#include "merlin/core/study/resource_tokens.h"

namespace merlin {
namespace {

void substitute_batch(spec::BatchSpec& b, const StudyTokens& t) {
  for (std::string* f :
       {&b.bank, &b.queue, &b.shell, &b.nodes, &b.walltime, &b.launch_pre, &b.launch_args,
        &b.worker_launch, &b.flux_path, &b.flux_start_opts, &b.flux_exec, &b.flux_exec_workers})
    *f = t.substitute(*f);
  for (auto& [key, value] : b.other) value = t.substitute(value);
}

}  // namespace

void substitute_resource_tokens(spec::StudySpec& spec, const StudyTokens& tokens) {
  for (auto& s : spec.steps) s.run.task_queue = tokens.substitute(s.run.task_queue);
  substitute_batch(spec.batch, tokens);
  for (auto& w : spec.workers) {
    w.name = tokens.substitute(w.name);
    w.args = tokens.substitute(w.args);
    w.nodes = tokens.substitute(w.nodes);
    for (auto& m : w.machines) m = tokens.substitute(m);
    if (w.batch) substitute_batch(*w.batch, tokens);
  }
}

}  // namespace merlin
