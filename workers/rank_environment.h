#pragma once
/// What `merlin-rank-env` (workers/rank_env/) sets in one rank's environment before it execs
/// the rank's command: the variables `torchrun` sets and PyTorch, Horovod, DeepSpeed and most
/// user training scripts read, translated from the launcher's own (docs/training.md).
///
/// Only the launcher knows a rank, so each process of a `$(LAUNCHER)` line passes through the
/// shim, which reads what mpirun, srun, flux run, jsrun or mpiexec put in its environment:
///
///   RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, NODE_RANK
///   MASTER_ADDR  kept when set; else 127.0.0.1 when every rank is on one node; else the first
///                node of the Slurm step (SLURM_STEP_NODELIST), or the first line of
///                $PBS_NODEFILE; else MERLIN_MASTER_ADDR (the worker's host)
///   MASTER_PORT  kept when set (the worker sets one per task, free and unique on its node);
///                else 29500, torchrun's default
///   CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES  with MERLIN_GPUS = g > 0 (the step's `gpus`,
///                per rank): the rank's g devices, LOCAL_RANK*g onwards, taken from the list the
///                launcher left visible (all of it when it left exactly g), else 0, 1, ...
///
/// Pure: the environment comes in through a lookup, the file through a reader.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace merlin {

/// One environment variable's value; nullopt when it is not set.
using RankEnvLookup = std::function<std::optional<std::string>(const std::string&)>;
/// The first line of a file; nullopt when it cannot be read.
using FirstLineReader = std::function<std::optional<std::string>(const std::string&)>;

struct RankEnvironment {
  /// The launcher the rank was recognised by ("mpirun", "srun", "flux", "jsrun", "mpiexec"),
  /// empty when none was: then `set` is empty and the command runs as it would without us.
  std::string launcher;
  std::vector<std::pair<std::string, std::string>> set;  ///< in the order they are set
  std::vector<std::string> warnings;  ///< for stderr: what could not be done, and why
};

/// The variables for this rank.
RankEnvironment rank_environment(const RankEnvLookup& env, const FirstLineReader& first_line);

/// The first host of a Slurm hostlist: "node[03-05,9],gpu1" → "node03"; "a,b" → "a".
std::string first_host(std::string_view hostlist);

/// The count of tasks on node `node` of a Slurm tasks-per-node list: "2(x3),1" → 2 for nodes
/// 0..2, 1 for node 3; nullopt when the list does not reach `node` or does not parse.
std::optional<int> tasks_on_node(std::string_view tasks_per_node, int node);

}  // namespace merlin
