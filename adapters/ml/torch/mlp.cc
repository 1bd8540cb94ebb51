// The network, model.pt, and predictions from it.
#include "adapters/ml/torch/mlp.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "adapters/ml/torch/surrogate.h"

namespace merlin::torchml {
namespace {

torch::Tensor doubles(const std::vector<double>& v) {
  return torch::from_blob(const_cast<double*>(v.data()), {static_cast<long>(v.size())},
                          torch::kDouble)
      .clone();
}

std::vector<double> to_doubles(const torch::Tensor& t) {
  auto c = t.to(torch::kDouble).contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "\n") + x;
  return s;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size() && !s.empty()) {
    auto end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string read_string(torch::serialize::InputArchive& ar, const char* key) {
  c10::IValue v;
  ar.read(key, v);
  return v.toStringRef();
}

}  // namespace

MlpImpl::MlpImpl(int n_in, const std::vector<int>& hidden, int n_out) {
  net = register_module("net", torch::nn::Sequential());
  int prev = n_in;
  for (int h : hidden) {
    net->push_back(torch::nn::Linear(prev, h));
    net->push_back(torch::nn::SiLU());
    prev = h;
  }
  net->push_back(torch::nn::Linear(prev, n_out));
}

torch::Tensor flatten_parameters(Mlp& model) {
  std::vector<torch::Tensor> parts;
  for (auto& p : model->parameters()) parts.push_back(p.detach().reshape({-1}));
  return torch::cat(parts).contiguous();
}

void unflatten_parameters(Mlp& model, const torch::Tensor& flat) {
  torch::NoGradGuard no_grad;
  long offset = 0;
  for (auto& p : model->parameters()) {
    const long n = p.numel();
    p.copy_(flat.slice(0, offset, offset + n).view_as(p));
    offset += n;
  }
}

void write_architecture(torch::serialize::OutputArchive& ar, const ml::ModelCard& card) {
  std::vector<long> arch = {static_cast<long>(card.input_names.size())};
  for (int h : card.hidden) arch.push_back(h);
  arch.push_back(static_cast<long>(card.target_names.size()));
  ar.write("arch", torch::tensor(arch, torch::kLong));
  ar.write("input_names", c10::IValue(joined(card.input_names)));
  ar.write("target_names", c10::IValue(joined(card.target_names)));
}

Result<void> save_model(Mlp& model, const ml::ModelCard& card, const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string path = (fs::path(dir) / "model.pt").string();
  const std::string tmp =
      (fs::path(dir) / (".model.pt.tmp." + std::to_string(::getpid()))).string();
  try {
    torch::serialize::OutputArchive ar, weights;
    model->save(weights);
    ar.write("model", weights);
    write_architecture(ar, card);
    ar.write("input_mean", doubles(card.inputs.mean));
    ar.write("input_std", doubles(card.inputs.std));
    ar.write("target_mean", doubles(card.targets.mean));
    ar.write("target_std", doubles(card.targets.std));
    ar.save_to(tmp);
  } catch (const c10::Error& e) {
    std::remove(tmp.c_str());
    return Error::runtime("cannot write " + path + ": " + e.what_without_backtrace());
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return Error::runtime("cannot rename " + tmp + " to " + path);
  return ok();
}

Result<std::vector<double>> predict_surrogate(const std::string& model_dir,
                                              const std::vector<double>& x, std::size_t columns,
                                              ml::ModelCard* card) {
  const std::string path = (std::filesystem::path(model_dir) / "model.pt").string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return Error::bad_input(path + ": no such file (is " + model_dir + " a merlin-train --out?)");
  try {
    torch::serialize::InputArchive ar;
    ar.load_from(path);
    torch::Tensor arch_t;
    ar.read("arch", arch_t);
    auto arch = to_doubles(arch_t);
    ml::ModelCard c;
    for (std::size_t i = 1; i + 1 < arch.size(); ++i) c.hidden.push_back(static_cast<int>(arch[i]));
    torch::Tensor t;
    ar.read("input_mean", t), c.inputs.mean = to_doubles(t);
    ar.read("input_std", t), c.inputs.std = to_doubles(t);
    ar.read("target_mean", t), c.targets.mean = to_doubles(t);
    ar.read("target_std", t), c.targets.std = to_doubles(t);
    c.input_names = lines(read_string(ar, "input_names"));
    c.target_names = lines(read_string(ar, "target_names"));
    const int n_in = static_cast<int>(arch.front()), n_out = static_cast<int>(arch.back());
    if (columns != static_cast<std::size_t>(n_in))
      return Error::bad_input("the model takes " + std::to_string(n_in) + " inputs, the file has " +
                              std::to_string(columns) + " columns");
    Mlp model(n_in, c.hidden, n_out);
    torch::serialize::InputArchive weights;
    ar.read("model", weights);
    model->load(weights);
    model->eval();

    const std::size_t rows = columns ? x.size() / columns : 0;
    std::vector<float> xs(x.size());
    for (std::size_t r = 0; r < rows; ++r) c.inputs.apply(&x[r * columns], &xs[r * columns]);
    torch::NoGradGuard no_grad;
    auto in = torch::from_blob(xs.data(), {static_cast<long>(rows), n_in}, torch::kFloat);
    auto out = to_doubles(model->forward(in));
    for (std::size_t r = 0; r < rows; ++r) c.targets.invert(&out[r * n_out]);
    if (card) *card = std::move(c);
    return out;
  } catch (const c10::Error& e) {
    return Error::bad_input(path + ": cannot read the model: " + e.what_without_backtrace());
  }
}

}  // namespace merlin::torchml
