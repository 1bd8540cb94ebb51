#include "merlin/run/dry_run.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "merlin/run/progress.h"
#include "merlin/run/step_executors.h"
#include "workers/process_executor.h"

namespace merlin::run {

Result<std::uint64_t> lay_out_study(const PreparedStudy& s, int threads, bool progress) {
  const auto& graph = *s.graph;
  std::uint64_t total = graph.total_tasks();
  std::atomic<std::uint64_t> next{0}, done{0};
  std::mutex mu;
  std::optional<Error> error;       // guarded by mu
  std::atomic<bool> failed{false};  // error is set: read by the progress loop without mu
  auto exec = for_layout(process_executor(kDefaultKillWait), s);  // only lays out
  // Tasks are numbered across instances; each thread takes blocks of 256 consecutive tasks so
  // sibling sample directories are created by one thread (fewer mkdir races on parents).
  std::vector<std::uint64_t> starts;
  std::uint64_t acc = 0;
  for (const auto& i : graph.instances()) {
    starts.push_back(acc);
    acc += i.count;
  }
  auto locate = [&](std::uint64_t t) {
    auto it = std::upper_bound(starts.begin(), starts.end(), t);
    std::size_t inst = static_cast<std::size_t>(it - starts.begin()) - 1;
    return std::pair<InstanceId, SampleId>{InstanceId{static_cast<std::uint32_t>(inst)},
                                           t - starts[inst]};
  };
  auto work = [&] {
    while (true) {
      std::uint64_t lo = next.fetch_add(256);
      if (lo >= total) return;
      std::uint64_t hi = std::min(total, lo + 256);
      for (std::uint64_t t = lo; t < hi; ++t) {
        auto [inst, sample] = locate(t);
        auto p = exec->prepare(s.renderer->render(inst, sample, TaskKind::kCmd));
        if (p && !graph.step_of(inst).restart.empty())
          p = exec->prepare(s.renderer->render(inst, sample, TaskKind::kRestart));
        if (!p) {
          std::lock_guard lock(mu);
          if (!error) error = p.error();
          failed = true;
          next = total;
          return;
        }
      }
      done += hi - lo;
    }
  };
  std::vector<std::thread> pool;
  try {
    for (int i = 0; i < std::max(1, threads); ++i) pool.emplace_back(work);
  } catch (const std::system_error& e) {
    next = total;  // the threads already started stop after their current block
    for (auto& t : pool) t.join();
    return Error::runtime("cannot start " + std::to_string(threads) +
                          " threads to lay out the study: the system refused one after " +
                          std::to_string(pool.size()) + " (" + e.what() + "); use a lower -j");
  }
  if (progress && total > 100000) {
    auto line = progress_on(stderr, "laying out ", std::chrono::milliseconds(500),
                            std::chrono::seconds(10));
    while (done < total && !failed) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      line->update(done, total);
    }
    line->finish();
  }
  for (auto& t : pool) t.join();
  if (error) return *error;
  return total;
}

}  // namespace merlin::run
