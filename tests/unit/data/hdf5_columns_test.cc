// Reading a collect dataset back for training: ok rows only, committed rows only, columns by
// name, and errors that name what is missing.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "adapters/data/hdf5/hdf5_columns.h"
#include "adapters/data/hdf5/hdf5_format.h"
#include "adapters/data/hdf5/hdf5_handle.h"
#include "tests/unit/samples/sample_test_files.h"

namespace merlin::hdf5 {
namespace {

using samples::testing::ScratchDir;

// Rows for ids: inputs (id, 10 id, 100 id), fields e = id + 0.5 and v = (id, -id).
void write_dataset(const std::string& path, const std::vector<std::uint64_t>& ids,
                   const std::vector<std::uint8_t>& status) {
  data::DatasetLayout l{"sim", {"r.json"}, {"A", "B", "C"}, {{"r/e", {}}, {"v", {2}}}};
  auto sink = hdf5_format()->create(path, l, {"s", "spec", "", "/ws"});
  ASSERT_TRUE(sink.ok()) << sink.error().message;
  data::RowBatch b;
  b.fields.resize(2);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const double id = static_cast<double>(ids[i]);
    b.ids.push_back(ids[i]);
    b.status.push_back(status[i]);
    b.inputs.insert(b.inputs.end(), {id, 10 * id, 100 * id});
    b.fields[0].push_f64({status[i] == 1 ? id + 0.5 : std::numeric_limits<double>::quiet_NaN()});
    b.fields[1].push_f64({id, -id});
  }
  ASSERT_TRUE((*sink)->append(b).ok());
}

TEST(Hdf5Columns, KeepsOkRowsAndChosenColumnsInTheOrderAsked) {
  ScratchDir dir;
  const auto path = dir.file("d.h5");
  write_dataset(path, {3, 5, 7, 9}, {1, 2, 1, 1});
  auto c = read_dataset_columns(path, {"C", "A"}, {"r/e", "v"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->sample_ids, (std::vector<std::uint64_t>{3, 7, 9}));
  EXPECT_EQ(c->input_names, (std::vector<std::string>{"C", "A"}));
  EXPECT_EQ(c->target_names, (std::vector<std::string>{"r/e", "v[0]", "v[1]"}));
  EXPECT_EQ(c->inputs, (std::vector<double>{300, 3, 700, 7, 900, 9}));
  EXPECT_EQ(c->targets, (std::vector<double>{3.5, 3, -3, 7.5, 7, -7, 9.5, 9, -9}));
  EXPECT_EQ(c->rows_committed, 4u);
}

TEST(Hdf5Columns, AllInputColumnsWhenNoneNamed) {
  ScratchDir dir;
  const auto path = dir.file("d.h5");
  write_dataset(path, {1}, {1});
  auto c = read_dataset_columns(path, {}, {"r/e"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->input_names, (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(c->inputs, (std::vector<double>{1, 10, 100}));
}

TEST(Hdf5Columns, ReadsOnlyRowsCommitted) {
  ScratchDir dir;
  const auto path = dir.file("d.h5");
  write_dataset(path, {1, 2, 3}, {1, 1, 1});
  {  // as if an append was cut short after its data but before rows_committed moved
    hdf5_quiet();
    Hid f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ASSERT_TRUE(write_u64_attr(f.get(), "rows_committed", 2).ok());
  }
  auto c = read_dataset_columns(path, {"A"}, {"r/e"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->sample_ids, (std::vector<std::uint64_t>{1, 2}));
}

TEST(Hdf5Columns, IndexDropsOkRowsWithANanTargetAndKeepsFileRows) {
  ScratchDir dir;
  const auto path = dir.file("d.h5");
  write_dataset(path, {3, 5, 7}, {1, 1, 1});
  {  // sample 5's e is NaN (a null in its JSON) though its status is ok
    hdf5_quiet();
    Hid f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    Hid d(H5Dopen2(f.get(), "fields/r/e", H5P_DEFAULT));
    const double v[3] = {3.5, std::nan(""), 7.5};
    ASSERT_GE(H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
  }
  auto index = read_dataset_index(path, {"A"}, {"r/e"});
  ASSERT_TRUE(index.ok()) << index.error().message;
  EXPECT_EQ(index->sample_ids, (std::vector<std::uint64_t>{3, 7}));
  EXPECT_EQ(index->file_rows, (std::vector<std::uint64_t>{0, 2}));
  EXPECT_TRUE(index->targets.empty()) << "an index holds no targets";
  auto all_v = read_dataset_index(path, {"A"}, {"v"});
  ASSERT_TRUE(all_v.ok());
  EXPECT_EQ(all_v->rows(), 3u) << "the NaN is in a field not chosen";
}

TEST(Hdf5Columns, AnIntegerTargetsMaskDropsItsMissingRowsAndAStringFieldIsNoTarget) {
  // n: int64 with a mask; sample 5's n is missing (a JSON null: 0 in the data, 1 in the mask)
  // though its status is ok. Its 0 must not be trained on.
  ScratchDir dir;
  const auto path = dir.file("d.h5");
  data::DatasetLayout l{"sim", {"r.json"}, {"A"}, {{"n", {}, data::DType::kInt64},
                                                    {"name", {}, data::DType::kString}}};
  auto sink = hdf5_format()->create(path, l, {"s", "spec", "", "/ws"});
  ASSERT_TRUE(sink.ok()) << sink.error().message;
  data::RowBatch b;
  b.fields.resize(2);
  const std::vector<std::int64_t> n = {30, 0, 70};
  for (std::size_t i = 0; i < 3; ++i) {
    b.ids.push_back(3 + 2 * i);
    b.status.push_back(1);
    b.inputs.push_back(static_cast<double>(i));
    const auto* p = reinterpret_cast<const unsigned char*>(&n[i]);
    b.fields[0].bytes.insert(b.fields[0].bytes.end(), p, p + sizeof n[i]);
    b.fields[0].missing.push_back(i == 1 ? 1 : 0);
    b.fields[1].strings.push_back("s" + std::to_string(i));
    b.fields[1].missing.push_back(0);
  }
  ASSERT_TRUE((*sink)->append(b).ok());
  sink->reset();
  auto c = read_dataset_columns(path, {"A"}, {"n"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->sample_ids, (std::vector<std::uint64_t>{3, 7}));
  EXPECT_EQ(c->targets, (std::vector<double>{30, 70}));
  auto s = read_dataset_columns(path, {"A"}, {"name"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kBadInput);
  EXPECT_NE(s.error().message.find("field 'name' holds strings"), std::string::npos)
      << s.error().message;
}

TEST(Hdf5Columns, TargetsOfChosenRowsInTheOrderAsked) {
  ScratchDir dir;
  const auto path = dir.file("d.h5");
  write_dataset(path, {3, 5, 7, 9}, {1, 1, 1, 1});
  auto t = read_dataset_targets(path, {"v", "r/e"}, {3, 0, 2});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(*t, (std::vector<double>{9, -9, 9.5, 3, -3, 3.5, 7, -7, 7.5}));
  auto beyond = read_dataset_targets(path, {"v"}, {4});
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.error().code, ErrorCode::kBadInput);
  EXPECT_NE(beyond.error().message.find("row 4 is not committed"), std::string::npos);
}

TEST(Hdf5Columns, UnknownColumnOrFieldIsBadInputNamingWhatThereIs) {
  ScratchDir dir;
  const auto path = dir.file("d.h5");
  write_dataset(path, {1}, {1});
  auto c = read_dataset_columns(path, {"Z"}, {"r/e"});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kBadInput);
  EXPECT_NE(c.error().message.find("'Z'"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("A, B, C"), std::string::npos) << c.error().message;
  auto f = read_dataset_columns(path, {}, {"r/nope"});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, ErrorCode::kBadInput);
  EXPECT_NE(f.error().message.find("'r/nope'"), std::string::npos) << f.error().message;
  EXPECT_NE(f.error().message.find("r/e, v"), std::string::npos) << f.error().message;
  EXPECT_NE(f.error().message.find(path), std::string::npos) << f.error().message;
}

TEST(Hdf5Columns, MissingOrForeignFileIsBadInput) {
  ScratchDir dir;
  auto missing = read_dataset_columns(dir.file("none.h5"), {}, {"x"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kBadInput);
  EXPECT_NE(missing.error().message.find("none.h5: no such file"), std::string::npos);
  { Hid f(H5Fcreate(dir.file("other.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)); }
  auto other = read_dataset_columns(dir.file("other.h5"), {}, {"x"});
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, ErrorCode::kBadInput);
  EXPECT_NE(other.error().message.find("not a merlin collect dataset"), std::string::npos);
}

}  // namespace
}  // namespace merlin::hdf5
