#pragma once
/// The study's variables in the spec's text that is not a command: task queues, the workers'
/// names, args, nodes and machines, and the `batch` blocks (the study's and each worker's).
/// Maestro substitutes variables everywhere in a spec, so Merlin users write
/// `$(WORKER_NAME): {args: --concurrency $(CONC)}` or `task_queue: $(VERIFY_QUEUE)`; without
/// this, `stop-workers --workers demo_worker` would match nothing and the job scripts would
/// carry `$(PARTITION)` literally.
#include "merlin/core/spec/study_spec.h"
#include "merlin/core/study/study_tokens.h"

namespace merlin {

/// Replaces the tokens `tokens` knows in those fields of `spec`, in place; unknown tokens stay
/// as written. Idempotent once substituted (values hold no tokens of their own).
void substitute_resource_tokens(spec::StudySpec& spec, const StudyTokens& tokens);

}  // namespace merlin
