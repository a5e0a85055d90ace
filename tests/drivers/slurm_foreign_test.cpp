// Jobs frugal did not submit: recognised by their comment; the GPUs they hold from their
// allocated GRES (recorded squeue/slurmrestd answers and hand-made values).
#include "drivers/slurm_foreign.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "drivers/slurm_parse.h"

namespace frugal {
namespace {

std::string data(const std::string& name) {
  std::ifstream in(std::string(FRUGAL_SOURCE_DIR) + "/tests/data/slurm/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SlurmForeign, ByCommentPrefix) {
  SlurmJob j;
  EXPECT_TRUE(is_foreign(j, "frugal-1234"));  // no comment: sbatch directly
  j.comment = "frugal-1234:7";
  EXPECT_FALSE(is_foreign(j, "frugal-1234"));
  EXPECT_TRUE(is_foreign(j, "frugal-99"));  // another service's job
  j.comment = "frugal-1234";                // no job id part: not ours
  EXPECT_TRUE(is_foreign(j, "frugal-1234"));
}

TEST(SlurmForeign, SlotsFromRecordedAnswer) {
  auto r = parse_jobs_json(data("jobs.json"), "jobs.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const std::set<std::string> nodes = {"gpu1", "gpu3"};
  // Job 1: gpu:h100:2(IDX:0-1) on gpu3 → GPUs 0 and 1 whole.
  auto s = foreign_slots(r.value()[0], nodes, 8, nullptr);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].node, "gpu3");
  EXPECT_EQ(s[0].gpu, 0);
  EXPECT_EQ(s[1].gpu, 1);
  EXPECT_EQ(s[1].milli, 1000);
  // Job 2: shard:3(IDX:0) on gpu1 with 8 shards per GPU → 375 milli of GPU 0.
  s = foreign_slots(r.value()[1], nodes, 8, nullptr);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].node, "gpu1");
  EXPECT_EQ(s[0].gpu, 0);
  EXPECT_EQ(s[0].milli, 375);
  // Pending jobs hold nothing; nodes outside the set are skipped.
  EXPECT_TRUE(foreign_slots(r.value()[2], nodes, 8, nullptr).empty());
  EXPECT_TRUE(foreign_slots(r.value()[0], {"gpu1"}, 8, nullptr).empty());
}

TEST(SlurmForeign, BothKindsListedAndMissingIndices) {
  // A GPU job on a node with shards lists "gpu:h100:2(IDX:0-1),shard:h100:0(IDX:N/A)".
  const std::string answer = R"json({"jobs": [{"job_id": 9, "job_state": "RUNNING",
    "nodes": "gpu[3-4]", "gres_detail": ["gpu:h100:2(IDX:2-3),shard:h100:0(IDX:N/A)",
    "gpu:h100:1"]}]})json";
  auto r = parse_jobs_json(answer, "answer");
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<std::string> unknown;
  const auto s = foreign_slots(r.value()[0], {"gpu3", "gpu4"}, 8, &unknown);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].gpu, 2);
  EXPECT_EQ(s[1].gpu, 3);
  EXPECT_EQ(unknown, (std::vector<std::string>{"gpu4"}));  // no indices: which GPU is unknown
}

TEST(SlurmForeign, HandleRoundTrip) {
  SlurmJob j;
  j.id = 42;
  j.start_time = 1700000000;
  EXPECT_EQ(foreign_handle(j), "slurm-external:42:1700000000");
  EXPECT_EQ(parse_foreign_handle(foreign_handle(j)), (std::pair<int64_t, int64_t>{42, 1700000000}));
  EXPECT_EQ(parse_foreign_handle("slurm:7:0"), (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(parse_foreign_handle("slurm-external:x:1"), (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(parse_foreign_handle("slurm-external:5"), (std::pair<int64_t, int64_t>{0, 0}));
}

}  // namespace
}  // namespace frugal
