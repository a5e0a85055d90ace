#include "agent/process_jobs.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace frugal {
namespace {

namespace fs = std::filesystem;

// A fake /proc: for each pid, stat (with its parent and start time), environ and cgroup.
struct FakeProcTree {
  fs::path dir;
  FakeProcTree() : dir(fs::temp_directory_path() / ("frugal-pj-" + std::to_string(::getpid()))) {
    fs::create_directories(dir);
  }
  ~FakeProcTree() { fs::remove_all(dir); }
  void process(int pid, int ppid, int start, const std::string& environ = "",
               const std::string& cgroup = "0::/user.slice\n") const {
    const fs::path p = dir / std::to_string(pid);
    fs::create_directories(p);
    std::ofstream(p / "stat") << pid << " (python3 (x) y) S " << ppid
                              << " 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 " << start << " 100 10 0\n";
    std::ofstream(p / "environ", std::ios::binary) << environ;
    std::ofstream(p / "cgroup") << cgroup;
  }
};

std::string env(std::initializer_list<std::string> vars) {
  std::string out;
  for (const std::string& v : vars) out += v + '\0';
  return out;
}

TEST(AgentProcessJobs, JobFromTheProcessOrItsAncestors) {
  FakeProcTree p;
  p.process(100, 1, 5, env({"PATH=/bin"}));
  p.process(200, 100, 6, env({"HOME=/root", "FRUGAL_JOB_ID=17", "SLURM_JOB_ID=99"}));
  p.process(300, 200, 7, env({"PATH=/bin"}));  // a GPU process that cleared its environment
  p.process(400, 300, 8, "");
  ProcessJobs jobs(p.dir.string());
  EXPECT_EQ(jobs.owner(200).job, "17");
  EXPECT_EQ(jobs.owner(400).job, "17");
  EXPECT_EQ(jobs.owner(400).slurm_job, "99");
  EXPECT_EQ(jobs.owner(100).job, "");
  EXPECT_EQ(jobs.owner(999).job, "");  // gone
}

TEST(AgentProcessJobs, SlurmJobFromTheCgroup) {
  FakeProcTree p;
  p.process(500, 1, 9, "", "0::/system.slice/slurmstepd.scope/job_123/step_0/user/task_0\n");
  ProcessJobs jobs(p.dir.string());
  const ProcessJobs::Owner o = jobs.owner(500);
  EXPECT_EQ(o.job, "");
  EXPECT_EQ(o.slurm_job, "123");
}

TEST(AgentProcessJobs, AReusedPidIsReadAgain) {
  FakeProcTree p;
  p.process(600, 1, 10, env({"FRUGAL_JOB_ID=5"}));
  ProcessJobs jobs(p.dir.string());
  EXPECT_EQ(jobs.owner(600).job, "5");
  p.process(600, 1, 11, env({"FRUGAL_JOB_ID=6"}));  // the pid reused by another process
  EXPECT_EQ(jobs.owner(600).job, "6");
  std::vector<GpuTelemetry> gpus(1);
  gpus[0].processes.push_back(GpuProcess{600, 100, "", ""});
  jobs.map(gpus);
  EXPECT_EQ(gpus[0].processes[0].job, "6");
  jobs.prune();
  jobs.prune();  // nothing asked since: the cache is empty, answers are read again
  EXPECT_EQ(jobs.owner(600).job, "6");
}

TEST(AgentProcessJobs, ARealChildOnTheRealProc) {
  // A real process started with FRUGAL_JOB_ID in its environment, read through /proc.
  std::string var = "FRUGAL_JOB_ID=4242";
  std::string arg0 = "sleep", arg1 = "5";
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  char* envp[] = {var.data(), nullptr};
  pid_t child = 0;
  ASSERT_EQ(posix_spawnp(&child, "sleep", nullptr, nullptr, argv, envp), 0);
  // Right after execve the kernel may not have set the new environment up yet (it reads
  // as empty, and is then not cached): ask until it is there, at most 2 s.
  ProcessJobs jobs;
  ProcessJobs::Owner o;
  for (int i = 0; i < 200 && o.job.empty(); ++i) {
    o = jobs.owner(child);
    if (o.job.empty()) ::usleep(10000);
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_EQ(o.job, "4242");
}

}  // namespace
}  // namespace frugal
