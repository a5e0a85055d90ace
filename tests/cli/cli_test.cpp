// The `frugal` binary end to end: exit codes, error messages and the JSON report.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../common/file_util.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;

struct Exit {
  int code = -1;
  std::string out, err;
};

using testing::slurp;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / (std::string("frugal_cli_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Runs `frugal <args>` (args are passed through the shell as written).
  Exit frugal(const std::string& args) const {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const std::string cmd = std::string("'") + FRUGAL_BINARY + "' " + args + " >'" + out.string() +
                            "' 2>'" + err.string() + "'";
    const int status = std::system(cmd.c_str());
    Exit r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  // A small ITP-format trace: header + `rows` jobs (1–8 GPUs, 60–3000 s).
  std::string itp_trace(int rows, int bad_line = 0) const {
    std::string text = "job_id,submission_time,duration,num_gpu\n";
    for (int i = 0; i < rows; ++i) {
      const int line = i + 2;  // 1-based file line of this row
      const std::string dur = line == bad_line ? "12x" : std::to_string(60 + (i * 37) % 2940);
      text += "job" + std::to_string(i) + "," + std::to_string(i * 30) + "," + dur + "," +
              std::to_string(1 << (i % 4)) + "\n";
    }
    return write(bad_line ? "broken.csv" : "trace.csv", text);
  }

  fs::path dir_;
};

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

TEST_F(Cli, SimulateReadsAGoodTrace) {
  const Exit r = frugal("simulate --trace " + itp_trace(150) + " --gpus 32 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["policy"], "frugal");
  EXPECT_EQ(j["jobs"]["submitted"], 150);
  EXPECT_EQ(j["jobs"]["completed"], 150);
}

// The default policy is the combined profile; the seeded job rule and the allocated share.
TEST_F(Cli, FrugalDefaultWithTheEvaluationJobRule) {
  const Exit r = frugal("simulate --trace " + itp_trace(150) +
                        " --gpus 32 --format json --assign-classes 1 --assign-tiers 1 "
                        "--deferrable-share 0.4 --deadline-slack 24");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["policy"], "frugal");
  EXPECT_EQ(j["jobs"]["completed"], 150);
  const double share = j["provisioned_allocated_share"];
  EXPECT_GT(share, 0);
  EXPECT_LE(share, 1);
  EXPECT_NEAR(share, j["gpu_utilization"].get<double>(), 0.01);  // all owned: the same ratio
  EXPECT_EQ(j["ready_allocated_share"].get<double>(), share);    // and nothing boots
  EXPECT_NE(frugal("simulate --trace " + itp_trace(10) + " --gpus 8 --assign-tiers -1").code, 0);
}

TEST_F(Cli, PredictRuntimesAddsThePredictionBlock) {
  const std::string trace = itp_trace(150);
  const Exit plain = frugal("simulate --trace " + trace + " --gpus 32 --format json");
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(plain.out).contains("prediction"));
  const Exit r = frugal("simulate --trace " + trace + " --gpus 32 --format json " +
                        "--predict-runtimes --predict-quantile 0.75");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto p = nlohmann::json::parse(r.out)["prediction"];
  EXPECT_EQ(p["jobs"], 150);
  for (const char* k :
       {"mae_s", "median_abs_pct_error", "within_2x_share", "underestimate_share", "by_level"})
    EXPECT_TRUE(p.contains(k)) << k;
}

TEST_F(Cli, PredictPrintsOneRowPerTrace) {
  const std::string trace = itp_trace(150);
  const Exit r = frugal("predict --trace " + trace + " --trace " + trace + " --quantile 0.75");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "within2x")) << r.out;
  size_t rows = 0;
  for (size_t at = 0; (at = r.out.find(trace, at)) != std::string::npos; at += trace.size()) ++rows;
  EXPECT_EQ(rows, 2u) << r.out;
  EXPECT_NE(frugal("predict --trace " + dir_.string() + "/missing.csv").code, 0);
  // --skip-bad-rows says what it skipped, as simulate does (it said nothing).
  const std::string broken = itp_trace(20, 5);
  const Exit skip = frugal("predict --trace " + broken + " --skip-bad-rows");
  ASSERT_EQ(skip.code, 0) << skip.err;
  EXPECT_TRUE(contains(skip.err, "skipped 1 malformed rows (first: " + broken + ":5:")) << skip.err;
}

TEST_F(Cli, BrokenTraceFailsNamingTheLine) {
  const std::string path = itp_trace(150, 101);
  const Exit r = frugal("simulate --trace " + path + " --gpus 32");
  EXPECT_NE(r.code, 0);
  EXPECT_TRUE(contains(r.err, path + ":101:")) << r.err;
  EXPECT_TRUE(contains(r.err, "duration")) << r.err;
  EXPECT_TRUE(contains(r.err, "12x")) << r.err;
  EXPECT_FALSE(contains(r.err, ":100:")) << r.err;
  // --skip-bad-rows: runs the other 149 jobs and warns about the one skipped.
  const Exit s = frugal("simulate --trace " + path + " --gpus 32 --skip-bad-rows --format json");
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(nlohmann::json::parse(s.out)["jobs"]["submitted"], 149);
  EXPECT_TRUE(contains(s.err, "skipped 1")) << s.err;
}

TEST_F(Cli, CompareJsonHasEveryKey) {
  const Exit r = frugal("compare --trace " + itp_trace(120) +
                        " --gpus 32 --format json --policies fifo,backfill,sjf,las --threads 2");
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  ASSERT_TRUE(j.contains("runs"));
  ASSERT_EQ(j["runs"].size(), 4u);
  const char* policies[] = {"fifo", "backfill", "sjf", "las"};
  for (size_t i = 0; i < 4; ++i) {
    const auto& run = j["runs"][i];
    SCOPED_TRACE(policies[i]);
    EXPECT_EQ(run["policy"], policies[i]);  // in --policies order, threads or not
    ASSERT_TRUE(run["jobs"].is_object());
    for (const char* k : {"submitted", "completed", "unschedulable"})
      EXPECT_TRUE(run["jobs"][k].is_number_integer()) << k;
    EXPECT_EQ(run["jobs"]["submitted"], 120);
    EXPECT_EQ(run["jobs"]["completed"], 120);
    EXPECT_EQ(run["jobs"]["unschedulable"], 0);
    for (const char* d : {"jct_s", "wait_s"})
      for (const char* k : {"mean", "p50", "p95", "p99"})
        EXPECT_TRUE(run[d][k].is_number()) << d << "." << k;
    EXPECT_LE(run["jct_s"]["p50"].get<double>(), run["jct_s"]["p99"].get<double>());
    EXPECT_TRUE(run["makespan_s"].is_number());
    EXPECT_GT(run["makespan_s"].get<double>(), 0);
    EXPECT_TRUE(run["gpu_utilization"].is_number());
    EXPECT_GT(run["gpu_utilization"].get<double>(), 0);
    EXPECT_LE(run["gpu_utilization"].get<double>(), 1);
    EXPECT_TRUE(run["preemptions"].is_number_integer());
    EXPECT_TRUE(run["sim"]["wall_s"].is_number());
    EXPECT_TRUE(run["sim"]["events"].is_number_integer());
    EXPECT_GT(run["sim"]["events"].get<int64_t>(), 0);
    EXPECT_FALSE(run.contains("invariant_violation"));
  }
}

TEST_F(Cli, UnknownPolicyListsTheValidOnes) {
  const std::string trace = itp_trace(10);
  for (const char* args : {"simulate --policy nope", "compare --policies fifo,nope"}) {
    SCOPED_TRACE(args);
    const Exit r = frugal(std::string(args) + " --trace " + trace + " --gpus 8");
    EXPECT_NE(r.code, 0);
    EXPECT_TRUE(contains(r.err, "nope")) << r.err;
    for (const char* p : {"fifo", "backfill", "sjf", "las", "firstfit", "bestfit"})
      EXPECT_TRUE(contains(r.err, p)) << p << " in: " << r.err;
  }
  const Exit r = frugal("simulate --policy fifo/worstfit --trace " + trace + " --gpus 8");
  EXPECT_NE(r.code, 0);
  EXPECT_TRUE(contains(r.err, "worstfit")) << r.err;
  EXPECT_TRUE(contains(r.err, "bestfit")) << r.err;
}

TEST_F(Cli, MissingClusterIsAClearError) {
  const Exit r = frugal("simulate --trace " + itp_trace(10));
  EXPECT_NE(r.code, 0);
  EXPECT_TRUE(contains(r.err, "--cluster")) << r.err;
  EXPECT_TRUE(contains(r.err, "--gpus")) << r.err;
  const Exit c = frugal("compare --trace " + itp_trace(10));
  EXPECT_NE(c.code, 0);
  EXPECT_TRUE(contains(c.err, "--gpus")) << c.err;
  // A missing trace file is named.
  const Exit m = frugal("simulate --trace " + (dir_ / "absent.csv").string() + " --gpus 8");
  EXPECT_NE(m.code, 0);
  EXPECT_TRUE(contains(m.err, "absent.csv")) << m.err;
}

// Numbers no run could finish with are refused up front, naming the option, instead of a
// run that never ends (each of these hung the simulator before it was bounded).
TEST_F(Cli, ImpossibleNumbersAreClearErrors) {
  const std::string trace = itp_trace(10);
  const Exit d = frugal("simulate --policy timeshift:max_delay_s=1e300 --trace " + trace +
                        " --gpus 8 --deferrable-share 1 --deadline-slack 0");
  EXPECT_NE(d.code, 0);
  EXPECT_TRUE(contains(d.err, "max_delay_s=1e300': at most 2592000 s (30 days)")) << d.err;
  const Exit r = frugal("simulate --resize-cost 1e300 --trace " + trace + " --gpus 8");
  EXPECT_NE(r.code, 0);
  EXPECT_TRUE(contains(r.err, "--resize-cost")) << r.err;
  const Exit m =
      frugal("compare --policies fifo --migration-cost 1e9 --trace " + trace + " --gpus 8");
  EXPECT_NE(m.code, 0);
  EXPECT_TRUE(contains(m.err, "--migration-cost")) << m.err;
  // A --gpus cluster is held to a cluster file's node limit (10M 1-GPU nodes were built).
  const Exit g = frugal("simulate --trace " + trace + " --gpus 10000000 --gpus-per-node 1");
  EXPECT_EQ(g.code, 1);
  EXPECT_TRUE(contains(g.err, "more than 1000000 nodes")) << g.err;
}

// --jobs-out: one row per job with its tier and deadline (empty when it has none), so a
// deadline miss can be read off the file: finish > deadline.
TEST_F(Cli, JobsOutCarriesTierAndDeadline) {
  const std::string trace = itp_trace(40);
  const std::string path = (dir_ / "jobs.csv").string();
  const Exit r = frugal("simulate --trace " + trace +
                        " --gpus 8 --assign-tiers 1 --deferrable-share 0.5 --deadline-slack 2"
                        " --jobs-out " +
                        path);
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream in(slurp(path));
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "id,submit,first_start,finish,model,tier,deadline");
  int rows = 0, with_deadline = 0;
  while (std::getline(in, line)) {
    ++rows;
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string cell; std::getline(ls, cell, ',');) f.push_back(cell);
    if (line.back() == ',') f.emplace_back();
    ASSERT_EQ(f.size(), 7U) << line;
    EXPECT_TRUE(f[5] == "core" || f[5] == "important" || f[5] == "general") << line;
    if (f[6].empty()) continue;
    ++with_deadline;
    // The deadline rule: submit + duration + 2 h of slack, so it lies past the submit time.
    EXPECT_GT(std::stod(f[6]), std::stod(f[1]) + 2 * 3600 - 1e-6) << line;
  }
  EXPECT_EQ(rows, 40);
  EXPECT_GT(with_deadline, 0);
  EXPECT_LT(with_deadline, 40);
}

TEST_F(Cli, GenTraceWritesATraceSimulateReads) {
  const std::string path = (dir_ / "gen.csv").string();
  const Exit g = frugal("gen-trace --jobs 300 --cluster-gpus 64 --load 0.8 --seed 5 --out " + path);
  ASSERT_EQ(g.code, 0) << g.err;
  ASSERT_TRUE(fs::exists(path));
  const Exit r = frugal("simulate --trace " + path + " --gpus 64 --policy las --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["policy"], "las");
  EXPECT_EQ(j["jobs"]["submitted"], 300);
  EXPECT_EQ(j["jobs"]["completed"].get<int>() + j["jobs"]["unschedulable"].get<int>(), 300);
  // Same seed, same file.
  const std::string again = (dir_ / "gen2.csv").string();
  ASSERT_EQ(
      frugal("gen-trace --jobs 300 --cluster-gpus 64 --load 0.8 --seed 5 --out " + again).code, 0);
  EXPECT_EQ(slurp(path), slurp(again));
}

TEST_F(Cli, TableOutputAndOutFile) {
  const std::string out = (dir_ / "report.json").string();
  const Exit r = frugal("compare --trace " + itp_trace(40) +
                        " --gpus 16 --policies fifo,sjf --format json --out " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(nlohmann::json::parse(slurp(out))["runs"].size(), 2u);
  const Exit t = frugal("compare --trace " + itp_trace(40) + " --gpus 16 --policies fifo,sjf");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_TRUE(contains(t.out, "policy")) << t.out;
  EXPECT_TRUE(contains(t.out, "sjf")) << t.out;
}

// The header of an openb pod list (pack --pods).
constexpr const char* kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

// `pack` refuses workloads it cannot fill instead of looping (CPU-only pods grew the arrival
// list until memory ran out) or crashing (a --tune that drops every pod), and the two ways
// of choosing the random stream cannot be given together.
TEST_F(Cli, PackRefusesWorkloadsItCannotFill) {
  const std::string nodes = write("nodes.csv",
                                  "sn,cpu_milli,memory_mib,gpu,model\n"
                                  "n0,64000,262144,8,V100M32\n"
                                  "n1,64000,262144,8,V100M32\n");
  const std::string cpu_nodes = write("cpu_nodes.csv",
                                      "sn,cpu_milli,memory_mib,gpu,model\n"
                                      "c0,64000,262144,0,\n");
  const std::string gpu_pods = write("pods.csv", std::string(kPodHeader) +
                                                     "p0,1000,1024,1,1000,,LS,Running,0,100,0\n"
                                                     "p1,1000,1024,1,500,,LS,Running,0,100,0\n");
  const std::string cpu_pods =
      write("cpu_pods.csv", std::string(kPodHeader) + "c0,1000,1024,0,0,,LS,Running,0,100,0\n");
  const std::string common = " --policies fgd --seeds 1";
  const Exit ok = frugal("pack --nodes " + nodes + " --pods " + gpu_pods + common);
  ASSERT_EQ(ok.code, 0) << ok.err;
  for (const char* rng : {"go", "std"}) {
    SCOPED_TRACE(rng);
    const std::string r = std::string(" --rng ") + rng;
    const Exit cpu = frugal("pack --nodes " + nodes + " --pods " + cpu_pods + common + r);
    EXPECT_EQ(cpu.code, 1);
    EXPECT_TRUE(contains(cpu.err, "cpu_pods.csv: no pod asks for a GPU")) << cpu.err;
    const Exit none = frugal("pack --nodes " + cpu_nodes + " --pods " + gpu_pods + common + r);
    EXPECT_EQ(none.code, 1);
    EXPECT_TRUE(contains(none.err, "cpu_nodes.csv: no node has a GPU")) << none.err;
    const Exit tiny =
        frugal("pack --nodes " + nodes + " --pods " + gpu_pods + common + r + " --tune 0.0001");
    EXPECT_EQ(tiny.code, 1);
    EXPECT_TRUE(contains(tiny.err, "--tune 0.0001")) << tiny.err;
  }
  const Exit both =
      frugal("pack --nodes " + nodes + " --pods " + gpu_pods + common + " --rng std --go-rand");
  EXPECT_NE(both.code, 0);
  EXPECT_TRUE(contains(both.err, "excludes")) << both.err;
}

// `pack --repack-bound` adds, per policy at 100..130 % arrived, its own unallocated % at the
// level's last arrival and the least any rearrangement of its placed pods leaves; without the
// flag the JSON has neither.
TEST_F(Cli, PackRepackBoundReportsBesideThePolicy) {
  const std::string nodes = write("nodes.csv",
                                  "sn,cpu_milli,memory_mib,gpu,model\n"
                                  "n0,64000,262144,8,V100M32\n"
                                  "n1,64000,262144,8,V100M32\n"
                                  "n2,64000,262144,8,V100M32\n"
                                  "n3,64000,262144,8,V100M32\n");
  const std::string pods = write("pods.csv", std::string(kPodHeader) +
                                                 "p0,1000,1024,1,1000,,LS,Running,0,100,0\n"
                                                 "p1,1000,1024,1,810,,LS,Running,0,100,0\n"
                                                 "p2,1000,1024,1,470,,LS,Running,0,100,0\n");
  const std::string common = "pack --nodes " + nodes + " --pods " + pods +
                             " --policies fgd,bestfit --seeds 3 --format json --bound none";
  const Exit with = frugal(common + " --repack-bound");
  ASSERT_EQ(with.code, 0) << with.err;
  const auto doc = nlohmann::json::parse(with.out);
  ASSERT_TRUE(doc["meta"].contains("repack")) << with.out;
  int rows = 0;
  for (const auto& row : doc["summary"]) {
    const int x = row["arrived_pct"].get<int>();
    const bool at = x == 100 || x == 110 || x == 120 || x == 130;
    if (!at) {
      ASSERT_TRUE(row["repack_unallocated_pct"].is_null()) << row.dump();
    }
    if (row["repack_unallocated_pct"].is_null()) continue;
    ++rows;
    EXPECT_LE(row["repack_unallocated_pct"].get<double>(),
              row["repack_policy_unallocated_pct"].get<double>() + 1e-9)
        << row.dump();
    EXPECT_GE(row["repack_unallocated_pct"].get<double>(), 0.0);
  }
  EXPECT_GT(rows, 0);
  const Exit without = frugal(common);
  ASSERT_EQ(without.code, 0) << without.err;
  EXPECT_FALSE(contains(without.out, "repack")) << without.out;
}

// `attribute --utc-offset-h` takes real offsets only (NaN turned every time undefined and,
// silently, every GPU run into a CPU-only one).
TEST_F(Cli, AttributeRefusesAnImpossibleUtcOffset) {
  const std::string d = std::string(FRUGAL_SOURCE_DIR) + "/tests/data/slurm/";
  const std::string args = "attribute --slurm-jobcomp " + d + "jobcomp.log --cluster " + d +
                           "nodes.json --gres-log " + d + "gres.log";
  EXPECT_EQ(frugal(args).code, 0);
  EXPECT_EQ(frugal(args + " --utc-offset-h 5.5").code, 0);
  for (const char* v : {"nan", "1e20", "500", "-15"}) {
    SCOPED_TRACE(v);
    const Exit r = frugal(args + " --utc-offset-h " + v);
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(contains(r.err, "--utc-offset-h")) << r.err;
  }
}

// The JSON report's keys do not depend on the numbers: a run whose ledger is all zero (its
// one job fits nowhere) still has the ledger's keys (they were left out).
TEST_F(Cli, JsonKeysStayWhenTheLedgerIsZero) {
  const std::string t = write("big.csv", "job_id,submission_time,duration,num_gpu\na,0,10,65\n");
  const Exit r = frugal("simulate --trace " + t + " --gpus 64 --policy backfill --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["jobs"]["unschedulable"], 1);
  for (const char* k :
       {"cost", "waste", "by_team", "by_class", "by_region", "deferrable", "unattributed_by_pool",
        "provisioned_allocated_share", "ready_allocated_share"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["cost"]["total_usd"], 0.0);
}

// Checks against the cluster (a data_region it lacks, a storage tier it lacks) name the row's
// line like the reader's own checks, and --skip-bad-rows skips such rows too (they were an
// error without a line that --skip-bad-rows did not skip).
TEST_F(Cli, ClusterChecksOnRowsNameTheLineAndCanBeSkipped) {
  const std::string t = write("regions.csv",
                              "id,submit,duration,data_region,dataset_gb,storage_tier\n"
                              "a,0,10,mars,,\n"
                              "b,0,10,,,\n"
                              "c,0,10,,5,lukewarm\n");
  const Exit r = frugal("simulate --trace " + t + " --gpus 16");
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "regions.csv:2: field 'data_region': 'mars' is not a region"))
      << r.err;
  const Exit s = frugal("simulate --trace " + t + " --gpus 16 --skip-bad-rows --format json");
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(nlohmann::json::parse(s.out)["jobs"]["submitted"], 1);
  EXPECT_TRUE(contains(s.err, "skipped 2 malformed rows")) << s.err;
}

// Client commands say what a failed connection means, and refuse a --server that is no URL
// (both printed only "Connection").
TEST_F(Cli, ClientErrorsSayWhatWentWrong) {
  const Exit down = frugal("jobs --server http://127.0.0.1:1");
  EXPECT_EQ(down.code, 1);
  EXPECT_TRUE(contains(down.err, "http://127.0.0.1:1: cannot connect")) << down.err;
  const Exit bad = frugal("jobs --server notaurl");
  EXPECT_NE(bad.code, 0);
  EXPECT_TRUE(contains(bad.err, "--server: expected http://HOST:PORT, got 'notaurl'")) << bad.err;
}

// `frugal policies` is generated from the registry: every profile, placer, suffix and option.
TEST_F(Cli, PoliciesListsEveryRegistryEntry) {
  const Exit t = frugal("policies");
  ASSERT_EQ(t.code, 0) << t.err;
  for (const char* w : {"fifo", "frugal", "hetero-fast", "packdown", "max_delay_s=43200 s",
                        "autoscale_first=0", "postfilter=easy-backfill"})
    EXPECT_TRUE(contains(t.out, w)) << w;
  const Exit j = frugal("policies --format json");
  ASSERT_EQ(j.code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["profiles"].size(), 12U);
  EXPECT_EQ(doc["profiles"][11]["name"], "recorded");
  EXPECT_EQ(doc["placers"].size(), 4U);
  EXPECT_EQ(doc["suffixes"].size(), 8U);  // ... +datasets (dataset locality and prefetch)
  const auto& product = doc["profiles"][10];
  EXPECT_EQ(product["name"], "frugal");
  bool tou = false;
  for (const auto& o : product["options"])
    if (o["key"] == "tou") tou = o["type"] == "flag" && o["default"] == 1;
  EXPECT_TRUE(tou);
  EXPECT_NE(product["pipeline"].get<std::string>().find("elastic packdown"), std::string::npos);
}

}  // namespace
}  // namespace frugal
