#include "merlin/run/database_view.h"

#include <algorithm>
#include <set>

namespace merlin::run {
namespace {

const char* const kRule = "------------------------------------------------\n";

// Python's repr of a list of strings, as Merlin prints its lists: ['a', 'b'].
std::string py_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? ", '" : "'") + items[i] + "'";
  return out + "]";
}

bool shares_queue(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& q) {
    return std::find(b.begin(), b.end(), q) != b.end();
  });
}

std::string ago(std::int64_t seen_ms, std::int64_t now_ms) {
  if (seen_ms <= 0) return "unknown";
  const std::int64_t s = std::max<std::int64_t>(0, (now_ms - seen_ms) / 1000);
  return std::to_string(s) + " s ago";
}

const DbRun* find_run(const DbView& v, const std::string& id) {
  for (const auto& r : v.runs)
    if (r.id == id || r.workspace == id) return &r;
  return nullptr;
}

}  // namespace

std::string DbLogicalWorker::id() const {
  std::string q;
  for (const auto& s : queues) q += (q.empty() ? "" : ",") + s;
  return name + " [" + q + "]";
}

std::vector<std::string> DbView::studies() const {
  std::vector<std::string> out;
  for (const auto& r : runs)
    if (std::find(out.begin(), out.end(), r.study) == out.end()) out.push_back(r.study);
  return out;
}

std::vector<const WorkerRecord*> DbView::instances(const DbLogicalWorker& w) const {
  std::vector<const WorkerRecord*> out;
  for (const auto& p : physical)
    if (p.name == w.name && shares_queue(p.queues, w.queues)) out.push_back(&p);
  return out;
}

std::vector<const WorkerRecord*> DbView::serving(const DbRun& r) const {
  std::vector<const WorkerRecord*> out;
  for (const auto& p : physical)
    if (p.spec_name == r.study && shares_queue(p.queues, r.queues)) out.push_back(&p);
  return out;
}

void add_logical_worker(DbView& view, const std::string& run_id, std::string name,
                        std::vector<std::string> queues) {
  std::sort(queues.begin(), queues.end());
  queues.erase(std::unique(queues.begin(), queues.end()), queues.end());
  for (auto& w : view.logical)
    if (w.name == name && w.queues == queues) {
      if (std::find(w.runs.begin(), w.runs.end(), run_id) == w.runs.end())
        w.runs.push_back(run_id);
      return;
    }
  DbLogicalWorker w{std::move(name), std::move(queues), {run_id}};
  auto at = std::lower_bound(
      view.logical.begin(), view.logical.end(), w,
      [](const DbLogicalWorker& a, const DbLogicalWorker& b) { return a.id() < b.id(); });
  view.logical.insert(at, std::move(w));
}

std::string render_info(const DbView& view, const std::string& kind, const std::string& version,
                        const std::string& address) {
  std::string out = "Merlin Database Information\n---------------------------\n";
  out += "General Information:\n";
  out += "- Database Type: " + kind + "\n";
  out += "- Database Version: " + version + "\n";
  out += "- Connection String: " + address + "\n\n";
  auto section = [&](const char* title, std::size_t n) {
    out += std::string(title) + ":\n- Total: " + std::to_string(n) + "\n\n";
  };
  section("Studies", view.studies().size());
  section("Runs", view.runs.size());
  section("Logical Workers", view.logical.size());
  section("Physical Workers", view.physical.size());
  out.pop_back();
  return out;
}

std::string render_study(const DbView& view, const std::string& name) {
  std::string out = "Study with ID " + name + "\n" + kRule + "Name: " + name + "\nRuns:\n";
  for (const auto& r : view.runs)
    if (r.study == name) out += "  - ID: " + r.id + "\n    Workspace: " + r.workspace + "\n";
  return out + "Additional Data: {}\n\n";
}

std::string render_run(const DbView& view, const DbRun& run) {
  std::string out = "Run with ID " + run.id + "\n" + kRule;
  out += "Workspace: " + run.workspace + "\n";
  out += "Study:\n  - ID: " + run.study + "\n    Name: " + run.study + "\n";
  out += "Queues: " + py_list(run.queues) + "\n";
  std::vector<std::string> workers;
  for (const auto* p : view.serving(run)) workers.push_back(p->id);
  out += "Workers: " + py_list(workers) + "\n";
  out += "Parent: None\nChild: None\n";
  out += std::string("Run Complete: ") + (run.complete() ? "True" : "False") + "\n";
  if (run.progress_known)
    out += "Progress: " + std::to_string(run.done) + "/" + std::to_string(run.total) +
           " tasks done, " + std::to_string(run.failed) + " failed\n";
  return out + "Additional Data: {}\n\n";
}

std::string render_logical(const DbView& view, const DbLogicalWorker& w) {
  std::string out = "Logical Worker with ID " + w.id() + "\n" + kRule + "Name: " + w.name +
                    "\nRuns:\n";
  for (const auto& id : w.runs) {
    const DbRun* r = find_run(view, id);
    out += "  - ID: " + id + "\n    Workspace: " + (r ? r->workspace : "") + "\n";
  }
  out += "Queues: " + py_list(w.queues) + "\nPhysical Workers:\n";
  for (const auto* p : view.instances(w))
    out += "  - ID: " + p->id + "\n    Name: " + p->name + "@" + p->host + "\n";
  return out + "Additional Data: {}\n\n";
}

std::string render_physical(const DbView& view, const WorkerRecord& w, std::int64_t now_ms) {
  std::string logical;
  for (const auto& l : view.logical)
    if (l.name == w.name && shares_queue(l.queues, w.queues)) logical = l.id();
  std::string out = "Physical Worker with ID " + w.id + "\n" + kRule;
  out += "Name: " + w.name + "@" + w.host + "\n";
  out += "Logical Worker ID: " + (logical.empty() ? std::string("None") : logical) + "\n";
  out += "Queues: " + py_list(w.queues) + "\n";
  out += "Slots: " + std::to_string(w.slots) + "\n";
  out += "Process ID: " + std::to_string(w.pid) + "\n";
  out += "Status: " + (w.study.empty() ? std::string("waiting") : "running " + w.study) + "\n";
  out += "Last Heartbeat: " + ago(w.seen_ms, now_ms) + "\n";
  out += "Host: " + w.host + "\n";
  out += "Batch Job: " + (w.job.empty() ? std::string("None") : w.job) + "\n";
  return out + "Additional Data: {}\n\n";
}

Result<DbSelection> select_entries(const DbView& view, const std::string& what,
                                   const std::vector<std::string>& ids, std::int64_t now_ms) {
  static const std::set<std::string> all_kinds = {"all-studies", "all-runs", "all-logical-workers",
                                                   "all-physical-workers", "everything"};
  static const std::set<std::string> one_kinds = {"study", "run", "logical-worker",
                                                  "physical-worker"};
  if (!all_kinds.count(what) && !one_kinds.count(what))
    return Error::bad_input("database get: '" + what +
                            "' is none of all-studies, study, all-runs, run, all-logical-workers, "
                            "logical-worker, all-physical-workers, physical-worker, everything");
  static const std::vector<std::pair<std::string, std::string>> pairs = {
      {"all-studies", "study"},
      {"all-runs", "run"},
      {"all-logical-workers", "logical-worker"},
      {"all-physical-workers", "physical-worker"}};
  if (all_kinds.count(what) && !ids.empty()) {
    std::string one;
    for (const auto& [all, single] : pairs)
      if (all == what) one = " (`database get " + single + " ID...` selects some)";
    return Error::bad_input("database get " + what + " takes no ids" + one);
  }
  if (one_kinds.count(what) && ids.empty()) {
    std::string all;
    for (const auto& [plural, single] : pairs)
      if (single == what) all = plural;
    return Error::bad_input("database get " + what + " needs one or more ids (`database get " +
                            all + "` lists them)");
  }
  DbSelection out;
  const bool every = what == "everything";
  if (every || what == "all-studies")
    for (const auto& s : view.studies()) out.text += render_study(view, s);
  if (every || what == "all-runs")
    for (const auto& r : view.runs) out.text += render_run(view, r);
  if (every || what == "all-logical-workers")
    for (const auto& w : view.logical) out.text += render_logical(view, w);
  if (every || what == "all-physical-workers")
    for (const auto& w : view.physical) out.text += render_physical(view, w, now_ms);
  for (const auto& id : ids) {
    bool found = false;
    if (what == "study") {
      auto names = view.studies();
      if ((found = std::find(names.begin(), names.end(), id) != names.end()))
        out.text += render_study(view, id);
    } else if (what == "run") {
      if (const DbRun* r = find_run(view, id)) {
        found = true;
        out.text += render_run(view, *r);
      }
    } else if (what == "logical-worker") {
      for (const auto& w : view.logical)
        if (w.id() == id || w.name == id) {
          found = true;
          out.text += render_logical(view, w);
        }
    } else {
      for (const auto& w : view.physical)
        if (w.id == id || w.name == id) {
          found = true;
          out.text += render_physical(view, w, now_ms);
        }
    }
    if (!found) out.missing.push_back(id);
  }
  return out;
}

}  // namespace merlin::run
