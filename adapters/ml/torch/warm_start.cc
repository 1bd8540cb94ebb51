// Another run's weights into this run's model, after checking they fit.
#include "adapters/ml/torch/warm_start.h"

#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "merlin/core/ml/checkpoint_files.h"

namespace merlin::torchml {
namespace {

std::string read_string(torch::serialize::InputArchive& ar, const char* key) {
  c10::IValue v;
  ar.read(key, v);
  return v.toStringRef();
}

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string widths(const std::vector<long>& v) {
  std::string s;
  for (long x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s.empty() ? "(none)" : s;
}

}  // namespace

Result<std::string> resolve_initial_weights(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return path;
  if (!fs::is_directory(path, ec))
    return Error::bad_input("--init-from " + path + ": no such file or directory");
  const auto model = (fs::path(path) / "model.pt").string();
  if (fs::is_regular_file(model, ec)) return model;
  auto all = ml::list_checkpoints(path);
  if (all && !all->empty()) return all->back().path;
  return Error::bad_input("--init-from " + path +
                          ": holds neither model.pt nor a checkpoint (epoch-NNNNNN.ckpt)");
}

Result<void> load_initial_weights(Mlp& model, const ml::ModelCard& card, const std::string& file) {
  std::vector<long> want = {static_cast<long>(card.input_names.size())};
  for (int h : card.hidden) want.push_back(h);
  want.push_back(static_cast<long>(card.target_names.size()));
  try {
    torch::serialize::InputArchive ar, weights;
    ar.load_from(file);
    torch::Tensor arch_t;
    if (!ar.try_read("arch", arch_t))
      return Error::bad_input("--init-from " + file +
                              ": records no architecture (a checkpoint of an older merlin-train?); "
                              "use that run's model.pt");
    auto a = arch_t.to(torch::kLong).contiguous();
    std::vector<long> have(a.data_ptr<long>(), a.data_ptr<long>() + a.numel());
    const auto in = read_string(ar, "input_names"), out = read_string(ar, "target_names");
    std::vector<std::string> diffs;
    if (in != joined(card.input_names, "\n"))
      diffs.push_back(
          fmt::format("inputs: it has [{}], this run [{}]", in, joined(card.input_names, ",")));
    if (out != joined(card.target_names, "\n"))
      diffs.push_back(
          fmt::format("targets: it has [{}], this run [{}]", out, joined(card.target_names, ",")));
    const std::vector<long> have_hidden(have.size() > 2 ? have.begin() + 1 : have.end(),
                                        have.size() > 2 ? have.end() - 1 : have.end());
    const std::vector<long> want_hidden(want.begin() + 1, want.end() - 1);
    if (have_hidden != want_hidden)
      diffs.push_back(fmt::format("hidden widths: it has {}, this run {} (--hidden)",
                                  widths(have_hidden), widths(want_hidden)));
    if (diffs.empty() && have != want)
      diffs.push_back(fmt::format("layers: it has {}, this run {}", widths(have), widths(want)));
    if (!diffs.empty()) {
      std::string msg = "--init-from " + file + " is a model of another architecture:";
      for (auto& d : diffs) {
        for (auto& c : d)
          if (c == '\n') c = ',';
        msg += "\n  " + d;
      }
      return Error::bad_input(msg + "\n(warm start needs the same --inputs, --target, --hidden)");
    }
    ar.read("model", weights);
    // Load into a model of the file's shape, then copy: Module::load does not check shapes.
    Mlp loaded(static_cast<int>(want.front()), card.hidden, static_cast<int>(want.back()));
    loaded->load(weights);
    unflatten_parameters(model, flatten_parameters(loaded));
    return ok();
  } catch (const c10::Error& e) {
    return Error::bad_input("--init-from " + file +
                            ": cannot read it: " + e.what_without_backtrace());
  }
}

}  // namespace merlin::torchml
