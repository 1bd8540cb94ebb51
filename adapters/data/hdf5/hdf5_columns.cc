#include "adapters/data/hdf5/hdf5_columns.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>

#include "adapters/data/hdf5/hdf5_handle.h"

namespace merlin::hdf5 {
namespace {

constexpr std::uint64_t kBlockRows = 4096;  // rows read at once when streaming a field

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Whether `path` ("fields/result/range") names a link, component by component (H5Lexists
// fails, rather than answering no, when an intermediate group is missing).
bool link_exists(hid_t file, const std::string& path) {
  std::size_t pos = 0;
  while (true) {
    pos = path.find('/', pos + 1);
    const std::string prefix = path.substr(0, pos);
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (pos == std::string::npos) return true;
  }
}

// An open dataset of at least `rows` rows, and the elements of one row.
struct RowsDataset {
  Hid d;
  std::vector<std::uint64_t> dims;
  std::uint64_t width = 1;
};

Result<RowsDataset> open_rows(hid_t file, const std::string& name, std::uint64_t rows) {
  RowsDataset r;
  r.d = Hid(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
  if (!r.d.valid()) return Error::bad_input("no dataset /" + name);
  r.dims = dataset_dims(r.d.get());
  if (r.dims.empty() || r.dims[0] < rows)
    return Error::bad_input("/" + name + " has fewer rows than rows_committed");
  for (std::size_t i = 1; i < r.dims.size(); ++i) r.width *= r.dims[i];
  return r;
}

// Rows [first, first + n) of an open dataset into `out` (n × width of mem_type).
Result<void> read_block(const RowsDataset& r, const std::string& name, std::uint64_t first,
                        std::uint64_t n, hid_t mem_type, void* out) {
  if (n == 0) return ok();
  Hid file_space(H5Dget_space(r.d.get()));
  std::vector<hsize_t> start(r.dims.size(), 0), count(r.dims.begin(), r.dims.end());
  start[0] = first;
  count[0] = n;
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                      nullptr);
  Hid mem_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr));
  if (H5Dread(r.d.get(), mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, out) < 0)
    return Error::runtime("cannot read /" + name);
  return ok();
}

template <typename T>
Result<std::vector<T>> read_all(hid_t file, const std::string& name, std::uint64_t rows,
                                hid_t mem_type, std::uint64_t* width) {
  auto r = open_rows(file, name, rows);
  if (!r) return r.error();
  if (width) *width = r->width;
  std::vector<T> out(rows * r->width);
  if (auto b = read_block(*r, name, 0, rows, mem_type, out.data()); !b) return b.error();
  return out;
}

// Calls each(first_row, n, values) for blocks of kBlockRows rows of a float64 dataset.
Result<void> for_each_block(
    const RowsDataset& r, const std::string& name, std::uint64_t rows,
    const std::function<void(std::uint64_t, std::uint64_t, const double*)>& each) {
  std::vector<double> block;
  for (std::uint64_t first = 0; first < rows; first += kBlockRows) {
    const std::uint64_t n = std::min(kBlockRows, rows - first);
    block.resize(n * r.width);
    if (auto b = read_block(r, name, first, n, H5T_NATIVE_DOUBLE, block.data()); !b) return b;
    each(first, n, block.data());
  }
  return ok();
}

Result<Hid> open_collect_file(const std::string& path) {
  hdf5_quiet();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Error::bad_input("no such file");
  if (H5Fis_hdf5(path.c_str()) <= 0) return Error::bad_input("not an HDF5 file");
  Hid f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!f.valid()) return Error::bad_input("cannot open (is a collect writing it?)");
  auto format = read_string_attr(f.get(), "format");
  if (!format || *format != "merlin-collect")
    return Error::bad_input("not a merlin collect dataset (no format=merlin-collect attribute)");
  return f;
}

Result<std::vector<RowsDataset>> open_targets(hid_t f, const std::vector<std::string>& targets,
                                              std::uint64_t rows) {
  if (targets.empty()) return Error::bad_input("no target field given");
  std::vector<RowsDataset> out;
  for (const auto& name : targets) {
    if (!link_exists(f, "fields/" + name)) {
      auto fields = read_strings_attr(f, "fields");
      return Error::bad_input("no field '" + name +
                              "' (fields: " + (fields ? join(*fields) : std::string("none")) + ")");
    }
    auto r = open_rows(f, "fields/" + name, rows);
    if (!r) return r.error();
    if (auto dtype = read_string_attr(r->d.get(), "dtype"); dtype && *dtype == "string")
      return Error::bad_input("field '" + name + "' holds strings: a target must be numeric");
    out.push_back(std::move(*r));
  }
  return out;
}

Result<data::DatasetColumns> read_index(hid_t f, const std::vector<std::string>& inputs,
                                        const std::vector<std::string>& targets) {
  auto committed = read_u64_attr(f, "rows_committed");
  if (!committed) return Error::bad_input("no rows_committed attribute");
  const std::uint64_t n = *committed;
  if (!link_exists(f, "inputs")) return Error::bad_input("no /inputs (the study has no samples)");

  data::DatasetColumns out;
  out.rows_committed = n;
  std::vector<std::string> columns;
  {
    Hid d(H5Dopen2(f, "inputs", H5P_DEFAULT));
    auto c = read_strings_attr(d.get(), "columns");
    if (!c) return Error::bad_input("/inputs has no columns attribute");
    columns = std::move(*c);
  }
  out.input_names = inputs.empty() ? columns : inputs;
  std::vector<std::size_t> input_cols;
  for (const auto& name : out.input_names) {
    auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end())
      return Error::bad_input("no input column '" + name + "' (columns: " + join(columns) + ")");
    input_cols.push_back(static_cast<std::size_t>(it - columns.begin()));
  }
  auto fields = open_targets(f, targets, n);
  if (!fields) return fields.error();
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const auto w = (*fields)[t].width;
    if (w == 1) {
      out.target_names.push_back(targets[t]);
    } else {
      for (std::uint64_t i = 0; i < w; ++i)
        out.target_names.push_back(targets[t] + "[" + std::to_string(i) + "]");
    }
  }
  std::uint64_t input_width = 0;
  auto in = read_all<double>(f, "inputs", n, H5T_NATIVE_DOUBLE, &input_width);
  if (!in) return in.error();
  auto status = read_all<std::uint8_t>(f, "status", n, H5T_NATIVE_UINT8, nullptr);
  if (!status) return status.error();
  auto ids = read_all<std::uint64_t>(f, "sample_ids", n, H5T_NATIVE_UINT64, nullptr);
  if (!ids) return ids.error();

  // Usable: ok, and no NaN among the chosen inputs and targets (a value a sample lacked).
  std::vector<char> usable(n);
  for (std::uint64_t r = 0; r < n; ++r) {
    usable[r] = (*status)[r] == 1;
    for (auto c : input_cols)
      if (!std::isfinite((*in)[r * input_width + c])) usable[r] = 0;
  }
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const auto w = (*fields)[t].width;
    auto b = for_each_block((*fields)[t], "fields/" + targets[t], n,
                            [&](std::uint64_t first, std::uint64_t rows, const double* v) {
                              for (std::uint64_t i = 0; i < rows * w; ++i)
                                if (!std::isfinite(v[i])) usable[first + i / w] = 0;
                            });
    if (!b) return b.error();
    // A field without NaN (integers, bool) marks a missing value in its mask, over a 0 that
    // must not be taken for a value (docs/collect.md, "Types").
    const std::string mask = "missing/" + targets[t];
    if (!link_exists(f, mask)) continue;
    auto m = open_rows(f, mask, n);
    if (!m) return m.error();
    const auto mw = m->width;
    auto c = for_each_block(*m, mask, n, [&](std::uint64_t first, std::uint64_t rows, const double* v) {
      for (std::uint64_t i = 0; i < rows * mw; ++i)
        if (v[i] != 0) usable[first + i / mw] = 0;
    });
    if (!c) return c.error();
  }
  for (std::uint64_t r = 0; r < n; ++r) {
    if (!usable[r]) continue;
    out.sample_ids.push_back((*ids)[r]);
    out.file_rows.push_back(r);
    for (auto c : input_cols) out.inputs.push_back((*in)[r * input_width + c]);
  }
  return out;
}

Result<std::vector<double>> read_targets(hid_t f, const std::vector<std::string>& targets,
                                         const std::vector<std::uint64_t>& file_rows) {
  auto committed = read_u64_attr(f, "rows_committed");
  if (!committed) return Error::bad_input("no rows_committed attribute");
  auto fields = open_targets(f, targets, *committed);
  if (!fields) return fields.error();
  std::uint64_t width = 0, end = 0;
  for (const auto& d : *fields) width += d.width;
  for (auto r : file_rows) {
    if (r >= *committed) return Error::bad_input("row " + std::to_string(r) + " is not committed");
    end = std::max(end, r + 1);
  }
  // Which requested positions each file row fills, by row: one pass over the blocks.
  std::vector<std::size_t> order(file_rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return file_rows[a] < file_rows[b]; });
  std::vector<double> out(file_rows.size() * width);
  std::uint64_t offset = 0;  // of this field's values within a row of `out`
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const auto w = (*fields)[t].width;
    std::size_t next = 0;  // into order
    auto b = for_each_block((*fields)[t], "fields/" + targets[t], end,
                            [&](std::uint64_t first, std::uint64_t rows, const double* v) {
                              while (next < order.size() && file_rows[order[next]] < first + rows) {
                                const auto pos = order[next++];
                                const double* src = v + (file_rows[pos] - first) * w;
                                std::copy(src, src + w, out.begin() + pos * width + offset);
                              }
                            });
    if (!b) return b.error();
    offset += w;
  }
  return out;
}

template <typename T>
Result<T> named(const std::string& path, Result<T> r) {
  if (!r) return Error{r.error().code, path + ": " + r.error().message, false};
  return r;
}

}  // namespace

Result<data::DatasetColumns> read_dataset_index(const std::string& path,
                                                const std::vector<std::string>& inputs,
                                                const std::vector<std::string>& targets) {
  auto f = open_collect_file(path);
  if (!f) return named<data::DatasetColumns>(path, f.error());
  return named(path, read_index(f->get(), inputs, targets));
}

Result<std::vector<double>> read_dataset_targets(const std::string& path,
                                                 const std::vector<std::string>& targets,
                                                 const std::vector<std::uint64_t>& file_rows) {
  auto f = open_collect_file(path);
  if (!f) return named<std::vector<double>>(path, f.error());
  return named(path, read_targets(f->get(), targets, file_rows));
}

Result<data::DatasetColumns> read_dataset_columns(const std::string& path,
                                                  const std::vector<std::string>& inputs,
                                                  const std::vector<std::string>& targets) {
  auto index = read_dataset_index(path, inputs, targets);
  if (!index) return index;
  auto t = read_dataset_targets(path, targets, index->file_rows);
  if (!t) return t.error();
  index->targets = std::move(*t);
  return index;
}

}  // namespace merlin::hdf5
