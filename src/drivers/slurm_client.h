#pragma once
// A client for one Slurm cluster: slurmrestd (openapi v0.0.38, JWT) for reading state and
// for submit/update/hold/release/signal/cancel; `scontrol` for what REST lacks (requeue,
// tokens). Every call is one round trip; errors are values naming the request that failed
// ("slurmrestd GET /slurm/v0.0.38/nodes: Connection refused"). Not thread-safe: one
// driver thread owns a client (it caches the JWT).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "drivers/slurm_config.h"
#include "drivers/slurm_types.h"
#include "model/result.h"

namespace frugal {

// A batch job to create. frugal submits its jobs held (or with a far begin time) and
// places them later with update() + release().
struct SlurmSubmit {
  std::string name;
  std::string script;  // full batch script, "#!/bin/bash\n..."
  std::string workdir = "/tmp";
  std::map<std::string, std::string> env;  // PATH defaults to /usr/bin:/bin
  std::string partition;                   // empty: the config's
  std::string output;                      // stdout path ("%j" = job id); empty: Slurm's default
  std::string comment;                     // frugal stores its own job id here
  std::string gres;                        // e.g. "gpu:2" (untyped: type set at placement)
  int nodes = 1;
  bool hold = true;
  bool requeue = true;     // may be requeued after a checkpoint signal or node failure
  int64_t begin_unix = 0;  // > 0: not eligible before this time
};

// Changes to a pending job. Empty/zero fields are left alone.
struct SlurmUpdate {
  std::string nodelist;    // "gpu3" / "gpu[1-2]": where it must run
  std::string features;    // constraint, e.g. "h100"
  std::string gres;        // "gpu:h100:2" / "shard:h100:3"; only if the job had no GPU type
  int64_t begin_unix = 0;  // > 0: eligible from then (deferral); see begin_now
  bool begin_now = false;  // make it eligible now (e.g. after a requeue)
  int64_t priority = 0;    // > 0: explicit priority (not accepted while held)
  int64_t nice = 0;        // != 0: nice (never on a held job: it releases it)
  std::string comment;
};

class SlurmClient {
 public:
  explicit SlurmClient(SlurmConfig config);
  ~SlurmClient();
  SlurmClient(SlurmClient&&) noexcept;
  SlurmClient& operator=(SlurmClient&&) noexcept;

  const SlurmConfig& config() const { return config_; }

  // Inventory and state. Each returns a fresh snapshot from slurmctld (via slurmrestd).
  Result<std::vector<SlurmNode>> nodes();
  Result<std::vector<SlurmPartition>> partitions();
  // Jobs still in the controller's memory (pending, running, and finished within MinJobAge).
  Result<std::vector<SlurmJob>> jobs();
  Result<SlurmJob> job(int64_t id);
  // Whether slurmctld answers (through slurmrestd's /ping).
  Status ping();

  // Creates a job; returns its Slurm id. A held job's "held" notice is not an error.
  Result<int64_t> submit(const SlurmSubmit& s);
  // Applies `u` to a pending job in one request.
  Status update(int64_t id, const SlurmUpdate& u);
  Status hold(int64_t id);
  Status release(int64_t id);
  // Sends `signal` ("USR1", "TERM", ...) to the job's processes; the job keeps running.
  Status signal(int64_t id, const std::string& signal);
  // Requeues a running (or just finished) job: it is killed and pends again with the same
  // id, restarts+1; held afterwards when `hold`. Slurm delays eligibility by cred_expire+1 s.
  Status requeue(int64_t id, bool hold = false);
  Status cancel(int64_t id);
  // `scontrol update NodeName=<node> State=POWER_UP` (up) or `State=POWER_DOWN` (Slurm's
  // power saving: runs the site's ResumeProgram / SuspendProgram). Error names the node and
  // what scontrol said (e.g. power saving off: "Invalid node state specified").
  Status power(const std::string& node, bool up);

 private:
  struct Http;  // the HTTP connection (cpp-httplib), kept out of this header
  Result<std::string> request(const char* method, const std::string& path, const std::string& body);
  Status token();  // makes sure jwt_ is valid for a while
  std::string api(const std::string& tail) const;

  SlurmConfig config_;
  std::unique_ptr<Http> http_;
  std::string jwt_;
  int64_t jwt_expires_ = 0;  // steady-clock seconds; 0 = given in config, never renewed
};

}  // namespace frugal
