#pragma once
/// Which tasks `merlin detailed-status` lists: the instances its --steps and --task-queues
/// choose, then list_tasks with the study's own Plan.
#include <string>
#include <vector>

#include "merlin/run/prepared_study.h"
#include "merlin/run/task_details.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

/// One flag per instance of `study`: chosen by `steps` (empty or containing "all", Merlin's
/// default: every step) and `queues` (empty: every queue). kBadInput for a name the study does
/// not have, naming the closest and listing those it has.
Result<std::vector<bool>> chosen_instances(const PreparedStudy& study,
                                           const std::vector<std::string>& steps,
                                           const std::vector<std::string>& queues);

/// list_tasks with the study's Plan.
Result<std::vector<TaskRow>> list_tasks(const PreparedStudy& study, const std::vector<bool>& wanted,
                                        const TaskFilter& filter, StateStore* store, bool live);

}  // namespace merlin::run
