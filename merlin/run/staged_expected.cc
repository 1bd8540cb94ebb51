#include "merlin/run/staged_expected.h"

#include <fnmatch.h>

#include <algorithm>
#include <tuple>

#include "merlin/core/workspace/journal.h"
#include "merlin/core/workspace/journal_tail.h"

namespace merlin::run {
namespace {

// A step whose succeeded tasks must have manifest lines, with what decides them.
struct StagedStep {
  const StepNode* node = nullptr;
  std::vector<std::string> patterns;
};

bool wanted(const std::vector<std::string>& steps, const std::string& name) {
  return steps.empty() || std::find(steps.begin(), steps.end(), name) != steps.end();
}

// The directory of `instance`'s task `sample`, relative to its step's directory.
std::string task_dir_below_step(const StudyGraph& g, const StepNode& node, InstanceId instance,
                                std::uint64_t sample) {
  std::string dir = g.fixed_task_dir(instance, sample);
  dir.erase(0, std::min(dir.size(), node.name.size() + 1));  // "<step>/" (or all of "<step>")
  return dir;
}

}  // namespace

bool listed_under(const std::string& dir, const std::string& path, const std::string& pattern) {
  if (!dir.empty()) {
    if (path.size() <= dir.size() + 1 || path.compare(0, dir.size(), dir) != 0 ||
        path[dir.size()] != '/')
      return false;
  }
  const char* rest = path.c_str() + (dir.empty() ? 0 : dir.size() + 1);
  return ::fnmatch(pattern.c_str(), rest, FNM_PATHNAME | FNM_PERIOD) == 0;
}

Result<ExpectedReport> find_unrecorded(const StudyGraph& graph, const std::string& info_dir,
                                       const ListedPaths& listed,
                                       const std::vector<std::string>& steps) {
  ExpectedReport r;
  std::vector<StagedStep> staged;
  for (const auto& node : graph.steps()) {
    if (node.spec == nullptr || !node.spec->run.scratch || node.spec->run.stage_out.empty() ||
        !wanted(steps, node.name))
      continue;
    if (node.fanout || node.loop >= 0 || node.tune) {
      r.unchecked_steps.push_back(node.name);
      continue;
    }
    StagedStep s{&node, {}};
    for (const auto& p : node.spec->run.stage_out) s.patterns.push_back(p.value);
    staged.push_back(std::move(s));
  }
  if (staged.empty()) return r;

  // The tasks committed as a success (a later failure of a rerun keeps the staged files).
  std::unordered_map<std::uint32_t, std::vector<bool>> succeeded;  // by instance
  for (const auto& s : staged)
    for (std::uint32_t i = 0; i < s.node->instance_count; ++i) {
      const InstanceId id{s.node->first_instance.v + i};
      succeeded[id.v].assign(graph.instance(id).count, false);
    }
  JournalTail tail;
  auto read = tail.read(
      info_dir, static_cast<std::uint32_t>(graph.instances().size()),
      [&] {
        for (auto& [id, bits] : succeeded) std::fill(bits.begin(), bits.end(), false);
      },
      [&](const JournalRecord& rec) {
        if (rec.started || rec.count || rec.trial || rec.outcome != Outcome::kSuccess) return;
        auto it = succeeded.find(rec.instance.v);
        if (it != succeeded.end() && rec.sample < it->second.size()) it->second[rec.sample] = true;
      });
  if (!read) return read.error();

  static const std::vector<std::string> kNone;
  for (const auto& s : staged) {
    const auto step_lines = listed.find(s.node->name);
    for (std::uint32_t i = 0; i < s.node->instance_count; ++i) {
      const InstanceId id{s.node->first_instance.v + i};
      const auto& bits = succeeded[id.v];
      for (std::uint64_t sample = 0; sample < bits.size(); ++sample) {
        if (!bits[sample]) continue;
        ++r.tasks;
        const std::vector<std::string>* paths = &kNone;
        if (step_lines != listed.end()) {
          auto it = step_lines->second.find(sample);
          if (it != step_lines->second.end()) paths = &it->second;
        }
        const std::string dir = task_dir_below_step(graph, *s.node, id, sample);
        for (const auto& pattern : s.patterns) {
          const bool found = std::any_of(paths->begin(), paths->end(), [&](const std::string& p) {
            return listed_under(dir, p, pattern);
          });
          if (!found) {
            r.unrecorded.push_back({s.node->name, sample, dir, pattern});
            break;
          }
        }
      }
    }
  }
  std::sort(r.unrecorded.begin(), r.unrecorded.end(),
            [](const UnrecordedTask& a, const UnrecordedTask& b) {
              return std::tie(a.step, a.sample, a.dir) < std::tie(b.step, b.sample, b.dir);
            });
  return r;
}

std::string unrecorded_line(const std::string& workspace, const UnrecordedTask& t) {
  return workspace + "/" + t.step + (t.dir.empty() ? "" : "/" + t.dir) + " (sample " +
         std::to_string(t.sample) + "): its step succeeded, but no manifest line matches its " +
         "stage_out pattern '" + t.pattern +
         "' (the manifest lines were lost: its staged files cannot be checked)";
}

}  // namespace merlin::run
