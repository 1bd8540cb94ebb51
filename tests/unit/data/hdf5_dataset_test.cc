// The HDF5 adapter: real files in a temp dir, read back through the adapter and HDF5 itself.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "adapters/data/hdf5/hdf5_format.h"
#include "adapters/data/hdf5/hdf5_handle.h"
#include "tests/unit/samples/sample_test_files.h"

namespace merlin::hdf5 {
namespace {

using samples::testing::ScratchDir;

data::DatasetLayout layout() {
  data::DatasetLayout l;
  l.step = "sim";
  l.files = {"result.json"};
  l.input_columns = {"X", "Y"};
  l.fields = {{"result/e", {}}, {"result/v", {3}}};
  return l;
}

data::RowBatch batch(std::vector<std::uint64_t> ids) {
  data::RowBatch b;
  b.fields.resize(2);
  for (auto id : ids) {
    b.ids.push_back(id);
    b.status.push_back(1);
    b.inputs.insert(b.inputs.end(), {double(id), double(id) * 2});
    b.fields[0].push_f64({id + 0.5});
    b.fields[1].push_f64({double(id), double(id) + 1, double(id) + 2});
  }
  return b;
}

std::vector<double> read_doubles(const std::string& path, const std::string& name) {
  Hid f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  Hid d(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT));
  Hid space(H5Dget_space(d.get()));
  std::vector<double> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
  H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  return v;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CollectHdf5Dataset, AppendsRowsAndReopensWithLayoutAndIds) {
  ScratchDir dir;
  const auto path = dir.file("out.h5");
  auto format = hdf5_format();
  {
    auto sink = format->create(path, layout(), {"study", "spec text", "K=1", "/ws"});
    ASSERT_TRUE(sink.ok()) << sink.error().message;
    EXPECT_FALSE(std::filesystem::exists(path)) << "appears at its first append only";
    ASSERT_TRUE((*sink)->append(batch({4, 2})).ok());
    ASSERT_TRUE(std::filesystem::exists(path));
    ASSERT_TRUE((*sink)->append(batch({7})).ok());
    EXPECT_EQ((*sink)->rows(), 3u);
  }
  auto sink = format->open(path);
  ASSERT_TRUE(sink.ok()) << sink.error().message;
  EXPECT_EQ((*sink)->rows(), 3u);
  const auto& l = (*sink)->layout();
  EXPECT_EQ(l.step, "sim");
  EXPECT_EQ(l.files, std::vector<std::string>{"result.json"});
  EXPECT_EQ(l.input_columns, (std::vector<std::string>{"X", "Y"}));
  ASSERT_EQ(l.fields.size(), 2u);
  EXPECT_EQ(l.fields[1].name, "result/v");
  EXPECT_EQ(l.fields[1].shape, std::vector<std::uint64_t>{3});
  std::vector<std::uint64_t> ids;
  ASSERT_TRUE((*sink)
                  ->for_each_row([&](std::uint64_t, std::uint64_t id, data::SampleStatus) {
                    ids.push_back(id);
                  })
                  .ok());
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{4, 2, 7}));
  ASSERT_TRUE((*sink)->append(batch({9})).ok());
  sink->reset();
  EXPECT_EQ(read_doubles(path, "fields/result/e"), (std::vector<double>{4.5, 2.5, 7.5, 9.5}));
  EXPECT_EQ(read_doubles(path, "inputs"), (std::vector<double>{4, 8, 2, 4, 7, 14, 9, 18}));
  auto v = read_doubles(path, "fields/result/v");
  EXPECT_EQ(v.size(), 12u);
  EXPECT_EQ(v[3], 2.0);
}

TEST(CollectHdf5Dataset, RowsPastRowsCommittedAreDropped) {
  ScratchDir dir;
  const auto path = dir.file("out.h5");
  auto format = hdf5_format();
  {
    auto sink = format->create(path, layout(), {});
    ASSERT_TRUE((*sink)->append(batch({1, 2})).ok());
  }
  {  // an append cut short: rows written, rows_committed not moved on
    Hid f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    Hid d(H5Dopen2(f.get(), "sample_ids", H5P_DEFAULT));
    std::uint64_t more[2] = {3, 4};
    ASSERT_TRUE(write_rows(d.get(), H5T_NATIVE_UINT64, 2, 2, more).ok());
  }
  auto sink = format->open(path);
  ASSERT_TRUE(sink.ok());
  EXPECT_EQ((*sink)->rows(), 2u);
  std::vector<std::uint64_t> ids;
  ASSERT_TRUE((*sink)
                  ->for_each_row([&](std::uint64_t, std::uint64_t id, data::SampleStatus) {
                    ids.push_back(id);
                  })
                  .ok());
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{1, 2}));
  ASSERT_TRUE((*sink)->append(batch({5})).ok());
  sink->reset();
  Hid f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  Hid d(H5Dopen2(f.get(), "sample_ids", H5P_DEFAULT));
  EXPECT_EQ(dataset_dims(d.get()), std::vector<std::uint64_t>{3});
  std::uint64_t got[3];
  H5Dread(d.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, got);
  EXPECT_EQ(got[2], 5u);
}

TEST(CollectHdf5Dataset, RewriteReplacesRowsInPlaceAndCountsThemInTheFile) {
  ScratchDir dir;
  const auto path = dir.file("out.h5");
  auto format = hdf5_format();
  {
    auto sink = format->create(path, layout(), {"study", "spec", "", "/ws"});
    auto b = batch({0, 1, 2, 3});
    b.status = {1, 2, 2, 3};
    ASSERT_TRUE((*sink)->append(b).ok());
  }
  auto sink = format->open(path);
  ASSERT_TRUE(sink.ok()) << sink.error().message;
  std::vector<std::pair<std::uint64_t, int>> rows;
  ASSERT_TRUE((*sink)
                  ->for_each_row([&](std::uint64_t row, std::uint64_t, data::SampleStatus st) {
                    rows.push_back({row, int(st)});
                  })
                  .ok());
  EXPECT_EQ(rows, (std::vector<std::pair<std::uint64_t, int>>{{0, 1}, {1, 2}, {2, 2}, {3, 3}}));
  EXPECT_EQ((*sink)->rows_rewritten(), 0u);
  auto fix = batch({10, 30});  // rows 1 and 3: new values, ok
  ASSERT_TRUE((*sink)->rewrite({1, 3}, fix).ok());
  EXPECT_EQ((*sink)->rows_rewritten(), 2u);
  sink->reset();
  EXPECT_EQ(read_doubles(path, "status"), (std::vector<double>{1, 1, 2, 1}));
  EXPECT_EQ(read_doubles(path, "sample_ids"), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(read_doubles(path, "fields/result/e"), (std::vector<double>{0.5, 10.5, 2.5, 30.5}));
  auto again = format->open(path);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ((*again)->rows_rewritten(), 2u);
  EXPECT_EQ((*again)->rows(), 4u);
}

TEST(CollectHdf5Dataset, AChangedHeaderAttributeIsADamagedFileNamedAndLeftAsItIs) {
  ScratchDir dir;
  const auto path = dir.file("out.h5");
  auto format = hdf5_format();
  {
    auto sink = format->create(path, layout(), {"study", "spec", "", "/ws"});
    ASSERT_TRUE((*sink)->append(batch({1})).ok());
  }
  {
    Hid f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ASSERT_TRUE(write_string_attr(f.get(), "study", "stuDy").ok());
  }
  const auto before = bytes_of(path);
  auto r = format->open(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(r.error().message.rfind(path + ": damaged (", 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find("header_crc32c"), std::string::npos);
  EXPECT_EQ(bytes_of(path), before);
}

TEST(CollectHdf5Dataset, ForeignFilesAreBadInputAndLeftUntouched) {
  ScratchDir dir;
  const auto text = dir.file("notes.h5");
  samples::testing::write_file(text, "not hdf5");
  auto format = hdf5_format();
  auto r = format->open(text);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find(text), std::string::npos);

  const auto other = dir.file("other.h5");
  {
    Hid f(H5Fcreate(other.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_TRUE(write_string_attr(f.get(), "title", "someone else's").ok());
  }
  const auto before = bytes_of(other);
  auto o = format->open(other);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().code, ErrorCode::kBadInput);
  EXPECT_NE(o.error().message.find("not a dataset of merlin collect"), std::string::npos);
  EXPECT_EQ(bytes_of(other), before);
}

TEST(CollectHdf5Dataset, ACreatedFileNeverAppendedLeavesNothing) {
  ScratchDir dir;
  const auto path = dir.file("out.h5");
  {
    auto sink = hdf5_format()->create(path, layout(), {});
    ASSERT_TRUE(sink.ok());
  }
  EXPECT_TRUE(std::filesystem::is_empty(std::filesystem::path(path).parent_path()));
}

TEST(CollectHdf5Dataset, MatrixHoldsRowsAndColumnLabels) {
  ScratchDir dir;
  const auto path = dir.file("samples.h5");
  auto m = hdf5_format()->create_matrix(path, "samples", {"a", "b"});
  ASSERT_TRUE(m.ok());
  double rows[] = {1, 2, 3, 4, 5, 6};
  ASSERT_TRUE((*m)->append(rows, 2).ok());
  ASSERT_TRUE((*m)->append(rows + 4, 1).ok());
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_TRUE((*m)->commit().ok());
  EXPECT_EQ(read_doubles(path, "samples"), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  Hid f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  Hid d(H5Dopen2(f.get(), "samples", H5P_DEFAULT));
  EXPECT_EQ(dataset_dims(d.get()), (std::vector<std::uint64_t>{3, 2}));
  auto labels = read_strings_attr(d.get(), "column_labels");
  ASSERT_TRUE(labels.ok());
  EXPECT_EQ(*labels, (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace merlin::hdf5

namespace merlin::hdf5 {
namespace {

TEST(CollectHdf5Dataset, AnIterationColumnIsWrittenReadBackAndKeptOnAppend) {
  ScratchDir dir;
  const auto path = dir.file("loop.h5");
  auto format = hdf5_format();
  auto l = layout();
  l.iterations = true;
  {
    auto sink = format->create(path, l, {"study", "spec", "", "/ws"});
    ASSERT_TRUE(sink.ok()) << sink.error().message;
    auto b = batch({0, 1});
    b.iterations = {1, 2};
    ASSERT_TRUE((*sink)->append(b).ok());
    auto unkeyed = batch({2});
    EXPECT_FALSE((*sink)->append(unkeyed).ok()) << "a batch without iterations is refused";
  }
  auto sink = format->open(path);
  ASSERT_TRUE(sink.ok()) << sink.error().message;
  EXPECT_TRUE((*sink)->layout().iterations);
  auto b = batch({0});
  b.iterations = {3};
  ASSERT_TRUE((*sink)->append(b).ok());
  std::vector<std::pair<std::uint64_t, std::uint32_t>> keys;
  ASSERT_TRUE((*sink)
                  ->for_each_keyed_row([&](std::uint64_t, std::uint64_t id, std::uint32_t it,
                                           data::SampleStatus) { keys.emplace_back(id, it); })
                  .ok());
  EXPECT_EQ(keys, (std::vector<std::pair<std::uint64_t, std::uint32_t>>{{0, 1}, {1, 2}, {0, 3}}));
  sink->reset();
  EXPECT_EQ(read_doubles(path, "iteration"), (std::vector<double>{1, 2, 3}));
  auto again = format->open(path);
  ASSERT_TRUE(again.ok()) << "its header checksum covers the column: " << again.error().message;
}

TEST(CollectHdf5Dataset, AFileWithoutIterationsHasNoIterationDataset) {
  ScratchDir dir;
  const auto path = dir.file("plain.h5");
  auto format = hdf5_format();
  {
    auto sink = format->create(path, layout(), {});
    ASSERT_TRUE(sink.ok());
    ASSERT_TRUE((*sink)->append(batch({0})).ok());
  }
  Hid f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  EXPECT_EQ(H5Lexists(f.get(), "iteration", H5P_DEFAULT), 0);
  auto sink = format->open(path);
  ASSERT_TRUE(sink.ok());
  EXPECT_FALSE((*sink)->layout().iterations);
  std::vector<std::uint32_t> its;
  ASSERT_TRUE((*sink)
                  ->for_each_keyed_row([&](std::uint64_t, std::uint64_t, std::uint32_t it,
                                           data::SampleStatus) { its.push_back(it); })
                  .ok());
  EXPECT_EQ(its, std::vector<std::uint32_t>{1});
}

}  // namespace
}  // namespace merlin::hdf5
