#include "adapters/data/hdf5/hdf5_columns.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>

#include "adapters/data/hdf5/hdf5_handle.h"

namespace merlin::hdf5 {
namespace {

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

// The first `rows` rows of a dataset as `mem_type`, with the size of one row in elements.
template <typename T>
Result<std::vector<T>> read_rows(hid_t file, const std::string& name, std::uint64_t rows,
                                 hid_t mem_type, std::uint64_t* row_size) {
  Hid d(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
  if (!d.valid()) return Error::bad_input("no dataset /" + name);
  auto dims = dataset_dims(d.get());
  if (dims.empty() || dims[0] < rows)
    return Error::bad_input("/" + name + " has fewer rows than rows_committed");
  std::uint64_t width = 1;
  for (std::size_t i = 1; i < dims.size(); ++i) width *= dims[i];
  if (row_size) *row_size = width;
  std::vector<T> out(rows * width);
  if (rows == 0) return out;
  Hid file_space(H5Dget_space(d.get()));
  std::vector<hsize_t> start(dims.size(), 0), count(dims.begin(), dims.end());
  count[0] = rows;
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                      nullptr);
  Hid mem_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr));
  if (H5Dread(d.get(), mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, out.data()) < 0)
    return Error::runtime("cannot read /" + name);
  return out;
}

Result<data::DatasetColumns> read_columns(hid_t f, const std::vector<std::string>& inputs,
                                          const std::vector<std::string>& targets) {
  auto format = read_string_attr(f, "format");
  if (!format || *format != "merlin-collect")
    return Error::bad_input("not a merlin collect dataset (no format=merlin-collect attribute)");
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
  if (targets.empty()) return Error::bad_input("no target field given");
  std::vector<std::vector<double>> target_data;
  std::vector<std::uint64_t> target_width;
  for (const auto& name : targets) {
    if (!link_exists(f, "fields/" + name)) {
      auto fields = read_strings_attr(f, "fields");
      return Error::bad_input("no field '" + name +
                              "' (fields: " + (fields ? join(*fields) : std::string("none")) + ")");
    }
    std::uint64_t w = 0;
    auto v = read_rows<double>(f, "fields/" + name, n, H5T_NATIVE_DOUBLE, &w);
    if (!v) return v.error();
    target_data.push_back(std::move(*v));
    target_width.push_back(w);
    if (w == 1) {
      out.target_names.push_back(name);
    } else {
      for (std::uint64_t i = 0; i < w; ++i)
        out.target_names.push_back(name + "[" + std::to_string(i) + "]");
    }
  }
  std::uint64_t input_width = 0;
  auto in = read_rows<double>(f, "inputs", n, H5T_NATIVE_DOUBLE, &input_width);
  if (!in) return in.error();
  auto status = read_rows<std::uint8_t>(f, "status", n, H5T_NATIVE_UINT8, nullptr);
  if (!status) return status.error();
  auto ids = read_rows<std::uint64_t>(f, "sample_ids", n, H5T_NATIVE_UINT64, nullptr);
  if (!ids) return ids.error();

  std::vector<double> row_in, row_out;
  for (std::uint64_t r = 0; r < n; ++r) {
    if ((*status)[r] != 1) continue;
    row_in.clear();
    row_out.clear();
    for (auto c : input_cols) row_in.push_back((*in)[r * input_width + c]);
    for (std::size_t t = 0; t < target_data.size(); ++t)
      for (std::uint64_t i = 0; i < target_width[t]; ++i)
        row_out.push_back(target_data[t][r * target_width[t] + i]);
    auto finite = [](double x) { return std::isfinite(x); };
    if (!std::all_of(row_in.begin(), row_in.end(), finite) ||
        !std::all_of(row_out.begin(), row_out.end(), finite))
      continue;
    out.sample_ids.push_back((*ids)[r]);
    out.inputs.insert(out.inputs.end(), row_in.begin(), row_in.end());
    out.targets.insert(out.targets.end(), row_out.begin(), row_out.end());
  }
  return out;
}

}  // namespace

Result<data::DatasetColumns> read_dataset_columns(const std::string& path,
                                                  const std::vector<std::string>& inputs,
                                                  const std::vector<std::string>& targets) {
  hdf5_quiet();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Error::bad_input(path + ": no such file");
  if (H5Fis_hdf5(path.c_str()) <= 0) return Error::bad_input(path + ": not an HDF5 file");
  Hid f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!f.valid()) return Error::bad_input(path + ": cannot open (is a collect writing it?)");
  auto r = read_columns(f.get(), inputs, targets);
  if (!r) return Error{r.error().code, path + ": " + r.error().message, false};
  return r;
}

}  // namespace merlin::hdf5
