#include "workers/rank_environment.h"

#include <cctype>
#include <cstdlib>

namespace merlin {
namespace {

/// Where one launcher keeps a rank's numbers. "A|B": A, else B. Empty: it does not say.
struct LauncherVars {
  const char* launcher;
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* local_size;
  const char* node;
  const char* nodes;
};

// In this order: a step's launcher sets its own variables, but the worker that runs the step
// may itself have been started by another launcher (srun starts the workers of a batch job,
// so a rank under mpirun inherits SLURM_PROCID). Those that start the fewest things come first.
constexpr LauncherVars kLaunchers[] = {
    {"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE", "", ""},
    {"jsrun", "JSM_NAMESPACE_RANK", "JSM_NAMESPACE_SIZE", "JSM_NAMESPACE_LOCAL_RANK",
     "JSM_NAMESPACE_LOCAL_SIZE", "", ""},
    {"mpiexec", "PALS_RANKID", "PMI_SIZE", "PALS_LOCAL_RANKID", "", "PALS_NODEID", ""},
    {"mpiexec", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "", ""},
    {"flux", "FLUX_TASK_RANK", "FLUX_JOB_SIZE", "FLUX_TASK_LOCAL_ID", "", "", "FLUX_JOB_NNODES"},
    {"srun", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS|SLURM_NTASKS", "SLURM_LOCALID", "",
     "SLURM_NODEID", "SLURM_STEP_NUM_NODES|SLURM_NNODES"},
};

std::optional<int> parse_count(std::string_view s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

/// The first of the '|'-separated names that is set and a count.
std::optional<int> count_of(const RankEnvLookup& env, std::string_view names) {
  while (!names.empty()) {
    auto bar = names.find('|');
    std::string name(names.substr(0, bar));
    if (auto v = env(name))
      if (auto n = parse_count(*v)) return n;
    if (bar == std::string_view::npos) break;
    names.remove_prefix(bar + 1);
  }
  return std::nullopt;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  while (true) {
    auto at = s.find(sep);
    out.emplace_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

struct Ranks {
  int rank = 0, size = 0, local_rank = 0, local_size = 0, node = 0;
};

/// The rank's numbers as `v` gives them, the missing ones made up from the others and from
/// the step's counts (MERLIN_PROCS, MERLIN_NODES), assuming ranks fill a node before the next
/// (every launcher's default). nullopt when not even the world size is known.
std::optional<Ranks> ranks_of(const LauncherVars& v, const RankEnvLookup& env, int rank,
                              std::vector<std::string>& warnings) {
  Ranks r;
  r.rank = rank;
  auto size = count_of(env, v.size);
  if (!size) size = count_of(env, "MERLIN_PROCS");
  if (!size || *size <= rank) {
    warnings.push_back(std::string("rank ") + std::to_string(rank) + " of " + v.launcher +
                       " but no world size in its environment: RANK and the rest left unset");
    return std::nullopt;
  }
  r.size = *size;
  // 0 = not known yet (a launcher's 0 is no answer either).
  int local_size = *v.local_size ? count_of(env, v.local_size).value_or(0) : 0;
  const int node = *v.node ? count_of(env, v.node).value_or(-1) : -1;  // -1 = not known
  if (local_size == 0 && std::string_view(v.launcher) == "srun" && node >= 0)
    if (auto tpn = env("SLURM_STEP_TASKS_PER_NODE"))
      local_size = tasks_on_node(*tpn, node).value_or(0);
  if (local_size == 0) {
    auto nodes = *v.nodes ? count_of(env, v.nodes) : std::nullopt;
    if (!nodes) nodes = count_of(env, "MERLIN_NODES");
    int n = nodes && *nodes > 0 ? *nodes : 1;
    local_size = (r.size + n - 1) / n;
  }
  r.local_size = local_size > 0 ? local_size : 1;
  auto local = count_of(env, v.local_rank);
  r.local_rank = local ? *local : r.rank % r.local_size;
  r.node = node >= 0 ? node : r.rank / r.local_size;
  return r;
}

void set_master_addr(const Ranks& r, const RankEnvLookup& env, const FirstLineReader& first_line,
                     RankEnvironment& out) {
  if (auto a = env("MASTER_ADDR"); a && !a->empty()) return;
  std::string addr;
  if (r.local_size >= r.size) {
    addr = "127.0.0.1";  // every rank on this node
  } else if (auto list = out.launcher == "srun" ? env("SLURM_STEP_NODELIST") : std::nullopt) {
    addr = first_host(*list);
  } else if (auto file = env("PBS_NODEFILE"); file && out.launcher == "mpiexec") {
    addr = first_line(*file).value_or("");
  }
  if (addr.empty()) addr = env("MERLIN_MASTER_ADDR").value_or("");
  if (addr.empty()) {
    out.warnings.push_back("ranks on " +
                           std::to_string((r.size + r.local_size - 1) / r.local_size) +
                           " nodes and no way to tell rank 0's: MASTER_ADDR left unset");
    return;
  }
  out.set.emplace_back("MASTER_ADDR", addr);
}

void set_devices(const Ranks& r, const RankEnvLookup& env, RankEnvironment& out) {
  auto per_rank = count_of(env, "MERLIN_GPUS");
  if (!per_rank || *per_rank == 0) return;
  const int g = *per_rank;
  std::optional<std::string> visible = env("CUDA_VISIBLE_DEVICES");
  if (!visible) visible = env("ROCR_VISIBLE_DEVICES");
  if (!visible) visible = env("HIP_VISIBLE_DEVICES");
  std::vector<std::string> devices;
  if (visible) {
    devices = split(*visible, ',');
    // The launcher bound this rank already (srun --gpus-per-task, jsrun -g): keep it.
    if (static_cast<int>(devices.size()) == g) {
      out.set.emplace_back("CUDA_VISIBLE_DEVICES", *visible);
      out.set.emplace_back("ROCR_VISIBLE_DEVICES", *visible);
      return;
    }
  } else {
    for (int i = 0; i < g * r.local_size; ++i) devices.push_back(std::to_string(i));
  }
  const std::size_t first = static_cast<std::size_t>(r.local_rank) * g;
  if (first + g > devices.size()) {
    out.warnings.push_back("local rank " + std::to_string(r.local_rank) + " wants " +
                           std::to_string(g) + " gpus but " + std::to_string(devices.size()) +
                           " are visible: CUDA_VISIBLE_DEVICES left as it was");
    return;
  }
  std::string mine;
  for (std::size_t i = first; i < first + g; ++i) mine += (mine.empty() ? "" : ",") + devices[i];
  out.set.emplace_back("CUDA_VISIBLE_DEVICES", mine);
  out.set.emplace_back("ROCR_VISIBLE_DEVICES", mine);
}

}  // namespace

std::string first_host(std::string_view hostlist) {
  // The first entry: up to the first ',' outside brackets.
  std::size_t end = 0;
  int depth = 0;
  for (; end < hostlist.size(); ++end) {
    char c = hostlist[end];
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) break;
  }
  std::string_view entry = hostlist.substr(0, end);
  auto open = entry.find('[');
  if (open == std::string_view::npos) return std::string(entry);
  auto close = entry.find(']', open);
  if (close == std::string_view::npos) return std::string(entry);
  std::string_view inside = entry.substr(open + 1, close - open - 1);
  std::string_view first = inside.substr(0, inside.find_first_of(",-"));
  return std::string(entry.substr(0, open)) + std::string(first) +
         first_host(entry.substr(close + 1));
}

std::optional<int> tasks_on_node(std::string_view tasks_per_node, int node) {
  int at = 0;
  for (const auto& part : split(tasks_per_node, ',')) {
    std::string_view p = part;
    int repeat = 1;
    auto paren = p.find("(x");
    if (paren != std::string_view::npos) {
      if (p.back() != ')') return std::nullopt;
      auto r = parse_count(p.substr(paren + 2, p.size() - paren - 3));
      if (!r) return std::nullopt;
      repeat = *r;
      p = p.substr(0, paren);
    }
    auto count = parse_count(p);
    if (!count) return std::nullopt;
    if (node < at + repeat) return count;
    at += repeat;
  }
  return std::nullopt;
}

RankEnvironment rank_environment(const RankEnvLookup& env, const FirstLineReader& first_line) {
  RankEnvironment out;
  for (const auto& v : kLaunchers) {
    auto rank = count_of(env, v.rank);
    if (!rank) continue;
    out.launcher = v.launcher;
    auto r = ranks_of(v, env, *rank, out.warnings);
    if (!r) return out;
    out.set = {{"RANK", std::to_string(r->rank)},
               {"WORLD_SIZE", std::to_string(r->size)},
               {"LOCAL_RANK", std::to_string(r->local_rank)},
               {"LOCAL_WORLD_SIZE", std::to_string(r->local_size)},
               {"NODE_RANK", std::to_string(r->node)}};
    set_master_addr(*r, env, first_line, out);
    if (auto p = env("MASTER_PORT"); !p || p->empty()) out.set.emplace_back("MASTER_PORT", "29500");
    set_devices(*r, env, out);
    return out;
  }
  return out;
}

}  // namespace merlin
