// CollectWriter: the layout from the sample it is given (or the first readable one), rows that
// do not fit marked malformed, failed samples kept until a layout exists, batches, rewrites of
// rows whose status changed.
#include "merlin/run/collect_writer.h"

#include <cmath>

#include <gtest/gtest.h>

#include "merlin/run/bounded_queue.h"

#include <thread>

namespace merlin::run {
namespace {

using data::SampleStatus;

// Records appended batches.
class RecordingSink : public data::DatasetSink {
 public:
  explicit RecordingSink(data::DatasetLayout l) : layout_(std::move(l)) {}
  const data::DatasetLayout& layout() const override { return layout_; }
  std::uint64_t rows() const override { return ids.size(); }
  Result<void> for_each_row(
      const std::function<void(std::uint64_t, std::uint64_t, SampleStatus)>& each) override {
    for (std::size_t i = 0; i < ids.size(); ++i)
      each(i, ids[i], static_cast<SampleStatus>(status[i]));
    return ok();
  }
  std::uint64_t rows_rewritten() const override { return rewritten; }
  Result<void> rewrite(const std::vector<std::uint64_t>& rows, const data::RowBatch& b) override {
    rewrites++;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      status.at(rows[i]) = b.status[i];
      for (std::size_t f = 0; f < b.fields.size(); ++f) {
        const std::size_t w = layout_.fields[f].size();
        for (std::size_t k = 0; k < w; ++k)
          fields[f].at(rows[i] * w + k) = b.fields[f].f64(i * w + k);
      }
    }
    rewritten += rows.size();
    return ok();
  }
  std::uint64_t rewritten = 0;
  int rewrites = 0;
  Result<void> append(const data::RowBatch& b) override {
    appends++;
    ids.insert(ids.end(), b.ids.begin(), b.ids.end());
    status.insert(status.end(), b.status.begin(), b.status.end());
    inputs.insert(inputs.end(), b.inputs.begin(), b.inputs.end());
    fields.resize(b.fields.size());
    for (std::size_t i = 0; i < b.fields.size(); ++i)
      for (std::size_t k = 0; k < b.fields[i].bytes.size() / 8; ++k)
        fields[i].push_back(b.fields[i].f64(k));
    return ok();
  }
  data::DatasetLayout layout_;
  std::vector<std::uint64_t> ids;
  std::vector<std::uint8_t> status;
  std::vector<double> inputs;
  std::vector<std::vector<double>> fields;
  int appends = 0;
};

SampleRead ok_sample(std::uint64_t id, std::vector<double> v) {
  SampleRead s;
  s.id = id;
  s.fields.push_back(data::Field::of_doubles("r/e", {}, {double(id)}));
  s.fields.push_back(data::Field::of_doubles("r/v", {v.size()}, v));
  return s;
}

SampleRead bad(std::uint64_t id, SampleStatus st) {
  SampleRead s;
  s.id = id;
  s.status = st;
  s.problem = "why";
  return s;
}

struct Fixture {
  RecordingSink* sink = nullptr;
  int creates = 0;
  std::vector<std::uint64_t> warned;
  CollectWriter make(std::size_t batch) {
    data::DatasetLayout base;
    base.step = "sim";
    base.input_columns = {"X"};
    return CollectWriter(
        nullptr, base,
        [this](const data::DatasetLayout& l) -> Result<std::unique_ptr<data::DatasetSink>> {
          creates++;
          auto s = std::make_unique<RecordingSink>(l);
          sink = s.get();
          return std::unique_ptr<data::DatasetSink>(std::move(s));
        },
        [](std::uint64_t id, std::vector<double>& out) { out.push_back(id * 10.0); },
        [this](const SampleRead& s) { warned.push_back(s.id); }, batch);
  }
};

TEST(CollectWriter, FirstReadableSampleSetsTheLayoutAndEarlierFailuresFollowIt) {
  Fixture fx;
  auto w = fx.make(100);
  ASSERT_TRUE(w.add(bad(3, SampleStatus::kFailed)).ok());
  EXPECT_EQ(fx.creates, 0);
  EXPECT_EQ(w.waiting(), 1u);
  ASSERT_TRUE(w.add(ok_sample(5, {1, 2})).ok());
  ASSERT_EQ(fx.creates, 1);
  ASSERT_TRUE(w.flush().ok());
  ASSERT_EQ(fx.sink->layout().fields.size(), 2u);
  EXPECT_EQ(fx.sink->layout().fields[1].shape, std::vector<std::uint64_t>{2});
  EXPECT_EQ(fx.sink->ids, (std::vector<std::uint64_t>{3, 5}));
  EXPECT_EQ(fx.sink->status, (std::vector<std::uint8_t>{2, 1}));
  EXPECT_EQ(fx.sink->inputs, (std::vector<double>{30, 50}));
  EXPECT_TRUE(std::isnan(fx.sink->fields[1][0]) && std::isnan(fx.sink->fields[1][1]));
  EXPECT_EQ(fx.sink->fields[1][2], 1);
  EXPECT_EQ(fx.warned, std::vector<std::uint64_t>{3});
}

TEST(CollectWriter, AFieldOfAnotherShapeOrMissingMarksTheSampleMalformed) {
  Fixture fx;
  auto w = fx.make(100);
  ASSERT_TRUE(w.add(ok_sample(0, {1, 2})).ok());
  ASSERT_TRUE(w.add(ok_sample(1, {1, 2, 3})).ok());
  SampleRead missing_field = ok_sample(2, {1, 2});
  missing_field.fields.erase(missing_field.fields.begin());
  ASSERT_TRUE(w.add(missing_field).ok());
  SampleRead extra = ok_sample(3, {1, 2});
  extra.fields.push_back(data::Field::of_doubles("r/z", {}, {1}));
  ASSERT_TRUE(w.add(extra).ok());
  ASSERT_TRUE(w.flush().ok());
  EXPECT_EQ(fx.sink->status, (std::vector<std::uint8_t>{1, 3, 3, 3}));
  EXPECT_EQ(w.counts()[1], 1u);
  EXPECT_EQ(w.counts()[3], 3u);
  EXPECT_EQ(fx.warned, (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_TRUE(std::isnan(fx.sink->fields[0][1]));
}

TEST(CollectWriter, AppendsInBatchesAndReportsCommittedIds) {
  Fixture fx;
  auto w = fx.make(2);
  std::vector<std::uint64_t> committed;
  w.on_committed = [&](std::uint64_t id) { committed.push_back(id); };
  for (std::uint64_t i = 0; i < 5; ++i) ASSERT_TRUE(w.add(ok_sample(i, {1})).ok());
  EXPECT_EQ(fx.sink->appends, 2);
  EXPECT_EQ(committed.size(), 4u);
  ASSERT_TRUE(w.flush().ok());
  EXPECT_EQ(fx.sink->appends, 3);
  EXPECT_EQ(committed.size(), 5u);
  EXPECT_EQ(w.written(), 5u);
}

TEST(CollectWriter, AnEmptyFirstFieldSetsNoLayout) {
  Fixture fx;
  auto w = fx.make(10);
  SampleRead s = ok_sample(0, {});
  ASSERT_TRUE(w.add(s).ok());
  EXPECT_EQ(fx.creates, 0);
  EXPECT_EQ(w.waiting(), 1u);
}

TEST(CollectWriter, AdoptLayoutTakesTheSampleItIsGivenWhateverComesFirstAfter) {
  Fixture fx;
  auto w = fx.make(100);
  ASSERT_FALSE(*w.adopt_layout(bad(0, SampleStatus::kMalformed)));
  ASSERT_FALSE(*w.adopt_layout(ok_sample(1, {})));  // an empty field: no layout
  EXPECT_FALSE(w.has_layout());
  ASSERT_TRUE(*w.adopt_layout(ok_sample(2, {1, 2, 3})));  // the lowest id that reads
  ASSERT_TRUE(w.add(ok_sample(9, {1, 2})).ok());          // came first from a reader thread
  ASSERT_TRUE(w.add(ok_sample(2, {1, 2, 3})).ok());
  ASSERT_TRUE(w.flush().ok());
  EXPECT_EQ(fx.creates, 1);
  EXPECT_EQ(fx.sink->layout().fields[1].shape, std::vector<std::uint64_t>{3});
  EXPECT_EQ(fx.sink->status, (std::vector<std::uint8_t>{3, 1}));
}

TEST(CollectWriter, ARowWhoseStatusChangedIsRewrittenInPlaceAndCounted) {
  Fixture fx;
  auto w = fx.make(100);
  ASSERT_TRUE(w.add(ok_sample(0, {1, 2})).ok());
  ASSERT_TRUE(w.add(bad(1, SampleStatus::kFailed)).ok());
  ASSERT_TRUE(w.add(bad(2, SampleStatus::kMalformed)).ok());
  ASSERT_TRUE(w.flush().ok());
  ASSERT_TRUE(std::isnan(fx.sink->fields[0][1]));
  // Sample 1 repaired by a restart; sample 2 read again, still malformed.
  ASSERT_TRUE(w.rewrite(1, SampleStatus::kFailed, ok_sample(1, {7, 8})).ok());
  ASSERT_TRUE(w.rewrite(2, SampleStatus::kMalformed, bad(2, SampleStatus::kMalformed)).ok());
  ASSERT_TRUE(w.flush().ok());
  EXPECT_EQ(fx.sink->ids, (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(fx.sink->status, (std::vector<std::uint8_t>{1, 1, 3}));
  EXPECT_EQ(fx.sink->fields[0][1], 1);
  EXPECT_EQ(fx.sink->fields[1][2], 7);
  EXPECT_EQ(fx.sink->fields[1][3], 8);
  EXPECT_EQ(fx.sink->rewritten, 1u);
  EXPECT_EQ(w.rewritten(), 1u);
  EXPECT_EQ(w.rewritten_counts()[1], 1u);
  EXPECT_EQ(w.written(), 3u);
}

TEST(CollectWriter, ARepairedRowOfAnotherShapeIsRewrittenAsMalformed) {
  Fixture fx;
  auto w = fx.make(100);
  ASSERT_TRUE(w.add(ok_sample(0, {1, 2})).ok());
  ASSERT_TRUE(w.add(bad(1, SampleStatus::kFailed)).ok());
  ASSERT_TRUE(w.flush().ok());
  ASSERT_TRUE(w.rewrite(1, SampleStatus::kFailed, ok_sample(1, {7, 8, 9})).ok());
  ASSERT_TRUE(w.flush().ok());
  EXPECT_EQ(fx.sink->status, (std::vector<std::uint8_t>{1, 3}));
  EXPECT_TRUE(std::isnan(fx.sink->fields[1][2]));
  EXPECT_EQ(w.rewritten_counts()[3], 1u);
}

TEST(CollectQueue, BoundedQueuePassesEveryItemOnceAtEachThreadCount) {
  for (int producers : {1, 2, 4}) {
    BoundedQueue<int> q(3);
    std::vector<std::thread> ts;
    std::atomic<int> left{producers};
    for (int p = 0; p < producers; ++p)
      ts.emplace_back([&, p] {
        for (int i = 0; i < 1000; ++i) q.push(p * 1000 + i);
        if (--left == 0) q.close();
      });
    std::vector<int> seen(producers * 1000, 0);
    while (auto v = q.pop()) seen[*v]++;
    for (auto& t : ts) t.join();
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), producers * 1000) << producers;
  }
}

TEST(CollectQueue, BatchesPassEveryItemOnceInTheirOrderAndNeverFillPastTheCapacity) {
  for (int producers : {1, 2, 4}) {
    constexpr std::size_t kCapacity = 8;
    BoundedQueue<int> q(kCapacity);
    std::vector<std::thread> ts;
    std::atomic<int> left{producers};
    for (int p = 0; p < producers; ++p)
      ts.emplace_back([&, p] {
        std::vector<int> batch;
        // Batches of 1 to 11 items: 9, 10 and 11 are more than the capacity, and go in alone.
        for (int i = 0, size = 1; i < 1000; size = size % 11 + 1) {
          for (int k = 0; k < size && i < 1000; ++k) batch.push_back(p * 1000 + i++);
          const std::size_t n = batch.size();
          EXPECT_TRUE(q.push_all(batch));
          EXPECT_TRUE(batch.empty()) << n;
        }
        if (--left == 0) q.close();
      });
    std::vector<int> seen(producers * 1000, 0), last(producers, -1);
    std::vector<int> got;
    while (q.pop_all(got)) {
      EXPECT_FALSE(got.empty());
      EXPECT_LE(got.size(), 11u) << "a batch joined a queue that had no room for it";
      for (int v : got) {
        seen[v]++;
        EXPECT_GT(v % 1000, last[v / 1000]) << "one producer's items out of order";
        last[v / 1000] = v % 1000;
      }
    }
    for (auto& t : ts) t.join();
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), producers * 1000) << producers;
    std::vector<int> after{1};
    EXPECT_FALSE(q.push_all(after)) << "a closed queue takes nothing";
  }
}

TEST(CollectQueue, PopAllTakesAtMostWhatItIsAskedForFromTheFront) {
  BoundedQueue<int> q(16);
  std::vector<int> in{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, out;
  ASSERT_TRUE(q.push_all(in));
  ASSERT_TRUE(q.pop_all(out, 4));
  EXPECT_EQ(out, (std::vector<int>{0, 1, 2, 3}));
  ASSERT_TRUE(q.pop_all(out));
  EXPECT_EQ(out, (std::vector<int>{4, 5, 6, 7, 8, 9}));
  q.close();
  EXPECT_FALSE(q.pop_all(out));
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace merlin::run
