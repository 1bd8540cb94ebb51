// The data-parallel training loop and its checkpoints (the Horovod pattern on a Communicator).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "adapters/ml/torch/mlp.h"
#include "adapters/ml/torch/surrogate.h"
#include "adapters/ml/torch/warm_start.h"
#include "merlin/core/ml/checkpoint_files.h"
#include "merlin/core/ml/lr_schedule.h"
#include "merlin/core/ml/row_split.h"
#include "merlin/core/ml/train_report.h"

namespace merlin::torchml {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kKeepCheckpoints = 2;
constexpr int kHistoryFixed = 4;  // epoch, train_loss, seconds, lr; then one rmse per target

std::unique_ptr<torch::optim::Optimizer> make_optimizer(Mlp& model, const ml::TrainOptions& o) {
  if (o.optimizer == ml::OptimizerKind::kSgd)
    return std::make_unique<torch::optim::SGD>(model->parameters(),
                                               torch::optim::SGDOptions(o.lr).momentum(0.9));
  return std::make_unique<torch::optim::Adam>(model->parameters(), torch::optim::AdamOptions(o.lr));
}

torch::Tensor history_tensor(const std::vector<ml::EpochRecord>& h, std::size_t n_out) {
  const long cols = kHistoryFixed + static_cast<long>(n_out);
  auto t = torch::zeros({static_cast<long>(h.size()), cols}, torch::kDouble);
  auto a = t.accessor<double, 2>();
  for (std::size_t i = 0; i < h.size(); ++i) {
    a[i][0] = h[i].epoch, a[i][1] = h[i].train_loss, a[i][2] = h[i].seconds, a[i][3] = h[i].lr;
    for (std::size_t j = 0; j < n_out; ++j) a[i][kHistoryFixed + j] = h[i].val_rmse[j];
  }
  return t;
}

std::vector<ml::EpochRecord> history_records(const torch::Tensor& t) {
  std::vector<ml::EpochRecord> h;
  auto c = t.to(torch::kDouble).contiguous();
  auto a = c.accessor<double, 2>();
  for (long i = 0; i < c.size(0); ++i) {
    ml::EpochRecord r;
    r.epoch = static_cast<int>(a[i][0]), r.train_loss = a[i][1], r.seconds = a[i][2],
    r.lr = a[i][3];
    for (long j = kHistoryFixed; j < c.size(1); ++j) r.val_rmse.push_back(a[i][j]);
    h.push_back(std::move(r));
  }
  return h;
}

struct Progress {
  int epoch = 0;  // epochs done
  long step = 0;  // global steps done
  std::vector<ml::EpochRecord> history;
  torch::Tensor best_weights;  // flat parameters of best_epoch (undefined before epoch 1)
  int best_epoch = 0;
};

// The since_start column of the history (a tensor of its own: older checkpoints lack it).
torch::Tensor since_start_tensor(const std::vector<ml::EpochRecord>& h) {
  std::vector<double> v;
  for (const auto& r : h) v.push_back(r.since_start);
  return torch::tensor(v, torch::kDouble);
}

Result<void> write_checkpoint(Mlp& model, torch::optim::Optimizer& opt, const Progress& p,
                              const ml::ModelCard& card, const std::string& fingerprint,
                              const std::string& dir) {
  const std::size_t n_out = card.target_names.size();
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  const auto path = (fs::path(dir) / ml::checkpoint_name(p.epoch)).string();
  const auto tmp = (fs::path(dir) / ml::checkpoint_temp_name(p.epoch, ::getpid())).string();
  try {
    torch::serialize::OutputArchive ar, weights, state;
    model->save(weights);
    opt.save(state);
    ar.write("model", weights);
    ar.write("optimizer", state);
    ar.write("epoch", torch::tensor(static_cast<long>(p.epoch), torch::kLong));
    ar.write("step", torch::tensor(p.step, torch::kLong));
    ar.write("history", history_tensor(p.history, n_out));
    ar.write("history_since_start", since_start_tensor(p.history));
    ar.write("best_weights", p.best_weights);
    ar.write("best_epoch", torch::tensor(static_cast<long>(p.best_epoch), torch::kLong));
    ar.write("fingerprint", c10::IValue(fingerprint));
    write_architecture(ar, card);
    ar.save_to(tmp);
  } catch (const c10::Error& e) {
    std::remove(tmp.c_str());
    return Error::runtime("cannot write checkpoint " + path + ": " + e.what_without_backtrace());
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return Error::runtime("cannot rename " + tmp + " to " + path);
  if (auto all = ml::list_checkpoints(dir))
    for (const auto& old : ml::checkpoints_beyond(*all, kKeepCheckpoints))
      std::filesystem::remove(old.path, ec);
  return ok();
}

Result<Progress> read_checkpoint(Mlp& model, torch::optim::Optimizer& opt, const std::string& path,
                                 const std::string& fingerprint) {
  try {
    torch::serialize::InputArchive ar, weights, state;
    ar.load_from(path);
    c10::IValue fp;
    ar.read("fingerprint", fp);
    if (fp.toStringRef() != fingerprint)
      return Error::bad_input(fmt::format(
          "{} was written by a run with other options or data:\n  it: {}\n  now: {}\n(use "
          "another --checkpoint directory, or the same options)",
          path, fp.toStringRef(), fingerprint));
    ar.read("model", weights);
    model->load(weights);
    ar.read("optimizer", state);
    opt.load(state);
    torch::Tensor epoch, step, history;
    ar.read("epoch", epoch);
    ar.read("step", step);
    ar.read("history", history);
    Progress p{
        static_cast<int>(epoch.item<long>()), step.item<long>(), history_records(history), {}, 0};
    torch::Tensor since, best, best_epoch;
    if (ar.try_read("history_since_start", since) &&
        since.numel() == static_cast<long>(p.history.size()))
      for (std::size_t i = 0; i < p.history.size(); ++i)
        p.history[i].since_start = since[static_cast<long>(i)].item<double>();
    if (ar.try_read("best_weights", best) && ar.try_read("best_epoch", best_epoch)) {
      p.best_weights = best;
      p.best_epoch = static_cast<int>(best_epoch.item<long>());
    } else {
      // An older checkpoint kept no best: the weights it holds stand in for it.
      p.best_weights = flatten_parameters(model).clone();
      p.best_epoch = p.epoch;
    }
    return p;
  } catch (const c10::Error& e) {
    return Error::runtime("cannot read checkpoint " + path + ": " + e.what_without_backtrace());
  }
}

// The newest checkpoint's epoch, as rank 0 sees it, told to every rank (0: none).
Result<int> agreed_checkpoint(const std::string& dir, ml::Communicator& comm) {
  double epoch = 0;
  if (comm.rank() == 0) {
    auto all = ml::list_checkpoints(dir);
    if (!all)
      epoch = -1;
    else if (!all->empty())
      epoch = all->back().epoch;
  }
  if (auto r = comm.allreduce_sum(&epoch, 1); !r) return r.error();
  if (epoch < 0) return Error::runtime("cannot read checkpoint directory " + dir);
  return static_cast<int>(epoch);
}

// Averages the gradients (and the step's loss, appended) over the ranks: one allreduce.
Result<double> average_gradients(Mlp& model, const torch::Tensor& loss, ml::Communicator& comm) {
  std::vector<torch::Tensor> parts;
  auto params = model->parameters();
  for (auto& p : params) parts.push_back(p.grad().reshape({-1}));
  parts.push_back(loss.detach().reshape({1}));
  auto flat = torch::cat(parts).contiguous();
  if (auto r = comm.allreduce_sum(flat.data_ptr<float>(), flat.numel()); !r) return r.error();
  flat.div_(static_cast<double>(comm.size()));
  long offset = 0;
  for (auto& p : params) {
    const long n = p.numel();
    p.mutable_grad().copy_(flat.slice(0, offset, offset + n).view_as(p));
    offset += n;
  }
  return static_cast<double>(flat[offset].item<float>());
}

// Validation RMSE per target in target units over every rank's validation rows.
Result<std::vector<double>> validate(Mlp& model, const ml::TrainingSet& set,
                                     ml::Communicator& comm) {
  torch::NoGradGuard no_grad;
  model->eval();
  const long rows = static_cast<long>(set.val_shard_rows()), n_out = static_cast<long>(set.n_out);
  std::vector<double> sums(set.n_out + 1, 0.0);  // squared errors per target, then the count
  if (rows > 0) {
    auto x = torch::from_blob(const_cast<float*>(set.x_val.data()),
                              {rows, static_cast<long>(set.n_in)}, torch::kFloat);
    auto y = torch::from_blob(const_cast<float*>(set.y_val.data()), {rows, n_out}, torch::kFloat);
    auto sq = (model->forward(x) - y).pow(2).to(torch::kDouble).sum(0).contiguous();
    for (long j = 0; j < n_out; ++j) sums[j] = sq[j].item<double>();
    sums[set.n_out] = static_cast<double>(rows);
  }
  model->train();
  if (auto r = comm.allreduce_sum(sums.data(), sums.size()); !r) return r.error();
  std::vector<double> rmse(set.n_out);
  for (std::size_t j = 0; j < set.n_out; ++j)
    rmse[j] = std::sqrt(sums[j] / std::max(sums[set.n_out], 1.0)) * set.card.targets.std[j];
  return rmse;
}

// Whether the run is done early: --stop-at-target and the last epoch within the target.
bool reached_target(const std::vector<ml::EpochRecord>& h, const ml::TrainOptions& o) {
  return o.stop_at_target && o.target_error && !h.empty() &&
         ml::worst_rmse(h.back()) <= *o.target_error;
}

Result<TrainOutcome> train(const ml::TrainingSet& set, const ml::TrainOptions& o,
                           ml::Communicator& comm, const LogFn& log, Clock::time_point started,
                           const EpochFn& on_epoch) {
  const bool leader = comm.rank() == 0;
  auto say = [&](const std::string& s) {
    if (leader && log) log(s);
  };
  torch::manual_seed(o.seed);
  Mlp model(static_cast<int>(set.n_in), o.hidden, static_cast<int>(set.n_out));
  auto opt = make_optimizer(model, o);
  const std::string fingerprint =
      ml::run_fingerprint(o, set.card, set.train_rows_total + set.val_rows_total, comm.size());

  Progress p;
  TrainOutcome outcome;
  int resume_epoch = 0;
  if (!o.checkpoint_dir.empty()) {
    auto e = agreed_checkpoint(o.checkpoint_dir, comm);
    if (!e) return e.error();
    resume_epoch = *e;
  }
  if (resume_epoch > 0) {
    const auto path =
        (std::filesystem::path(o.checkpoint_dir) / ml::checkpoint_name(resume_epoch)).string();
    auto r = read_checkpoint(model, *opt, path, fingerprint);
    if (!r) return r.error();
    p = std::move(*r);
    outcome.resumed_from_epoch = p.epoch;
    say(fmt::format("resumed from {} epoch={} step={}", path, p.epoch, p.step));
  } else {
    if (!o.init_from.empty()) {
      auto file = resolve_initial_weights(o.init_from);
      if (!file) return file.error();
      if (auto r = load_initial_weights(model, set.card, *file); !r) return r.error();
      say("warm start from " + *file + " (fresh optimizer, epoch 0)");
    }
    // Every rank starts from rank 0's weights.
    auto flat = flatten_parameters(model);
    if (auto r = comm.broadcast(flat.data_ptr<float>(), flat.numel(), 0); !r) return r.error();
    unflatten_parameters(model, flat);
  }

  const std::size_t shard = set.shard_rows(), batch = static_cast<std::size_t>(o.batch);
  const std::size_t steps = ml::steps_per_epoch(shard, batch);
  const ml::LrSchedule schedule{o.lr, comm.size(),
                                static_cast<long>(o.warmup_epochs) * static_cast<long>(steps),
                                o.lr_decay, static_cast<long>(steps)};
  auto x_all =
      torch::from_blob(const_cast<float*>(set.x_train.data()),
                       {static_cast<long>(shard), static_cast<long>(set.n_in)}, torch::kFloat);
  auto y_all =
      torch::from_blob(const_cast<float*>(set.y_train.data()),
                       {static_cast<long>(shard), static_cast<long>(set.n_out)}, torch::kFloat);
  model->train();
  for (int epoch = p.epoch; epoch < o.epochs && !reached_target(p.history, o); ++epoch) {
    const auto t0 = Clock::now();
    const auto order = ml::epoch_order(shard, o.seed, epoch, comm.rank());
    double loss_sum = 0, lr = o.lr;
    for (std::size_t s = 0; s < steps; ++s) {
      const std::size_t lo = s * batch, hi = std::min(shard, lo + batch);
      std::vector<long> idx(order.begin() + lo, order.begin() + hi);
      auto index = torch::tensor(idx, torch::kLong);
      opt->zero_grad();
      auto loss = torch::mse_loss(model->forward(x_all.index_select(0, index)),
                                  y_all.index_select(0, index));
      loss.backward();
      auto mean_loss = average_gradients(model, loss, comm);
      if (!mean_loss) return mean_loss.error();
      if (!std::isfinite(*mean_loss))
        return Error::runtime(fmt::format(
            "training diverged: the loss is {} at epoch {} step {} (try a smaller --lr, now {})",
            *mean_loss, epoch + 1, s + 1, o.lr));
      lr = ml::learning_rate(schedule, p.step);
      for (auto& g : opt->param_groups()) g.options().set_lr(lr);
      opt->step();
      ++p.step;
      loss_sum += *mean_loss;
    }
    auto rmse = validate(model, set, comm);
    if (!rmse) return rmse.error();
    const auto t1 = Clock::now();
    ml::EpochRecord rec{epoch + 1, loss_sum / static_cast<double>(std::max<std::size_t>(steps, 1)),
                        *rmse,     std::chrono::duration<double>(t1 - t0).count(),
                        lr,        std::chrono::duration<double>(t1 - started).count()};
    p.history.push_back(rec);
    p.epoch = epoch + 1;
    say(ml::epoch_line(rec, o.epochs, set.card.target_names));
    for (double e : rec.val_rmse)
      if (!std::isfinite(e))
        return Error::runtime(
            fmt::format("training diverged: the validation RMSE is {} at epoch "
                        "{} (try a smaller --lr, now {})",
                        e, epoch + 1, o.lr));
    if (leader && on_epoch)
      if (auto r = on_epoch(rec); !r) return r.error();
    // Every rank has the same all-reduced errors, so the same best epoch and the same stop.
    if (p.best_epoch == 0 ||
        ml::worst_rmse(rec) <
            ml::worst_rmse(p.history[static_cast<std::size_t>(p.best_epoch - 1)])) {
      p.best_weights = flatten_parameters(model).clone();
      p.best_epoch = p.epoch;
    }
    const bool stop = reached_target(p.history, o);
    if (stop)
      say(fmt::format("target reached: epoch={} val_rmse={:.6g} <= {:.6g}, stopping", p.epoch,
                      ml::worst_rmse(rec), *o.target_error));
    const bool last = p.epoch == o.epochs || stop;
    if (!o.checkpoint_dir.empty() && (p.epoch % o.checkpoint_every == 0 || last) && leader) {
      if (auto r = write_checkpoint(model, *opt, p, set.card, fingerprint, o.checkpoint_dir); !r)
        return r.error();
      say(fmt::format(
          "checkpoint epoch={} file={}", p.epoch,
          (std::filesystem::path(o.checkpoint_dir) / ml::checkpoint_name(p.epoch)).string()));
    }
  }
  if (p.history.empty()) return Error::bad_input("no epoch to train (--epochs)");
  outcome.stopped_at_target = reached_target(p.history, o) && p.epoch < o.epochs;
  outcome.saved_epoch = p.best_epoch;
  if (p.best_weights.defined()) unflatten_parameters(model, p.best_weights);
  if (leader) {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec) return Error::runtime("cannot make " + o.out + ": " + ec.message());
    if (auto r = save_model(model, set.card, o.out); !r) return r.error();
  }
  outcome.history = std::move(p.history);
  return outcome;
}

}  // namespace

Result<TrainOutcome> train_surrogate(const ml::TrainingSet& set, const ml::TrainOptions& o,
                                     ml::Communicator& comm, const LogFn& log,
                                     std::chrono::steady_clock::time_point started,
                                     const EpochFn& on_epoch) {
  // One intra-op thread: ranks share the cores, and the sums stay in one order (deterministic).
  torch::set_num_threads(1);
  try {
    return train(set, o, comm, log, started, on_epoch);
  } catch (const c10::Error& e) {
    return Error::runtime(std::string("torch: ") + e.what_without_backtrace());
  }
}

}  // namespace merlin::torchml
