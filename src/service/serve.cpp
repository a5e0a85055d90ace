#include "service/serve.h"

#include <fmt/format.h>

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <algorithm>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <thread>

#include "drivers/dry_run_driver.h"
#include "drivers/local_driver.h"
#include "drivers/slurm_driver.h"
#include "io/catalog_yaml.h"
#include "io/cluster_yaml.h"
#include "service/capacity_pools.h"
#include "service/http_api.h"
#include "service/local_cluster.h"
#include "service/scheduler.h"
#include "service/store.h"

namespace frugal {

std::optional<GpuModelId> match_gpu_model(const std::string& product, const GpuCatalog& catalog) {
  if (auto m = catalog.find(product)) return m;
  std::string s = product;
  if (s.rfind("NVIDIA ", 0) == 0) s = s.substr(7);
  if (s.rfind("Tesla ", 0) == 0) s = s.substr(6);
  // "H100 80GB HBM3" → try "H100-80GB-HBM3", "H100-80GB", "H100".
  std::vector<std::string> words;
  for (size_t i = 0; i < s.size();) {
    const size_t j = s.find_first_of(" -", i);
    words.push_back(s.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  for (size_t n = words.size(); n >= 1; --n) {
    std::string name = words[0];
    for (size_t k = 1; k < n; ++k) name += "-" + words[k];
    if (auto m = catalog.find(name)) return m;
  }
  return std::nullopt;
}

Result<ClusterSpec> cluster_from_inventory(const Inventory& inv, const ServiceConfig& config,
                                           const GpuCatalog& catalog) {
  ClusterSpec c = make_single_pool_cluster("local", "local");
  c.pools[0].capacity = Capacity::kOwned;
  c.storage_tiers = default_storage_tiers();
  for (const NodeInventory& n : inv.nodes) {
    NodeSpec node;
    node.name = n.name;
    node.gpus = static_cast<int>(n.gpus.size());
    if (node.gpus > kMaxGpusPerNode)
      return Error{
          fmt::format("node {}: {} GPUs (at most {})", n.name, node.gpus, kMaxGpusPerNode)};
    if (node.gpus > 0) {
      auto m = match_gpu_model(n.gpus[0].model, catalog);
      if (!m && !config.gpu_model.empty()) m = catalog.find(config.gpu_model);
      if (!m)
        return Error{fmt::format("node {}: GPU '{}' is not in the catalog; set node.gpu_model",
                                 n.name, n.gpus[0].model)};
      node.model = *m;
    }
    c.nodes.push_back(node);
  }
  return c;
}

namespace {

std::function<void(const std::string&)> make_logger() {
  auto mu = std::make_shared<std::mutex>();
  return [mu](const std::string& line) {
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    std::lock_guard<std::mutex> lock(*mu);
    fmt::print(stderr, "{} frugal: {}\n", stamp, line);
    std::fflush(stderr);
  };
}

using Log = std::function<void(const std::string&)>;

// Blocks the stop signals (and SIGPIPE) in the calling thread, so in every thread it starts.
void block_stop_signals() {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &mask, nullptr);
}

// The config file's settings with the command line's overrides.
Result<ServiceConfig> effective_config(const ServeOptions& o) {
  Result<ServiceConfig> cfg = load_service_config(o.config);
  if (!cfg.ok()) return cfg.error();
  ServiceConfig config = std::move(cfg).value();
  if (!o.listen.empty()) config.listen = o.listen;
  if (!o.db.empty()) config.db = o.db;
  if (!o.backend.empty()) config.backend = o.backend;
  if (config.backend != "local" && config.backend != "dry-run" && config.backend != "slurm")
    return Error{fmt::format("--backend: '{}' is not local, dry-run or slurm", config.backend)};
  if (config.storage.enabled && config.backend == "slurm")
    return Error{"--backend slurm: the config's `storage:` runs on the local and dry-run backends"};
  return config;
}

// Relative log and checkpoint directories live beside the database; creates the log
// directory. Returns the database's directory.
std::filesystem::path place_directories(ServiceConfig& config) {
  std::error_code ec;
  const std::filesystem::path db_dir = std::filesystem::absolute(config.db, ec).parent_path();
  for (std::string* dir : {&config.log_dir, &config.checkpoint_dir})
    if (!std::filesystem::path(*dir).is_absolute()) *dir = (db_dir / *dir).string();
  std::filesystem::create_directories(config.log_dir, ec);
  return db_dir;
}

// dry-run: the cluster file's nodes.
std::unique_ptr<Driver> make_dry_run_driver(const ClusterSpec& cluster, const GpuCatalog& catalog) {
  std::vector<NodeInventory> nodes;
  for (const NodeSpec& n : cluster.nodes) {
    NodeInventory ni{n.name, {}};
    for (int g = 0; g < n.gpus; ++g)
      ni.gpus.push_back(GpuInfo{g, n.model == kNoGpuModel ? "" : catalog.at(n.model).name, "", 0});
    nodes.push_back(std::move(ni));
  }
  return std::make_unique<DryRunDriver>(std::move(nodes));
}

std::unique_ptr<Driver> make_slurm_driver(const ServiceConfig& config,
                                          const std::filesystem::path& db_dir, const Log& log) {
  SlurmDriverOptions so;
  so.slurm = config.slurm;
  so.poll_interval_s = config.slurm_poll_interval_s;
  so.stale_after_s = config.slurm_stale_after_s;
  so.max_backoff_s = config.slurm_max_backoff_s;
  so.gres_log = config.slurm_gres_log;
  if (!so.gres_log.empty() && !std::filesystem::path(so.gres_log).is_absolute())
    so.gres_log = (db_dir / so.gres_log).string();
  so.log = log;
  // Slurm job comments name this service by its database: "frugal-<FNV-1a of the path>".
  std::error_code ec;
  uint32_t h = 2166136261u;
  for (unsigned char ch : std::filesystem::absolute(config.db, ec).string())
    h = (h ^ ch) * 16777619u;
  so.instance = fmt::format("frugal-{:08x}", h);
  return std::make_unique<SlurmDriver>(so);
}

// Fault injection for the crash tests (tests/service/launch_crash_it.py), from the environment:
// FRUGAL_FAULT_AT=STEP[:JOB][=stall] kills this process with SIGKILL (as `kill -9` would),
// or with `=stall` holds the thread there for 10 s, when the launch path reaches STEP
// (decided, spawned, handle_written, released) for any job or for job JOB. Null when the
// variable is unset.
FaultHook fault_hook_from_env() {
  const char* v = std::getenv("FRUGAL_FAULT_AT");
  if (!v || !*v) return nullptr;
  std::string spec = v;
  const bool stall = spec.ends_with("=stall");
  if (stall) spec.resize(spec.size() - 6);
  const size_t colon = spec.find(':');
  const std::string step = spec.substr(0, colon);
  const std::string job = colon == std::string::npos ? "" : spec.substr(colon + 1);
  return [step, job, stall](const char* at, const std::string& job_id) {
    if (step != at || (!job.empty() && job != job_id)) return;
    if (stall)
      std::this_thread::sleep_for(std::chrono::seconds(10));
    else
      kill(getpid(), SIGKILL);
  };
}

// local: this host's GPUs (NVML's, else the configured ones).
std::unique_ptr<Driver> make_local_driver(const ServiceConfig& config, const FaultHook& fault) {
  LocalDriverOptions lo;
  lo.fault = fault;
  lo.node_name = config.node_name;
  lo.use_nvml = config.use_nvml;
  lo.log_dir = config.log_dir;
  lo.max_output_bytes = config.max_job_output_mb << 20;
  for (int g = 0; g < config.gpus; ++g)
    lo.configured_gpus.push_back(GpuInfo{g, config.gpu_model, "", 0});
  return std::make_unique<LocalDriver>(lo);
}

std::unique_ptr<Driver> make_driver(const ServiceConfig& config, const ClusterSpec& cluster,
                                    const GpuCatalog& catalog, const std::filesystem::path& db_dir,
                                    const Log& log, const FaultHook& fault) {
  if (config.backend == "dry-run") return make_dry_run_driver(cluster, catalog);
  if (config.backend == "slurm") return make_slurm_driver(config, db_dir, log);
  return make_local_driver(config, fault);
}

// The engine's cluster from the backend's inventory (local: this host; slurm: its nodes),
// placed and priced by the cluster file (`file`) when one is given.
Result<ClusterSpec> inventory_cluster(const Inventory& inv, const ServiceConfig& config,
                                      const ClusterSpec& file, const GpuCatalog& catalog,
                                      const Log& log) {
  Result<ClusterSpec> c = cluster_from_inventory(inv, config, catalog);
  if (!c.ok() || config.cluster_file.empty()) return c;
  if (config.backend == "local") {
    // This host's GPUs, placed and priced by the file (service/local_cluster.h).
    c = place_local_host(std::move(c).value(), file, config.cluster_file, catalog);
    if (!c.ok()) return c;
    log(fmt::format("cluster: region '{}' and pool '{}' from {}", c.value().regions[0].name,
                    c.value().pools[0].name, config.cluster_file));
    return c;
  }
  // Slurm backend: the nodes come from Slurm, the cluster file gives the place (its
  // first region: time zone, electricity prices, carbon, PUE, time-of-use) and the
  // storage tiers, so cost-aware policies (timeshift) price the live cluster.
  c.value().regions = {file.regions.at(0)};
  c.value().storage_tiers = file.storage_tiers;
  log(fmt::format("cluster: region '{}' from {}", file.regions[0].name, config.cluster_file));
  return c;
}

// Live capacity: the config's `slurm.pools` applied to the cluster, and the backend told which
// nodes it powers (service/capacity_pools.h). Error names the config field or node at fault.
Status place_capacity_pools(const ServiceConfig& config, const Inventory& inv,
                            const GpuCatalog& catalog, Driver& driver, ClusterSpec& cluster,
                            const Log& log) {
  if (config.capacity_pools.empty()) return Status::Ok();
  if (config.backend != "slurm")
    return Error{fmt::format("slurm.pools: only the slurm backend powers nodes (backend is {})",
                             config.backend)};
  Result<ClusterSpec> c = apply_capacity_pools(cluster, inv, config.capacity_pools, catalog);
  if (!c.ok()) return c.error();
  cluster = std::move(c).value();
  const std::vector<std::string> powered = powered_nodes(cluster);
  if (Status st = driver.manage_power(powered); !st.ok())
    return Error{"slurm.pools: " + st.error().message};
  for (size_t p = 1; p < cluster.pools.size(); ++p) {
    size_t nodes = 0;
    for (const NodeSpec& n : cluster.nodes) nodes += n.pool == p ? 1 : 0;
    log(fmt::format(
        "capacity: pool '{}' ({}, {} node(s), boot {} s, idle timeout {} s)", cluster.pools[p].name,
        cluster.pools[p].capacity == Capacity::kOnDemand ? "on demand, powered by frugal"
                                                         : "always on",
        nodes, cluster.pools[p].provisioning_delay_s, cluster.pools[p].idle_timeout_s));
  }
  return Status::Ok();
}

// Each GPU's memory as the inventory reports it: node name → MiB by GPU index.
std::map<std::string, std::vector<int64_t>> gpu_memory(const Inventory& inv) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const NodeInventory& n : inv.nodes)
    for (const GpuInfo& g : n.gpus) {
      auto& mem = out[n.name];
      if (g.index >= 0 && static_cast<size_t>(g.index) >= mem.size()) mem.resize(g.index + 1, 0);
      if (g.index >= 0) mem[static_cast<size_t>(g.index)] = g.memory_mib;
    }
  return out;
}

Authenticator make_authenticator(const ServiceConfig& config) {
  std::map<std::string, std::string> hashes;
  for (const TeamConfig& t : config.teams) hashes[t.token_sha256] = t.name;
  std::map<std::string, Principal> agents;
  for (const AgentConfig& a : config.agents) {
    Principal p;
    p.agent = a.name;
    p.nodes = a.nodes;
    agents[a.token_sha256] = p;
  }
  return Authenticator(hashes, config.admin_token_sha256, agents);
}

RequestLimits request_limits(const ServiceConfig& config, const ClusterSpec& cluster) {
  RequestLimits limits;
  limits.max_grace_s = config.checkpoint_grace_s;
  limits.backend = config.backend;
  // A job may span the cluster (docs/API.md: gpus 0..64×nodes); whether it fits the GPUs
  // there are is the scheduler's check, with its own message.
  limits.max_gpus =
      static_cast<int>(std::clamp<size_t>(64 * cluster.nodes.size(), 64, size_t{1} << 20));
  return limits;
}

// Serves until SIGINT or SIGTERM (read from a signalfd by a thread of its own) or until the
// server fails; returns the exit code.
int serve_until_signal(HttpApi& api, const Log& log) {
  sigset_t stop_set;
  sigemptyset(&stop_set);
  sigaddset(&stop_set, SIGINT);
  sigaddset(&stop_set, SIGTERM);
  const int sfd = signalfd(-1, &stop_set, SFD_CLOEXEC);
  std::thread waiter([&] {
    signalfd_siginfo si{};
    while (read(sfd, &si, sizeof si) < 0 && errno == EINTR) {
    }
    log(fmt::format("signal {}: stopping (running jobs keep running)", si.ssi_signo));
    api.stop();
  });
  const bool ok = api.serve();
  if (!ok) {
    log("the HTTP server stopped unexpectedly");
    kill(getpid(), SIGTERM);  // wake the waiter
  }
  waiter.join();
  close(sfd);
  return ok ? 0 : 1;
}

}  // namespace

int run_serve(const ServeOptions& o) {
  // Block the stop signals (and SIGPIPE) before any thread starts: every thread inherits the
  // mask and the signalfd below is the only place they are read.
  block_stop_signals();
  const auto log = make_logger();

  Result<ServiceConfig> cfg = effective_config(o);
  if (!cfg.ok()) {
    log(cfg.error().message);
    return 1;
  }
  ServiceConfig config = std::move(cfg).value();
  const auto listen = parse_listen(config.listen);
  if (!listen.ok()) {
    log(listen.error().message);
    return 1;
  }
  Result<GpuCatalog> catalog = load_builtin_catalog();
  if (!catalog.ok()) {
    log(catalog.error().message);
    return 1;
  }
  const std::filesystem::path db_dir = place_directories(config);

  // The cluster: the backend's inventory (local: this host, never replaced by a file; slurm:
  // its nodes), placed and priced by a `cluster:` file when given; dry-run: the file's nodes.
  ClusterSpec cluster;
  if (!config.cluster_file.empty()) {
    Result<ClusterSpec> c = load_cluster_file(config.cluster_file, catalog.value());
    if (!c.ok()) {
      log(c.error().message);
      return 1;
    }
    cluster = std::move(c).value();
  }
  const FaultHook fault = fault_hook_from_env();
  std::unique_ptr<Driver> driver =
      make_driver(config, cluster, catalog.value(), db_dir, log, fault);
  Result<Inventory> inv = driver->inventory();
  if (!inv.ok()) {
    log("backend: " + inv.error().message);
    return 1;
  }
  log(fmt::format("backend {}: inventory from {}: {}", driver->name(), inv.value().source,
                  inv.value().note));
  if (config.cluster_file.empty() || config.backend != "dry-run") {
    Result<ClusterSpec> c = inventory_cluster(inv.value(), config, cluster, catalog.value(), log);
    if (!c.ok()) {
      log(c.error().message);
      return 1;
    }
    cluster = std::move(c).value();
  }
  if (Status st = place_capacity_pools(config, inv.value(), catalog.value(), *driver, cluster, log);
      !st.ok()) {
    log(st.error().message);
    return 1;
  }
  int64_t gpus = 0;
  for (const NodeSpec& n : cluster.nodes) gpus += n.gpus;
  log(fmt::format("cluster: {} node(s), {} GPU(s)", cluster.nodes.size(), gpus));

  Result<std::unique_ptr<Store>> store = Store::open(config.db);
  if (!store.ok()) {
    log("database: " + store.error().message);
    return 1;
  }
  log(fmt::format("database {} (schema version {})", config.db, store.value()->schema_version()));

  // Storage (config `storage:`): opened after the store (same database file, its own
  // connections); jobs' checkpoint folders move to the hot tier.
  std::unique_ptr<LiveStorage> storage;
  if (config.storage.enabled) {
    Result<std::unique_ptr<LiveStorage>> s = LiveStorage::open(config.storage, config.db, log);
    if (!s.ok()) {
      log(s.error().message);
      return 1;
    }
    storage = std::move(s).value();
    config.checkpoint_dir = storage->checkpoint_root();
    log(fmt::format("storage: {} tier(s); checkpoints under {}", config.storage.tiers.size(),
                    config.checkpoint_dir));
  }

  const Authenticator auth = make_authenticator(config);
  Scheduler::Parts parts{
      config, catalog.value(), cluster, std::move(driver), std::move(store).value(), log, {}};
  parts.gpu_memory_mib = gpu_memory(inv.value());
  for (const NodeInventory& n : inv.value().nodes) parts.initial_power[n.name] = n.power;
  parts.fault = fault;
  parts.storage = std::move(storage);
  Result<std::unique_ptr<Scheduler>> sched = Scheduler::create(std::move(parts));
  if (!sched.ok()) {
    log(sched.error().message);
    return 1;
  }
  Scheduler& scheduler = *sched.value();
  // The port first: a daemon that cannot have it touches no job (requests wait in the
  // backlog until the loop runs).
  HttpApi api(scheduler, auth, catalog.value(), request_limits(config, cluster),
              HttpOptions{config.max_request_bytes, config.http_threads,
                          std::chrono::milliseconds(
                              static_cast<int64_t>(config.http_read_timeout_s * 1000))});
  if (Status st = api.bind(listen.value().first, listen.value().second); !st.ok()) {
    log(st.error().message);
    return 1;
  }
  if (Status st = scheduler.recover(); !st.ok()) {
    log("recovery: " + st.error().message);
    return 1;
  }
  scheduler.start();
  log(fmt::format("listening on http://{}:{} (policy {})", listen.value().first, api.port(),
                  config.policy));
  const int rc = serve_until_signal(api, log);
  scheduler.stop();
  return rc;
}

}  // namespace frugal
