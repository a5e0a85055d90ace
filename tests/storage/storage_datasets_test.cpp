// Datasets (src/storage/storage_manager.h): content-addressed, stored once across versions,
// teams and jobs; staging to a node's hot tier with shards; LRU eviction; bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "storage_fixture.h"

namespace frugal::storage::testing {
namespace {

namespace fs = std::filesystem;

class StorageDatasets : public StorageTest {
 protected:
  // A dataset folder with `n` files of distinct content (plus `salt`).
  std::string make_dataset(const std::string& name, int n, const std::string& salt = "",
                           size_t size = 1000) {
    const std::string dir = root + "/src/" + name;
    for (int i = 0; i < n; ++i)
      write_file(fmt::format("{}/part-{:03}.bin", dir, i),
                 std::string(size, static_cast<char>('a' + i % 26)) + std::to_string(i) + salt);
    return dir;
  }
  size_t object_files() const {
    size_t n = 0;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root + "/warm/objects", ec), end; !ec && it != end;
         it.increment(ec))
      n += it->is_regular_file() ? 1 : 0;
    return n;
  }
};

TEST_F(StorageDatasets, TwoTeamsAndTwoJobsStoreItOnceAndReadCorrectBytes) {
  auto m = open_manager();
  ASSERT_TRUE(m);
  const std::string src = make_dataset("corpus", 5);
  ASSERT_TRUE(m->add_dataset("corpus@1", src, "nlp", 100).ok());
  ASSERT_TRUE(m->add_dataset("corpus@1", src, "vision", 101).ok());  // idempotent, 2nd team
  // A copy under another name and a new version with one file changed: shared objects.
  const std::string copy = root + "/src/corpus-copy";
  fs::copy(src, copy, fs::copy_options::recursive);
  ASSERT_TRUE(m->add_dataset("corpus-mirror@1", copy, "vision", 102).ok());
  write_file(copy + "/part-004.bin", "changed");
  ASSERT_TRUE(m->add_dataset("corpus@2", copy, "nlp", 103).ok());
  EXPECT_EQ(object_files(), 6u);  // 5 distinct + 1 changed

  auto info = m->find_dataset("corpus@1");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info.value().teams, (std::vector<std::string>{"nlp", "vision"}));
  EXPECT_EQ(info.value().manifest.size(), 5u);

  auto a = m->stage("corpus@1", "node-a", "job-nlp", 0, 1, 200);
  auto b = m->stage("corpus@1", "node-b", "job-vision", 0, 1, 201);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(a.value().dir, root + "/hot/node-a/datasets/corpus@1");
  for (const std::string& dir : {a.value().dir, b.value().dir})
    for (int i = 0; i < 5; ++i) {
      const std::string rel = fmt::format("part-{:03}.bin", i);
      EXPECT_EQ(read_file(dir + "/" + rel), read_file(src + "/" + rel)) << dir << "/" << rel;
    }
  // The same job set staged again on node-a is reused.
  auto again = m->stage("corpus@1", "node-a", "job-nlp-2", 0, 1, 202);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again.value().reused);
  EXPECT_EQ(m->nodes_holding("corpus@1"), (std::vector<std::string>{"node-a", "node-b"}));
  EXPECT_TRUE(m->nodes_holding("corpus@2").empty());

  const StorageView v = m->view();
  EXPECT_EQ(v.objects, 6);
  EXPECT_EQ(v.datasets, 3);
  EXPECT_GT(v.dedup_ratio, 2.4);  // 15 files' bytes stored as 6
  EXPECT_GT(v.team_bytes.at("vision"), 0u);
}

TEST_F(StorageDatasets, SameNameAndVersionWithOtherContentIsAnError) {
  auto m = open_manager();
  ASSERT_TRUE(m);
  const std::string src = make_dataset("d", 2);
  ASSERT_TRUE(m->add_dataset("d@1", src, "t", 1).ok());
  write_file(src + "/part-001.bin", "different");
  auto r = m->add_dataset("d@1", src, "t", 2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("already registered with different content"), std::string::npos);
}

TEST_F(StorageDatasets, UnknownOrMalformedNameIsAClearError) {
  auto m = open_manager();
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->add_dataset("known@1", make_dataset("k", 1), "t", 1).ok());
  auto r = m->stage("imagenet@2012", "n", "j", 0, 1, 5);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown dataset 'imagenet@2012' (registered: known@1)"),
            std::string::npos)
      << r.error().message;
  EXPECT_FALSE(m->find_dataset("nope@1").ok());
  auto bad = m->add_dataset("no-version", root + "/src/k", "t", 1);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("NAME@VERSION"), std::string::npos);
  auto missing = m->add_dataset("x@1", root + "/src/absent", "t", 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos);
  // A symbolic link inside a dataset is never followed (it could reach outside the folder).
  write_file(root + "/secret", "not in the dataset");
  const std::string linked = make_dataset("l", 1);
  std::filesystem::create_symlink(root + "/secret", linked + "/secret");
  auto link = m->add_dataset("l@1", linked, "t", 1);
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.error().message.find(linked + "/secret is a symbolic link"), std::string::npos)
      << link.error().message;
  EXPECT_FALSE(m->find_dataset("l@1").ok());
}

TEST_F(StorageDatasets, LruEvictionNeverEvictsWhatARunningJobUses) {
  tier("hot").capacity_bytes = 2500;  // room for two 1 KB datasets per node
  auto m = open_manager();
  ASSERT_TRUE(m);
  for (const char* n : {"a", "b", "c"})
    ASSERT_TRUE(m->add_dataset(std::string(n) + "@1", make_dataset(n, 1, n), "t", 1).ok());
  ASSERT_TRUE(m->stage("a@1", "n1", "job-a", 0, 1, 10).ok());  // running
  ASSERT_TRUE(m->stage("b@1", "n1", "job-b", 0, 1, 20).ok());
  ASSERT_TRUE(m->release("job-b", 30).ok());
  auto c = m->stage("c@1", "n1", "job-c", 0, 1, 40);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c.value().evicted.size(), 1u);
  EXPECT_EQ(c.value().evicted[0], root + "/hot/n1/datasets/b@1");
  EXPECT_TRUE(path_exists(root + "/hot/n1/datasets/a@1/part-000.bin"));
  EXPECT_FALSE(path_exists(root + "/hot/n1/datasets/b@1"));
  // Both staged sets in use: b cannot fit, nothing is evicted.
  auto b = m->stage("b@1", "n1", "job-b2", 0, 1, 50);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("cannot fit"), std::string::npos);
  EXPECT_TRUE(path_exists(root + "/hot/n1/datasets/a@1"));
  EXPECT_TRUE(path_exists(root + "/hot/n1/datasets/c@1"));
  // Once job-a ends, a (least recently used) goes, c stays.
  ASSERT_TRUE(m->release("job-a", 60).ok());
  auto b2 = m->stage("b@1", "n1", "job-b2", 0, 1, 70);
  ASSERT_TRUE(b2.ok());
  EXPECT_EQ(b2.value().evicted, (std::vector<std::string>{root + "/hot/n1/datasets/a@1"}));
  EXPECT_TRUE(path_exists(root + "/hot/n1/datasets/c@1"));
}

TEST_F(StorageDatasets, ShardsSplitTheFilesOnceAcrossNodes) {
  auto m = open_manager();
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->add_dataset("s@1", make_dataset("s", 10), "t", 1).ok());
  std::multiset<std::string> seen;
  for (int i = 0; i < 3; ++i) {
    auto st = m->stage("s@1", fmt::format("node{}", i), "job", i, 3, 5);
    ASSERT_TRUE(st.ok()) << st.error().message;
    EXPECT_EQ(st.value().dir, fmt::format("{}/hot/node{}/datasets/s@1.shard-{}-of-3", root, i, i));
    EXPECT_GE(st.value().files.size(), 3u);
    for (const std::string& f : st.value().files) {
      seen.insert(f);
      EXPECT_TRUE(path_exists(st.value().dir + "/" + f));
    }
  }
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 10u);
  EXPECT_FALSE(m->stage("s@1", "n", "job", 3, 3, 5).ok());
}

TEST_F(StorageDatasets, GcDeletesObjectsNoDatasetReferences) {
  auto m = open_manager();
  ASSERT_TRUE(m);
  const std::string src = make_dataset("g", 3);
  ASSERT_TRUE(m->add_dataset("g@1", src, "t", 1).ok());
  write_file(src + "/part-000.bin", "new");
  ASSERT_TRUE(m->add_dataset("g@2", src, "t", 2).ok());
  ASSERT_TRUE(m->stage("g@1", "n", "job", 0, 1, 3).ok());
  EXPECT_FALSE(m->remove_dataset("g@1", 50).ok());  // in use
  ASSERT_TRUE(m->release("job", 4).ok());
  ASSERT_TRUE(m->remove_dataset("g@1", 50).ok());
  auto dry = m->gc(true, 10, [](const std::string&) { return true; });
  ASSERT_TRUE(dry.ok());
  ASSERT_EQ(dry.value().size(), 1u);  // only the old part-000 is unreferenced
  EXPECT_EQ(dry.value()[0].kind, "dataset-object");
  EXPECT_TRUE(path_exists(dry.value()[0].path));
  auto real = m->gc(false, 10, [](const std::string&) { return true; });
  ASSERT_TRUE(real.ok());
  EXPECT_FALSE(path_exists(dry.value()[0].path));
  EXPECT_EQ(object_files(), 3u);
  auto st = m->stage("g@2", "n", "job2", 0, 1, 11);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(read_file(st.value().dir + "/part-000.bin"), "new");
}

}  // namespace
}  // namespace frugal::storage::testing
