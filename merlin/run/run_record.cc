#include "merlin/run/run_record.h"

#include <charconv>
#include <filesystem>
#include <sstream>
#include <string_view>

#include "merlin/core/util/files.h"

namespace merlin::run {
namespace {

// The line that marks a study found complete (a file of its own would change the workspace
// tree Merlin users compare).
constexpr const char* kFinishedLine = "\nfinished=1\n";

}  // namespace

std::string study_key_of(const std::string& workspace) {
  return std::filesystem::path(workspace).lexically_normal().filename().string();
}

std::string run_record_path(const std::string& workspace) {
  return workspace + "/merlin_info/run.env";
}

Result<void> write_run_record(const std::string& info_dir, const RunRecord& r) {
  // Reopening uses merlin_info/<stem>.orig.yaml with these, never the spec file outside.
  std::ostringstream out;
  out << "spec=" << r.spec_path << "\n";
  out << "timestamp=" << r.timestamp << "\n";
  out << "samples_file=" << r.samples_file << "\n";
  out << "samples=" << r.samples << "\n";
  if (r.lean) out << "layout=lean\n";
  for (const auto& [k, v] : r.vars) out << "var." << k << "=" << v << "\n";
  return files::write(info_dir + "/run.env", out.str());
}

Result<RunRecord> read_run_record(const std::string& workspace) {
  const std::string path = run_record_path(workspace);
  auto text = files::read(path);
  if (!text)
    return Error::bad_input(workspace + " is not a merlin workspace (no merlin_info/run.env)");
  RunRecord r;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    if (k == "spec") {
      r.spec_path = v;
    } else if (k == "timestamp") {
      r.timestamp = v;
    } else if (k == "samples_file") {
      r.samples_file = v;
    } else if (k == "samples") {
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), r.samples);
      if (ec != std::errc() || end != v.data() + v.size())
        return Error::bad_input(path + ": samples=" + v + " is not a count");
    } else if (k == "broker") {
      r.broker = v;
    } else if (k == "broker_at") {
      r.broker_at = v;
    } else if (k == "layout") {
      r.lean = v == "lean";
    } else if (k == "finished") {
      r.finished = v == "1";
    } else if (k.rfind("var.", 0) == 0) {
      r.vars.emplace_back(k.substr(4), v);
    }
  }
  return r;
}

Result<void> record_broker(const std::string& workspace, const std::string& broker,
                           const std::string& broker_at) {
  const std::string path = run_record_path(workspace);
  auto text = files::read(path);
  if (!text) return text.error();
  std::string kept;
  std::size_t at = 0;
  while (at < text->size()) {
    auto end = text->find('\n', at);
    if (end == std::string::npos) end = text->size();
    std::string_view line(text->data() + at, end - at);
    // A study queued (again) is not finished: status must not answer from its journals.
    if (!line.starts_with("broker=") && !line.starts_with("study_key=") &&
        !line.starts_with("broker_at=") && !line.starts_with("finished="))
      kept.append(line).push_back('\n');
    at = end + 1;
  }
  return files::write_atomic(path, kept + "broker=" + broker + "\nstudy_key=" +
                                       study_key_of(workspace) + "\nbroker_at=" + broker_at + "\n");
}

bool is_broker_workspace(const std::string& workspace) {
  auto r = read_run_record(workspace);
  return r && !r->broker.empty();
}

Result<void> mark_study_finished(const std::string& workspace) {
  const std::string path = run_record_path(workspace);
  auto text = files::read(path);
  if (!text) return text.error();
  if (text->find(kFinishedLine) != std::string::npos) return ok();
  // Workers that race here write the same text: whichever rename lands, the line is there.
  return files::write_atomic(path, *text + (kFinishedLine + 1));
}

}  // namespace merlin::run
