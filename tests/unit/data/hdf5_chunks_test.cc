// Whole chunks written directly: the values read back through HDF5's own filters whatever the
// compression, rows split across appends that start and end inside chunks, a typed field's
// mask; and the batch sizes that keep memory bounded.
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "adapters/data/hdf5/hdf5_format.h"
#include "adapters/data/hdf5/hdf5_handle.h"
#include "merlin/core/data/chunking.h"
#include "tests/unit/samples/sample_test_files.h"

namespace merlin::hdf5 {
namespace {

using samples::testing::ScratchDir;

constexpr std::uint64_t kSide = 64;  // 64x64 float32 rows: 16 KiB, 64 rows a chunk

data::DatasetLayout image_layout(data::Compression c) {
  data::DatasetLayout l;
  l.step = "sim";
  l.files = {"img.npy", "r.json"};
  l.fields = {{"img", {kSide, kSide}, data::DType::kFloat32}, {"r/n", {}, data::DType::kInt64}};
  l.compression = c;
  return l;
}

float pixel(std::uint64_t row, std::uint64_t i) { return static_cast<float>(row) + i % 7 * 0.25f; }

data::RowBatch rows(std::uint64_t first, std::uint64_t n) {
  data::RowBatch b;
  b.fields.resize(2);
  for (std::uint64_t r = first; r < first + n; ++r) {
    b.ids.push_back(r);
    b.status.push_back(1);
    for (std::uint64_t i = 0; i < kSide * kSide; ++i) {
      const float v = pixel(r, i);
      const auto* p = reinterpret_cast<const unsigned char*>(&v);
      b.fields[0].bytes.insert(b.fields[0].bytes.end(), p, p + 4);
    }
    const std::int64_t n64 = static_cast<std::int64_t>(r) * 3;
    const auto* p = reinterpret_cast<const unsigned char*>(&n64);
    b.fields[1].bytes.insert(b.fields[1].bytes.end(), p, p + 8);
    b.fields[1].missing.push_back(r % 5 == 0);
  }
  return b;
}

void expect_rows(const std::string& path, std::uint64_t n) {
  Hid f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  Hid d(H5Dopen2(f.get(), "fields/img", H5P_DEFAULT));
  std::vector<float> img(n * kSide * kSide);
  ASSERT_GE(H5Dread(d.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, img.data()), 0);
  std::uint64_t wrong = 0;
  for (std::uint64_t r = 0; r < n; ++r)
    for (std::uint64_t i = 0; i < kSide * kSide; ++i) wrong += img[r * kSide * kSide + i] != pixel(r, i);
  EXPECT_EQ(wrong, 0u);
  Hid nd(H5Dopen2(f.get(), "fields/r/n", H5P_DEFAULT));
  Hid md(H5Dopen2(f.get(), "missing/r/n", H5P_DEFAULT));
  std::vector<std::int64_t> ns(n);
  std::vector<std::uint8_t> gone(n);
  H5Dread(nd.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, ns.data());
  H5Dread(md.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, gone.data());
  for (std::uint64_t r = 0; r < n; ++r) {
    EXPECT_EQ(ns[r], static_cast<std::int64_t>(r) * 3);
    EXPECT_EQ(gone[r], r % 5 == 0);
  }
}

class DirectChunks : public ::testing::TestWithParam<const char*> {};

TEST_P(DirectChunks, ValuesReadBackThroughHdf5AcrossUnalignedAppends) {
  ScratchDir dir;
  const auto path = dir.file("out.h5");
  auto c = data::parse_compression(GetParam());
  ASSERT_TRUE(c.ok());
  if (c->kind == data::Compression::Kind::kLz4 && H5Zfilter_avail(kLz4Filter) <= 0)
    GTEST_SKIP() << "no HDF5 LZ4 plugin to read the chunks back (apt-get install hdf5-filter-plugin)";
  {
    auto sink = hdf5_format()->create(path, image_layout(*c), {"s", "spec", "", "/ws"});
    ASSERT_TRUE(sink.ok()) << sink.error().message;
    (*sink)->set_compress_threads(3);
    // 0-99 (a chunk and a part), 100-299 (the rest of one, two whole, a part), 300-319.
    ASSERT_TRUE((*sink)->append(rows(0, 100)).ok());
    ASSERT_TRUE((*sink)->append(rows(100, 200)).ok());
  }
  {
    auto sink = hdf5_format()->open(path);  // appending to it again: the file's own filters
    ASSERT_TRUE(sink.ok()) << sink.error().message;
    EXPECT_EQ((*sink)->layout().fields[0].type, data::DType::kFloat32);
    EXPECT_EQ((*sink)->layout().fields[1].type, data::DType::kInt64);
    ASSERT_TRUE((*sink)->append(rows(300, 20)).ok());
  }
  expect_rows(path, 320);
}

INSTANTIATE_TEST_SUITE_P(Compressions, DirectChunks, ::testing::Values("none", "gzip:1", "lz4"));

TEST(Chunking, BatchesAreBoundedInBytesAndWholeChunksOfTheWidestField) {
  data::DatasetLayout scalars;
  scalars.fields = {{"a", {}}, {"b", {}}};
  EXPECT_EQ(data::batch_rows_for(1024, scalars), 1024u);
  data::DatasetLayout images;
  images.fields = {{"img", {128, 128}, data::DType::kFloat32}, {"e", {}}};
  EXPECT_EQ(data::chunk_rows_for(128 * 128 * 4), 16u);
  const auto rows = data::batch_rows_for(1024, images);
  EXPECT_EQ(rows % 16, 0u);
  EXPECT_LE(rows * (128 * 128 * 4 + 8), data::kBatchBytes);
  EXPECT_EQ(data::batch_rows_for(10, images), 10u);  // less than a chunk: as asked
  data::DatasetLayout huge;
  huge.fields = {{"cube", {512, 512, 64}, data::DType::kFloat64}};
  EXPECT_EQ(data::batch_rows_for(1024, huge), 1u);
  EXPECT_EQ(data::queue_items_for(1024, images), 255u);
  EXPECT_EQ(data::queue_items_for(1024, huge), 16u);
  EXPECT_EQ(data::queue_items_for(1024, scalars), 1024u);
}

}  // namespace
}  // namespace merlin::hdf5
