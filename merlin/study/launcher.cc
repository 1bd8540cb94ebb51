#include "merlin/study/launcher.h"

#include <fmt/format.h>

#include <cstdlib>

namespace merlin {
namespace {

std::string with_flags(std::string base, const std::string& flags) {
  if (!flags.empty()) base += " " + flags;
  return base;
}

// One formatter for both LAUNCHER and VLAUNCHER: n/p/c/g are already text.
std::string render(const LaunchResources& r, const std::string& n, const std::string& p,
                   const std::string& c, const std::string& g) {
  const std::string& type = r.batch_type;
  std::string s;
  if (type == "slurm" || type == "lsf-srun") {
    s = fmt::format("srun -n {} -N {}", p, n);
    if (r.cores_per_task > 0) s += " -c " + c;
    if (r.walltime_seconds > 0)
      s += fmt::format(" -t {:02}:{:02}:{:02}", r.walltime_seconds / 3600,
                       r.walltime_seconds / 60 % 60, r.walltime_seconds % 60);
  } else if (type == "flux") {
    s = fmt::format("flux run -n {} -N {} -c {}", p, n, c);
    if (r.gpus > 0) s += " -g " + g;
    if (r.walltime_seconds > 0) s += fmt::format(" -t {}s", r.walltime_seconds);
  } else if (type == "lsf") {
    s = fmt::format("jsrun --np {} --nrs {} -b rs -d plane:{} -X 1", p, n, p);
    if (r.cores_per_task > 0) s += " -c " + c;
    if (r.gpus_per_task > 0) s += fmt::format(" -g {}", r.gpus_per_task);
  } else {
    s = fmt::format("mpirun -np {}", p);
  }
  return with_flags(s, r.extra_flags);
}

}  // namespace

std::string render_launcher(const LaunchResources& r) {
  if (r.nodes <= 0 && r.procs <= 0) return {};
  int nodes = r.nodes > 0 ? r.nodes : 1;
  int procs = r.procs > 0 ? r.procs : nodes;
  int cores = r.cores_per_task > 0 ? r.cores_per_task : 1;
  if (r.batch_type == "local" && procs <= 1) return {};
  if (r.batch_type == "lsf") {
    // jsrun: one resource set per node, ranks spread evenly (plane = ranks per node).
    std::string s = fmt::format("jsrun --np {} --nrs {} -b rs -d plane:{} -X 1", procs, nodes,
                                (procs + nodes - 1) / nodes);
    if (r.cores_per_task > 0) s += fmt::format(" -c {}", r.cores_per_task);
    if (r.gpus_per_task > 0) s += fmt::format(" -g {}", r.gpus_per_task);
    return with_flags(s, r.extra_flags);
  }
  return render(r, std::to_string(nodes), std::to_string(procs), std::to_string(cores),
                std::to_string(r.gpus));
}

std::string render_vlauncher(const LaunchResources& r) {
  return render(r, "${MERLIN_NODES}", "${MERLIN_PROCS}", "${MERLIN_CORES}", "${MERLIN_GPUS}");
}

LaunchResources with_override(LaunchResources r, std::string_view bracket) {
  std::string part;
  auto flush = [&] {
    if (part.size() > 1) {
      int v = std::atoi(part.c_str());
      if (part.back() == 'n') r.nodes = v;
      if (part.back() == 'p') r.procs = v;
    }
    part.clear();
  };
  for (char ch : bracket) {
    if (ch == '[' || ch == ' ') continue;
    if (ch == ',' || ch == ']') {
      flush();
      continue;
    }
    part += ch;
  }
  flush();
  return r;
}

}  // namespace merlin
