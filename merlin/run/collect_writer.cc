#include "merlin/run/collect_writer.h"

#include <limits>

namespace merlin::run {

using data::SampleStatus;

CollectWriter::CollectWriter(std::unique_ptr<data::DatasetSink> sink, data::DatasetLayout base,
                             Create create, Inputs inputs, Warn warn, std::size_t batch_rows)
    : sink_(std::move(sink)),
      base_(std::move(base)),
      create_(std::move(create)),
      inputs_(std::move(inputs)),
      warn_(std::move(warn)),
      batch_rows_(batch_rows ? batch_rows : 1) {
  if (sink_) batch_.fields.resize(sink_->layout().fields.size());
}

std::string CollectWriter::misfit(const data::SampleFields& fields) const {
  const auto& want = sink_->layout().fields;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (i >= fields.size() || fields[i].name != want[i].name) {
      bool anywhere = false;
      for (const auto& f : fields) anywhere |= f.name == want[i].name;
      if (!anywhere) return "field " + want[i].name + " is missing";
      return "field " + want[i].name + " is not where the dataset's other samples have it (" +
             "keys in another order)";
    }
    if (fields[i].shape != want[i].shape)
      return "field " + want[i].name + " has shape " + data::shape_text(fields[i].shape) +
             " where the dataset's is " + data::shape_text(want[i].shape);
  }
  if (fields.size() > want.size())
    return "field " + fields[want.size()].name + " is not one of the dataset's fields";
  return "";
}

void CollectWriter::push_row(std::uint64_t id, SampleStatus st, const data::SampleFields* fields) {
  batch_.ids.push_back(id);
  batch_.status.push_back(static_cast<std::uint8_t>(st));
  inputs_(id, batch_.inputs);
  const auto& lf = sink_->layout().fields;
  for (std::size_t i = 0; i < lf.size(); ++i) {
    auto& col = batch_.fields[i];
    if (fields)
      col.insert(col.end(), (*fields)[i].values.begin(), (*fields)[i].values.end());
    else
      col.insert(col.end(), lf[i].size(), std::numeric_limits<double>::quiet_NaN());
  }
}

Result<void> CollectWriter::add(SampleRead s) {
  if (s.status == SampleStatus::kOk && !sink_) {
    // The first sample whose outputs all read sets the fields of a new file.
    for (const auto& f : s.fields)
      if (f.size() == 0) {
        s.status = SampleStatus::kMalformed;
        s.problem = "field " + f.name + " is empty (shape " + data::shape_text(f.shape) + ")";
      }
    if (s.status == SampleStatus::kOk) {
      data::DatasetLayout layout = base_;
      for (const auto& f : s.fields) layout.fields.push_back({f.name, f.shape});
      auto made = create_(layout);
      if (!made) return made.error();
      sink_ = std::move(*made);
      batch_.fields.resize(sink_->layout().fields.size());
      for (const auto& [id, st] : pending_) {
        push_row(id, st, nullptr);
        if (batch_.rows() >= batch_rows_)
          if (auto r = flush(); !r) return r;
      }
      pending_.clear();
      pending_.shrink_to_fit();
    }
  }
  if (s.status == SampleStatus::kOk && sink_) {
    if (auto why = misfit(s.fields); !why.empty()) {
      s.status = SampleStatus::kMalformed;
      s.problem = std::move(why);
    }
  }
  if (s.status != SampleStatus::kOk) warn_(s);
  if (!sink_) {
    pending_.emplace_back(s.id, s.status);
    return ok();
  }
  push_row(s.id, s.status, s.status == SampleStatus::kOk ? &s.fields : nullptr);
  if (batch_.rows() >= batch_rows_) return flush();
  return ok();
}

Result<void> CollectWriter::flush() {
  if (!sink_ || batch_.rows() == 0) return ok();
  if (auto r = sink_->append(batch_); !r) return r;
  for (std::size_t i = 0; i < batch_.rows(); ++i) {
    counts_[batch_.status[i]]++;
    if (on_committed) on_committed(batch_.ids[i]);
  }
  written_ += batch_.rows();
  batch_.clear();
  return ok();
}

}  // namespace merlin::run
