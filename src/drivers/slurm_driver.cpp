#include "drivers/slurm_driver.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>

#include "drivers/slurm_foreign.h"
#include "drivers/slurm_jobcomp.h"

namespace frugal {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string signal_name(int sig) {
  const char* n = sigabbrev_np(sig);
  return n != nullptr ? std::string(n) : std::to_string(sig);
}

bool finished_state(const std::string& s) {
  return s == "COMPLETED" || s == "FAILED" || s == "CANCELLED" || s == "TIMEOUT" ||
         s == "NODE_FAIL" || s == "OUT_OF_MEMORY" || s == "PREEMPTED" || s == "BOOT_FAIL" ||
         s == "DEADLINE";
}

// The Slurm request for a placement: nodes in slot order and one GRES item per node.
struct Request {
  std::vector<std::string> nodes;
  std::string gres;     // "gpu:h100:2", "shard:a100:3" or "" (CPU only)
  std::string feature;  // node feature of the GPU type
};

}  // namespace

SlurmDriver::SlurmDriver(SlurmDriverOptions options)
    : o_(std::move(options)), client_(o_.slurm), power_(o_.power_settle_s, o_.power_hold_s) {}

SlurmDriver::~SlurmDriver() {
  {
    std::lock_guard<std::mutex> g(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

double SlurmDriver::now_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void SlurmDriver::say(const std::string& line) const {
  if (o_.log) o_.log("slurm: " + line);
}

double SlurmDriver::staleness_s() const {
  std::lock_guard<std::mutex> g(mu_);
  return now_s() - last_ok_;
}

Result<Inventory> SlurmDriver::inventory() {
  auto nodes = client_.nodes();
  if (!nodes.ok()) return nodes.error();
  Inventory inv;
  inv.source = "slurm";
  {
    std::lock_guard<std::mutex> g(mu_);
    for (const SlurmNode& n : nodes.value()) {
      if (!in_partition(n)) continue;
      NodeInventory ni{n.name, {}, n.features, power_of(n, o_.slurm.reclaim_reason)};
      inventory_power_[n.name] = ni.power;
      if (n.gpus > 0) {
        const GresMapping* m = o_.slurm.by_gres_type(n.gpu_type);
        if (m == nullptr)
          return Error{fmt::format("Slurm node {}: GPU type '{}' is not in slurm.gpu_map", n.name,
                                   n.gpu_type)};
        for (int i = 0; i < n.gpus; ++i) ni.gpus.push_back(GpuInfo{i, m->model, "", 0});
      }
      node_type_[n.name] = n.gpu_type;
      node_usable_[n.name] = true;  // as the engine starts; the first refresh reports downs
      inv.nodes.push_back(std::move(ni));
    }
    nodes_ = nodes.value();
  }
  if (inv.nodes.empty())
    return Error{fmt::format("Slurm partition '{}' has no nodes", o_.slurm.partition)};
  inv.note = fmt::format(
      "slurmrestd {} partition {}: {} nodes; state polled every {} s, no start on state older "
      "than {} s",
      o_.slurm.rest_url, o_.slurm.partition, inv.nodes.size(), o_.poll_interval_s,
      o_.stale_after_s);
  if (!thread_.joinable()) thread_ = std::thread([this] { worker(); });
  return inv;
}

bool SlurmDriver::in_partition(const SlurmNode& n) const {
  if (o_.slurm.partition.empty()) return true;
  const std::string& list = o_.slurm.partition;
  for (size_t i = 0; i <= list.size();) {
    size_t j = list.find(',', i);
    if (j == std::string::npos) j = list.size();
    const std::string p = list.substr(i, j - i);
    if (std::find(n.partitions.begin(), n.partitions.end(), p) != n.partitions.end()) return true;
    i = j + 1;
  }
  return false;
}

const SlurmNode* SlurmDriver::find_node(const std::string& name) const {
  for (const SlurmNode& n : nodes_)
    if (n.name == name) return &n;
  return nullptr;
}

bool SlurmDriver::nodes_powered(const Run& r) const {
  for (const SlotAssignment& s : r.spec.slots) {
    if (power_nodes_.count(s.node) == 0) continue;
    const SlurmNode* n = find_node(s.node);
    if (n == nullptr || power_of(*n, o_.slurm.reclaim_reason) != PowerState::kOn) return false;
  }
  return true;
}

Status SlurmDriver::manage_power(const std::vector<std::string>& nodes) {
  std::lock_guard<std::mutex> g(mu_);
  for (const std::string& name : nodes) {
    const auto it = inventory_power_.find(name);
    if (it == inventory_power_.end())
      return Error{fmt::format("node {} is not in the Slurm inventory", name)};
    power_.track(name, it->second);
    power_nodes_.insert(name);
  }
  return Status::Ok();
}

bool SlurmDriver::powers_nodes() const {
  std::lock_guard<std::mutex> g(mu_);
  return !power_nodes_.empty();
}

void SlurmDriver::power_up(const std::string& node) {
  {
    std::lock_guard<std::mutex> g(mu_);
    power_requests_.emplace_back(node, true);
  }
  cv_.notify_all();
}

void SlurmDriver::power_down(const std::string& node) {
  {
    std::lock_guard<std::mutex> g(mu_);
    power_requests_.emplace_back(node, false);
  }
  cv_.notify_all();
}

void SlurmDriver::act_power() {
  std::vector<std::pair<std::string, bool>> requests;
  requests.swap(power_requests_);
  for (const auto& [node, up] : requests) {
    const double now = now_s();
    if (Status st = client_.power(node, up); !st.ok()) {
      power_.request_failed(node, now);
      DriverEvent e{DriverEvent::Kind::kPower,
                    "",
                    "",
                    node,
                    -1,
                    0,
                    fmt::format("Slurm refused to power {} {}: {}", up ? "up" : "down", node,
                                st.error().message)};
      e.power = PowerState::kFailed;
      emit(std::move(e));
      continue;
    }
    power_.requested(node, up, now);
    say(fmt::format("power {} {} requested", up ? "up" : "down", node));
  }
}

void SlurmDriver::diff_power() {
  const double now = now_s();
  power_changed_.clear();
  for (const SlurmNode& n : nodes_) {
    if (!power_.tracks(n.name)) continue;
    const std::optional<PowerState> p =
        power_.observe(n.name, power_of(n, o_.slurm.reclaim_reason), now);
    if (!p) continue;
    DriverEvent e{DriverEvent::Kind::kPower,
                  "",
                  "",
                  n.name,
                  -1,
                  0,
                  fmt::format("Slurm node {} {} ({}{})", n.name, to_string(*p), n.state,
                              n.reason.empty() ? "" : ", " + n.reason)};
    e.power = *p;
    emit(std::move(e));
    power_changed_.insert(n.name);
  }
}

Result<std::string> SlurmDriver::start(const LaunchSpec& spec) {
  std::map<std::string, int> per_node;
  std::vector<std::string> order;
  for (const SlotAssignment& s : spec.slots)
    if (per_node.emplace(s.node, 0).second) order.push_back(s.node);
  for (const SlotAssignment& s : spec.slots)
    if (s.gpu >= 0) ++per_node[s.node];
  for (const auto& [n, c] : per_node)
    if (c != per_node.begin()->second)
      return Error{
          fmt::format("job {}: uneven GPUs per node ({} on {}, {} on {}): Slurm asks "
                      "the same GRES on every node",
                      spec.job_id, per_node.begin()->second, per_node.begin()->first, c, n)};
  Run r;
  r.handle = fmt::format("slurm:{}:{}", spec.job_id, spec.restart_count);
  r.job_id = spec.job_id;
  r.spec = spec;
  {
    std::lock_guard<std::mutex> g(mu_);
    runs_[r.handle] = std::move(r);
  }
  cv_.notify_all();
  return fmt::format("slurm:{}:{}", spec.job_id, spec.restart_count);
}

Status SlurmDriver::stop(const std::string& handle, const StopPlan& plan) {
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = runs_.find(handle);
    if (it == runs_.end() || it->second.stopping || it->second.ended) return Status::Ok();
    Run& r = it->second;
    r.stopping = true;
    r.plan = plan;
    const double now = now_s();
    r.signal_at = plan.checkpoint_signal != 0 ? now : -1;
    r.end_at = now + (plan.checkpoint_signal != 0 ? plan.grace_s : 0);
  }
  cv_.notify_all();
  return Status::Ok();
}

Result<bool> SlurmDriver::adopt(const std::string& job_id, int run, const std::string& handle) {
  (void)run;  // one Slurm job id across a job's runs (a preempted run is requeued under it)
  std::unique_lock<std::mutex> g(mu_);
  const double asked = now_s();
  cv_.wait_for(g, std::chrono::duration<double>(o_.stale_after_s),
               [&] { return last_ok_ >= asked || quit_; });
  if (last_ok_ < asked)
    return Error{fmt::format("adopting job {}: no answer from Slurm for {:.0f} s", job_id,
                             now_s() - last_ok_)};
  if (const auto [fid, fstart] = parse_foreign_handle(handle); fid > 0) {
    if (auto it = runs_.find(handle); it != runs_.end()) {  // already observed this run
      it->second.job_id = job_id;
      return !it->second.ended;
    }
    for (const SlurmJob& j : jobs_) {
      if (j.id != fid || j.start_time != fstart || !j.running()) continue;
      Run r;
      r.handle = handle;
      r.job_id = job_id;
      r.slurm_id = j.id;
      r.launched = r.seen_running = r.foreign = true;
      r.nodes = j.nodes;
      runs_[handle] = std::move(r);
      return true;
    }
    return false;
  }
  for (const SlurmJob& j : jobs_) {
    if (j.comment != comment_of(job_id)) continue;
    if (!j.running() && !(j.pending() && !j.held())) continue;
    Run r;
    r.handle = handle.empty() ? fmt::format("slurm:{}:adopted", job_id) : handle;
    r.job_id = job_id;
    r.slurm_id = j.id;
    r.launched = true;
    r.seen_running = j.running();
    adopted_[job_id] = r.handle;
    runs_[r.handle] = std::move(r);
    return true;
  }
  return false;
}

std::string SlurmDriver::adopted_handle(const std::string& job_id) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = adopted_.find(job_id);
  return it == adopted_.end() ? std::string() : it->second;
}

void SlurmDriver::discard(const std::string& job_id) {
  {
    std::lock_guard<std::mutex> g(mu_);
    discards_.push_back(job_id);
  }
  cv_.notify_all();
}

std::vector<DriverEvent> SlurmDriver::poll() {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<DriverEvent> out;
  out.swap(events_);
  return out;
}

void SlurmDriver::emit(DriverEvent e) {
  events_.push_back(std::move(e));
}

void SlurmDriver::worker() {
  std::unique_lock<std::mutex> g(mu_);
  while (!quit_) {
    g.unlock();
    const bool ok = refresh();
    g.lock();
    if (quit_) break;
    if (ok) {
      act(now_s());
      diff();
    }
    const double wait = ok ? o_.poll_interval_s : backoff_s_;
    cv_.wait_for(g, std::chrono::duration<double>(wait));
  }
}

bool SlurmDriver::refresh() {
  auto jobs = client_.jobs();
  Result<std::vector<SlurmNode>> nodes =
      jobs.ok() ? client_.nodes() : Result<std::vector<SlurmNode>>(jobs.error());
  std::lock_guard<std::mutex> g(mu_);
  if (!jobs.ok() || !nodes.ok()) {
    const bool first = backoff_s_ == 0;
    backoff_s_ = std::min(o_.max_backoff_s, std::max(o_.poll_interval_s, backoff_s_ * 2));
    if (first) {
      const std::string why = (jobs.ok() ? nodes.error() : jobs.error()).message;
      say(fmt::format("not answering ({}); keeping state, retrying with backoff up to {} s", why,
                      o_.max_backoff_s));
      emit({DriverEvent::Kind::kBackendDown, "", "", "", -1, 0,
            fmt::format("Slurm ({}) not answering: {}; no start until it answers again",
                        o_.slurm.rest_url, why)});
    }
    return false;
  }
  if (backoff_s_ > 0) {
    say(fmt::format("answering again after {:.1f} s", now_s() - last_ok_));
    emit({DriverEvent::Kind::kBackendUp, "", "", "", -1, 0,
          fmt::format("Slurm ({}) answering again", o_.slurm.rest_url)});
  }
  backoff_s_ = 0;
  jobs_ = std::move(jobs).value();
  nodes_ = std::move(nodes).value();
  last_ok_ = now_s();
  cv_.notify_all();  // adopt() waits for a fresh snapshot
  return true;
}

Result<int64_t> SlurmDriver::submit_held(const LaunchSpec& s, int64_t begin_unix) {
  SlurmSubmit sub;
  sub.name = s.name.empty() ? "frugal-" + s.job_id : s.name;
  sub.comment = comment_of(s.job_id);
  sub.workdir = !s.workdir.empty() ? s.workdir : !s.log_dir.empty() ? s.log_dir : "/tmp";
  std::vector<std::string> nodes;
  for (const SlotAssignment& a : s.slots)
    if (std::find(nodes.begin(), nodes.end(), a.node) == nodes.end()) nodes.push_back(a.node);
  sub.nodes = static_cast<int>(std::max<size_t>(1, nodes.size()));
  sub.begin_unix = begin_unix;
  if (!s.log_dir.empty()) sub.output = fmt::format("{}/{}.out", s.log_dir, s.job_id);
  std::string script = "#!/bin/bash\n";
  script += fmt::format("export FRUGAL_JOB_ID={}\n", shell_quote(s.job_id));
  script += fmt::format("export FRUGAL_RESTART_COUNT=$(( {} + ${{SLURM_RESTART_COUNT:-0}} ))\n",
                        s.restart_count);
  if (!s.checkpoint_dir.empty())
    script += fmt::format("export FRUGAL_CHECKPOINT_DIR={}\nmkdir -p \"$FRUGAL_CHECKPOINT_DIR\"\n",
                          shell_quote(s.checkpoint_dir));
  for (const auto& [k, v] : s.env) script += fmt::format("export {}={}\n", k, shell_quote(v));
  script += s.command + "\n";
  sub.script = script;
  return client_.submit(sub);
}

void SlurmDriver::deferred(const LaunchSpec& spec, double until_unix) {
  {
    std::lock_guard<std::mutex> g(mu_);
    deferrals_.emplace_back(spec, until_unix);
  }
  cv_.notify_all();
}

namespace {

// The Slurm request for the placement `s`: its nodes in slot order, and the GRES item and
// node feature of the GPUs it takes on its first node. Looks up (and records, as
// operator[] does) the first node's GRES type in `node_type`.
Request request_for(const LaunchSpec& s, std::map<std::string, std::string>& node_type,
                    const SlurmConfig& slurm) {
  Request q;
  int gpus = 0;
  int milli = 1000;
  for (const SlotAssignment& a : s.slots) {
    if (std::find(q.nodes.begin(), q.nodes.end(), a.node) == q.nodes.end())
      q.nodes.push_back(a.node);
    if (a.gpu >= 0 && a.node == s.slots[0].node) {
      ++gpus;
      milli = a.milli;
    }
  }
  if (q.nodes.empty() || gpus <= 0) return q;
  const std::string type = node_type[q.nodes[0]];
  const GresMapping* m = slurm.by_gres_type(type);
  q.feature = m != nullptr && !m->feature.empty() ? m->feature : type;
  if (milli < 1000) {
    const int shards = std::max(1, (milli * slurm.shards_per_gpu + 999) / 1000);
    q.gres = fmt::format("shard:{}:{}", type, shards);
  } else {
    q.gres = fmt::format("gpu:{}:{}", type, gpus);
  }
  return q;
}

std::string join_nodes(const std::vector<std::string>& nodes) {
  std::string nodelist;
  for (const auto& n : nodes) nodelist += (nodelist.empty() ? "" : ",") + n;
  return nodelist;
}

}  // namespace

const SlurmJob* SlurmDriver::find_job(int64_t slurm_id) const {
  const SlurmJob* j = nullptr;
  for (const SlurmJob& x : jobs_)
    if (x.id == slurm_id) j = &x;  // the last one, should Slurm list an id twice
  return j;
}

Status SlurmDriver::pick_pending(const std::string& job_id, const std::string& gres, bool one_node,
                                 int64_t* reuse) {
  const std::string want = gres.empty() ? "" : "gres:" + gres;
  for (const SlurmJob& j : jobs_) {
    if (j.comment != comment_of(job_id) || !j.pending()) continue;
    if ((j.tres_per_node == want || j.tres_per_node.empty()) && one_node) {
      *reuse = j.id;  // same GRES, or none yet (a deferred job): it can take this one
    } else if (Status c = client_.cancel(j.id); !c.ok()) {
      return c;
    }
  }
  return Status::Ok();
}

Status SlurmDriver::place_reused(Run& r, int64_t reuse, SlurmUpdate u, const std::string& gres,
                                 int* reuse_restarts) {
  for (const SlurmJob& j : jobs_) {
    if (j.id != reuse) continue;
    if (j.tres_per_node.empty()) u.gres = gres;
    *reuse_restarts = j.restarts;
  }
  if (Status st = client_.update(reuse, u); !st.ok()) return st;
  r.slurm_id = reuse;
  // An earlier run of this job on the same Slurm job is over: it must not act on (signal,
  // requeue) the new run. Its one kExited is reported now if it was not yet.
  for (auto& [h, old] : runs_)
    if (&old != &r && old.slurm_id == reuse && !old.ended) {
      old.ended = true;
      emit({DriverEvent::Kind::kExited, old.job_id, old.handle, "", -1, SIGTERM,
            fmt::format("Slurm job {} requeued; it runs again as {}", reuse, r.handle)});
    }
  return Status::Ok();
}

Status SlurmDriver::submit_placed(Run& r, const SlurmUpdate& u) {
  auto id = submit_held(r.spec, 0);
  if (!id.ok()) return id.error();
  r.slurm_id = id.value();
  if (Status st = client_.update(r.slurm_id, u); !st.ok()) {
    (void)client_.cancel(r.slurm_id);
    r.slurm_id = 0;
    return st;
  }
  return Status::Ok();
}

Status SlurmDriver::launch(Run& r) {
  const LaunchSpec& s = r.spec;
  const Request q = request_for(s, node_type_, o_.slurm);
  const std::string nodelist = join_nodes(q.nodes);

  // A requeued (held) Slurm job of this frugal job with the same GRES is placed again;
  // one with another GRES type cannot be (Slurm keeps the type), so it is replaced.
  int64_t reuse = 0;
  if (Status c = pick_pending(r.job_id, q.gres, q.nodes.size() == 1, &reuse); !c.ok()) return c;
  int reuse_restarts = 0;
  SlurmUpdate u;
  u.nodelist = nodelist;
  u.features = q.feature;
  if (reuse > 0) {
    if (Status st = place_reused(r, reuse, u, q.gres, &reuse_restarts); !st.ok()) return st;
  } else {
    u.gres = q.gres;
    if (Status st = submit_placed(r, u); !st.ok()) return st;
  }
  if (reuse > 0 && reuse_restarts == 0) {
    // A deferred job that never ran: clear the begin time frugal gave it. A requeued job
    // keeps the one Slurm set (requeue + cred_expire + 1 s): until then its old credential
    // is revoked on the node and an earlier launch there fails ("Job credential revoked"),
    // which ends the job instead of restarting it.
    SlurmUpdate now;
    now.begin_now = true;
    if (Status st = client_.update(r.slurm_id, now); !st.ok()) return st;
  }
  if (Status st = client_.release(r.slurm_id); !st.ok()) return st;
  SlurmUpdate prio;
  prio.priority = o_.slurm.priority_for_tier(s.tier);
  const Status ps = client_.update(r.slurm_id, prio);
  say(fmt::format("job {} → Slurm job {} on {} ({}), priority {} ({}){}{}", r.job_id, r.slurm_id,
                  nodelist, q.gres.empty() ? "no GPU" : q.gres, prio.priority, s.tier,
                  reuse > 0 ? ", requeued job placed again" : "",
                  ps.ok() ? "" : "; priority not set: " + ps.error().message));
  return Status::Ok();
}

void SlurmDriver::act_discards() {
  std::vector<std::string> keep;
  for (const std::string& id : discards_) {
    bool ok = true;
    for (const SlurmJob& j : jobs_)
      if (j.comment == comment_of(id) && j.pending()) {
        const Status st = client_.cancel(j.id);
        if (st.ok()) say(fmt::format("job {} cancelled: its queued Slurm job {} too", id, j.id));
        ok = ok && st.ok();
      }
    if (!ok) keep.push_back(id);
  }
  discards_ = std::move(keep);
}

Status SlurmDriver::defer(const LaunchSpec& spec, int64_t begin) {
  int64_t existing = 0;
  for (const SlurmJob& j : jobs_)
    if (j.comment == comment_of(spec.job_id) && j.pending()) existing = j.id;
  Status st;
  if (existing > 0) {
    SlurmUpdate u;
    u.begin_unix = begin;
    st = client_.update(existing, u);
  } else {
    auto id = submit_held(spec, begin);
    if (id.ok())
      existing = id.value();
    else
      st = id.error();
  }
  if (st.ok())
    say(fmt::format("job {} deferred: Slurm job {} held with begin time {}", spec.job_id, existing,
                    begin));
  return st;
}

void SlurmDriver::act_deferrals() {
  std::vector<std::pair<LaunchSpec, double>> later;
  for (auto& [spec, until] : deferrals_)
    if (!defer(spec, static_cast<int64_t>(until)).ok()) later.emplace_back(std::move(spec), until);
  deferrals_ = std::move(later);
}

void SlurmDriver::act_launch(Run& r) {
  Status st = launch(r);
  if (st.ok()) {
    r.launched = true;
    r.failures = 0;
    r.launch_gen = gen_;
  } else if (++r.failures >= 3) {
    r.ended = true;
    emit({DriverEvent::Kind::kLost, r.job_id, r.handle, "", -1, 0,
          "Slurm refused the job: " + st.error().message});
  } else {
    say(fmt::format("job {}: {} (will retry)", r.job_id, st.error().message));
  }
}

void SlurmDriver::act_signal(Run& r, const SlurmJob& j, double now) {
  const bool due = !r.signalled && r.signal_at >= 0 && now >= r.signal_at && j.running();
  if (!due) return;
  const Status st = client_.signal(r.slurm_id, signal_name(r.plan.checkpoint_signal));
  if (!st.ok()) return;
  r.signalled = true;
  say(fmt::format("job {}: SIG{} sent to Slurm job {}", r.job_id,
                  signal_name(r.plan.checkpoint_signal), r.slurm_id));
}

void SlurmDriver::act_end(Run& r, const SlurmJob& j) {
  Status st;
  if (j.pending()) {
    st = r.plan.requeue ? client_.hold(r.slurm_id) : client_.cancel(r.slurm_id);
    if (st.ok()) {
      r.ended = true;
      emit({DriverEvent::Kind::kExited, r.job_id, r.handle, "", -1, SIGTERM,
            fmt::format("Slurm job {} was pending when stopped (not started yet, or requeued "
                        "by Slurm after its node went); {}",
                        r.slurm_id, r.plan.requeue ? "held" : "cancelled")});
    }
  } else if (j.running()) {
    st = r.plan.requeue ? client_.requeue(r.slurm_id, /*hold=*/true) : client_.cancel(r.slurm_id);
  }
  if (!st.ok()) return;
  r.end_requested = true;
  if (j.running())
    say(fmt::format("job {}: Slurm job {} {}", r.job_id, r.slurm_id,
                    r.plan.requeue ? "requeued (held)" : "cancelled"));
}

void SlurmDriver::act_stop(Run& r, double now) {
  if (!r.launched) {  // stopped before Slurm ever had it
    if (r.slurm_id > 0) (void)client_.cancel(r.slurm_id);
    r.ended = true;
    emit({DriverEvent::Kind::kExited, r.job_id, r.handle, "", -1, SIGTERM,
          "stopped before it was placed in Slurm"});
    return;
  }
  const SlurmJob* j = find_job(r.slurm_id);
  if (j == nullptr) return;  // diff() reports it
  act_signal(r, *j, now);
  if (now < r.end_at || r.end_requested) return;
  act_end(r, *j);
}

void SlurmDriver::act(double now) {
  const bool fresh = now - last_ok_ <= o_.stale_after_s;
  act_power();
  act_discards();
  act_deferrals();
  for (auto& [handle, r] : runs_) {
    if (r.ended) continue;
    if (!r.launched && !r.stopping) {
      // No start on stale state, nor onto a node Slurm does not show powered up.
      if (fresh && nodes_powered(r)) act_launch(r);
      continue;
    }
    if (r.stopping) act_stop(r, now);
  }
}

void SlurmDriver::observe_foreign() {
  std::set<std::string> ours;
  for (const auto& [n, usable] : node_usable_) ours.insert(n);
  for (const SlurmJob& j : jobs_) {
    if (!j.running() || !is_foreign(j, o_.instance)) continue;
    const std::string handle = foreign_handle(j);
    if (runs_.count(handle)) continue;  // this run is already reported (or adopted)
    std::vector<std::string> unknown;
    std::vector<SlotAssignment> slots = foreign_slots(j, ours, o_.slurm.shards_per_gpu, &unknown);
    for (const std::string& n : unknown)
      say(fmt::format("Slurm job {} holds GPUs on {} without device indices; not counted", j.id,
                      n));
    Run r;
    r.handle = handle;
    r.slurm_id = j.id;
    r.launched = r.seen_running = r.foreign = true;
    r.ended = slots.empty();  // holds no GPU of the partition's nodes: nothing to report
    r.nodes = j.nodes;
    r.launch_gen = gen_;
    runs_[handle] = std::move(r);
    if (slots.empty()) continue;
    DriverEvent e{DriverEvent::Kind::kForeign,
                  fmt::format("slurm {} {}", j.id, j.name),
                  handle,
                  "",
                  -1,
                  0,
                  fmt::format("Slurm job {} ({}) submitted directly by {}: {} GPU slot(s) taken",
                              j.id, j.name, j.user.empty() ? "?" : j.user, slots.size())};
    e.slots = std::move(slots);
    e.owner = j.user;
    e.start_unix = static_cast<double>(j.start_time);
    emit(std::move(e));
  }
}

void SlurmDriver::diff_nodes() {
  for (const SlurmNode& n : nodes_) {
    auto it = node_usable_.find(n.name);
    if (it == node_usable_.end()) continue;  // not in the partition
    const bool usable = n.usable();
    if (usable == it->second) continue;
    it->second = usable;
    // A power-managed node that is not on: its power is reported (kPower), not up/down.
    if (power_.tracks(n.name) &&
        (power_of(n, o_.slurm.reclaim_reason) != PowerState::kOn ||
         power_.reported(n.name) != PowerState::kOn || power_changed_.count(n.name) != 0))
      continue;
    emit({usable ? DriverEvent::Kind::kNodeUp : DriverEvent::Kind::kNodeDown, "", "", n.name, -1, 0,
          fmt::format("Slurm node {} {}{}", n.name, n.state,
                      n.reason.empty() ? "" : " (" + n.reason + ")")});
  }
}

bool SlurmDriver::ran_on_down_node(const Run& r) const {
  bool node_lost = false;
  for (const auto& n : r.nodes) {
    auto it = node_usable_.find(n);
    node_lost = node_lost || (it != node_usable_.end() && !it->second);
  }
  return node_lost;
}

void SlurmDriver::diff_running(Run& r, const SlurmJob& j) {
  r.seen_running = true;
  if (!j.nodes.empty()) r.nodes = j.nodes;
  if (!o_.gres_log.empty() && logged_.insert({j.id, j.start_time}).second)
    std::ofstream(o_.gres_log, std::ios::app) << gres_log_line(j) << "\n";
}

void SlurmDriver::diff_pending(Run& r, const SlurmJob& j) {
  if (!r.seen_running) {
    // Released to run now but still waiting on a begin time frugal gave it (a deferral):
    // send "now" again. Not for a requeued job: Slurm's cred_expire + 1 s delay protects
    // its restart (place()).
    if (!r.stopping && j.restarts == 0 && j.reason == "BeginTime" &&
        j.eligible_time > j.submit_time) {
      SlurmUpdate now;
      now.begin_now = true;
      (void)client_.update(j.id, now);
    }
    return;  // waiting to start
  }
  // Slurm requeued it itself. On a node that went down the engine preempts and
  // requeues the job (node-down event, then stop()): leave the report to that stop.
  if (!r.stopping && !r.foreign && ran_on_down_node(r)) return;
  r.ended = true;  // requeued: by frugal's stop, or by Slurm (node failure)
  emit({DriverEvent::Kind::kExited, r.job_id, r.handle, "", -1, SIGTERM,
        fmt::format("Slurm job {} requeued ({})", r.slurm_id, j.reason)});
}

void SlurmDriver::diff_finished(Run& r, const SlurmJob& j) {
  r.ended = true;
  const int code = j.exit_code > 255 ? j.exit_code >> 8 : j.exit_code;
  DriverEvent e{DriverEvent::Kind::kExited,
                r.job_id,
                r.handle,
                "",
                -1,
                0,
                fmt::format("Slurm job {} {}", r.slurm_id, j.state)};
  if (j.state == "COMPLETED" || j.state == "FAILED")
    e.exit_code = code;
  else
    e.term_signal = SIGTERM;
  emit(std::move(e));
}

void SlurmDriver::diff_run(Run& r) {
  const SlurmJob* j = find_job(r.slurm_id);
  if (j == nullptr) {
    r.ended = true;
    emit({DriverEvent::Kind::kLost, r.job_id, r.handle, "", -1, 0,
          fmt::format("Slurm no longer knows job {}", r.slurm_id)});
  } else if (j->running()) {
    diff_running(r, *j);
  } else if (j->pending()) {
    diff_pending(r, *j);
  } else if (finished_state(j->state)) {
    diff_finished(r, *j);
  }
}

void SlurmDriver::diff() {
  ++gen_;
  observe_foreign();
  diff_power();
  diff_nodes();
  for (auto& [handle, r] : runs_) {
    if (r.ended || !r.launched || r.launch_gen >= gen_ - 1) continue;
    diff_run(r);
  }
}

}  // namespace frugal
