#include "merlin/run/collect_writer.h"

#include "merlin/core/data/chunking.h"


namespace merlin::run {

using data::SampleStatus;

CollectWriter::CollectWriter(std::unique_ptr<data::DatasetSink> sink, data::DatasetLayout base,
                             Create create, Inputs inputs, Warn warn, std::size_t batch_rows)
    : sink_(std::move(sink)),
      base_(std::move(base)),
      create_(std::move(create)),
      inputs_(std::move(inputs)),
      warn_(std::move(warn)),
      asked_rows_(batch_rows ? batch_rows : 1),
      batch_rows_(asked_rows_) {
  if (sink_) size_batches();
}

void CollectWriter::size_batches() {
  const auto& layout = sink_->layout();
  batch_rows_ = data::batch_rows_for(asked_rows_, layout);
  batch_.fields.resize(layout.fields.size());
  redo_.fields.resize(layout.fields.size());
  // Room for a whole batch at once: no reallocation (and copy) of large columns as it fills.
  for (std::size_t i = 0; i < layout.fields.size(); ++i) {
    const auto& f = layout.fields[i];
    if (f.type == data::DType::kString) continue;
    batch_.fields[i].bytes.reserve(batch_rows_ * f.size() * data::dtype_size(f.type));
    if (data::needs_mask(f.type)) batch_.fields[i].missing.reserve(batch_rows_ * f.size());
  }
}

std::string CollectWriter::misfit(const data::SampleFields& fields) const {
  const auto& want = sink_->layout().fields;
  auto key_of = [](const std::string& field) {  // "result/a/b": key 'a/b' of result.json
    const auto slash = field.find('/');
    return slash == std::string::npos ? field : field.substr(slash + 1);
  };
  auto has = [](const auto& list, const std::string& name) {
    for (const auto& x : list)
      if (x.name == name) return true;
    return false;
  };
  // Keys added or dropped, named precisely ("an extra key 'k'", "a missing key 'e'").
  std::vector<std::string> extra, missing;
  for (const auto& f : fields)
    if (!has(want, f.name)) extra.push_back(f.name);
  for (const auto& w : want)
    if (!has(fields, w.name)) missing.push_back(w.name);
  auto listed = [&](const std::vector<std::string>& names, const char* one, const char* many,
                    const char* why) {
    std::string keys;
    for (const auto& n : names) keys += (keys.empty() ? "'" : ", '") + key_of(n) + "'";
    return (names.size() == 1 ? one : many) + keys + " (" + why + ")";
  };
  if (!extra.empty() || !missing.empty()) {
    std::string why;
    if (!extra.empty())
      why = listed(extra, "an extra key ", "extra keys ", "not one of the dataset's fields");
    if (!missing.empty())
      why += (why.empty() ? "" : "; ") +
             listed(missing, "a missing key ", "missing keys ", "in the dataset's fields");
    return why;
  }
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (fields[i].name != want[i].name)
      return "field " + want[i].name + " is not where the dataset's other samples have it (" +
             "keys in another order)";
    if (fields[i].shape != want[i].shape)
      return "field " + want[i].name + " has shape " + data::shape_text(fields[i].shape) +
             " where the dataset's is " + data::shape_text(want[i].shape);
    if (auto why = data::conversion_problem(fields[i], want[i].type); !why.empty()) return why;
  }
  return "";
}

void CollectWriter::push_row(data::RowBatch& batch, std::uint64_t id, SampleStatus st,
                             const data::SampleFields* fields, bool with_inputs) {
  const RowKey key = row_key ? row_key(id) : RowKey{id, 1};
  batch.ids.push_back(key.id);
  if (sink_->layout().iterations) batch.iterations.push_back(key.iteration);
  batch.status.push_back(static_cast<std::uint8_t>(st));
  if (with_inputs) inputs_(id, batch.inputs);
  const auto& lf = sink_->layout().fields;
  for (std::size_t i = 0; i < lf.size(); ++i) {
    if (fields)
      data::append_converted((*fields)[i], lf[i].type, batch.fields[i]);
    else
      data::append_missing(lf[i].type, lf[i].size(), batch.fields[i]);
  }
}

void CollectWriter::check_fit(SampleRead& s) const {
  if (s.status != SampleStatus::kOk) return;
  if (auto why = misfit(s.fields); !why.empty()) {
    s.status = SampleStatus::kMalformed;
    s.problem = std::move(why);
  }
}

Result<bool> CollectWriter::adopt_layout(const SampleRead& s) {
  if (sink_ || s.status != SampleStatus::kOk) return false;
  for (const auto& f : s.fields)
    if (f.size() == 0) return false;  // an empty field sets no layout (its sample is malformed)
  data::DatasetLayout layout = base_;
  for (const auto& f : s.fields) layout.fields.push_back({f.name, f.shape, f.type});
  auto made = create_(layout);
  if (!made) return made.error();
  sink_ = std::move(*made);
  size_batches();
  for (const auto& [id, st] : pending_) {
    push_row(batch_, id, st, nullptr, true);
    if (batch_.rows() >= batch_rows_)
      if (auto r = flush(); !r) return r.error();
  }
  pending_.clear();
  pending_.shrink_to_fit();
  return true;
}

Result<void> CollectWriter::add(SampleRead s) {
  if (s.status == SampleStatus::kOk)
    for (const auto& f : s.fields)
      if (f.size() == 0) {
        s.status = SampleStatus::kMalformed;
        s.problem = "field " + f.name + " is empty (shape " + data::shape_text(f.shape) + ")";
      }
  // Without a layout, an ok sample makes one: collect_run calls adopt_layout first, so this
  // happens only for a file that became readable after its scan.
  if (!sink_ && s.status == SampleStatus::kOk)
    if (auto made = adopt_layout(s); !made) return made.error();
  if (sink_) check_fit(s);
  if (s.status != SampleStatus::kOk) warn_(s);
  if (!sink_) {
    pending_.emplace_back(s.id, s.status);
    return ok();
  }
  push_row(batch_, s.id, s.status, s.status == SampleStatus::kOk ? &s.fields : nullptr, true);
  if (batch_.rows() >= batch_rows_) return flush();
  return ok();
}

Result<void> CollectWriter::rewrite(std::uint64_t row, SampleStatus was, SampleRead s) {
  if (!sink_) return Error::runtime("collect: a row to rewrite in a file not open");
  check_fit(s);
  if (s.status == was) return ok();  // still what the file says: nothing to write
  if (s.status != SampleStatus::kOk) warn_(s);
  redo_rows_.push_back(row);
  push_row(redo_, s.id, s.status, s.status == SampleStatus::kOk ? &s.fields : nullptr, false);
  if (redo_.rows() >= batch_rows_) return flush();
  return ok();
}

Result<void> CollectWriter::flush() {
  if (!sink_) return ok();
  if (redo_.rows() > 0) {
    if (auto r = sink_->rewrite(redo_rows_, redo_); !r) return r;
    for (std::size_t i = 0; i < redo_.rows(); ++i) rewritten_counts_[redo_.status[i]]++;
    rewritten_ += redo_.rows();
    redo_.clear();
    redo_rows_.clear();
  }
  if (batch_.rows() == 0) return ok();
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
