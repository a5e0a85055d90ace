// Scheduler: telemetry — the driver's GPU readings and node agents' pushed reports into the
// loop's view (telemetry_, node_seen_), the running jobs' measured use, and the alert rules.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>

#include "service/insights.h"
#include "service/scheduler.h"

namespace frugal {
namespace {

// The Slurm job id in a Slurm driver handle ("slurm:<id>:<run>", "slurm-external:<id>:<t>").
std::string slurm_job_of(const std::string& handle) {
  for (const std::string prefix : {"slurm:", "slurm-external:"})
    if (handle.rfind(prefix, 0) == 0) {
      const size_t from = prefix.size(), to = handle.find(':', from);
      return handle.substr(from, to == std::string::npos ? std::string::npos : to - from);
    }
  return "";
}

// A process's job id (decimal text); 0 when not one.
int64_t job_id_of(const std::string& text) {
  int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  return ec == std::errc() && end == text.data() + text.size() ? id : 0;
}

using GpuKey = std::pair<std::string, int>;

// Where GPU processes say each job runs (frugal job id → GPUs → memory its processes use
// there, MiB, < 0 unknown), and which jobs' processes each GPU carries (ids ascending).
struct ProcessUse {
  std::map<int64_t, std::map<GpuKey, int64_t>> gpus;
  std::map<GpuKey, std::vector<int64_t>> jobs_at;
};

ProcessUse process_use(const std::vector<GpuTelemetry>& readings,
                       const std::map<std::string, int64_t>& by_slurm) {
  ProcessUse use;
  for (const GpuTelemetry& g : readings)
    for (const GpuProcess& p : g.processes) {
      int64_t id = 0;
      if (!p.job.empty()) {
        id = job_id_of(p.job);
      } else if (const auto it = by_slurm.find(p.slurm_job);
                 !p.slurm_job.empty() && it != by_slurm.end()) {
        id = it->second;
      }
      if (id <= 0) continue;
      auto [mib, fresh] = use.gpus[id].try_emplace({g.node, g.gpu}, -1);
      if (fresh) {
        std::vector<int64_t>& ids = use.jobs_at[{g.node, g.gpu}];
        ids.insert(std::lower_bound(ids.begin(), ids.end(), id), id);
      }
      if (p.memory_mib >= 0) mib->second = std::max<int64_t>(mib->second, 0) + p.memory_mib;
    }
  return use;
}

// Job `id`'s part of a shared card's utilisation `card` (a fraction of the card). NVML's
// per-process utilisation is no split of a time-sliced card (docs/TELEMETRY.md, "Shared
// cards": on an H200 each sample went whole to one of its processes), so: a host keeps what
// it used alone, at most the card; the rest goes to the other tenants by their shares.
double part_of(int64_t id, double card, const std::vector<CardTenant>& tenants) {
  double fixed = 0, shares = 0;
  for (const CardTenant& t : tenants)
    (t.solo >= 0 ? fixed : shares) += t.solo >= 0 ? t.solo : t.share;
  // Fixed parts over the card (or alone on it) are scaled to the card.
  const double scale = fixed > 0 && (fixed > card || shares <= 0) ? card / fixed : 1;
  const double rest = std::max(0.0, card - fixed * scale);
  for (const CardTenant& t : tenants)
    if (t.id == id) return t.solo >= 0 ? t.solo * scale : rest * t.share / shares;
  return 0;
}

// A job's measured load over its GPUs: the mean of its parts of the cards (`own`) and of
// the cards' utilisation (`card`, at least its own); `alone` when no other job's processes
// shared any of them. Nothing when no card of `gpus` was read.
struct JobLoad {
  double own = 0;
  double card = 0;
  bool alone = true;
};

template <class Tenants>
std::optional<JobLoad> job_load(int64_t id, const std::vector<GpuKey>& gpus, const ProcessUse& use,
                                const std::map<GpuKey, double>& util, Tenants&& tenants) {
  JobLoad load;
  int n = 0;
  for (const GpuKey& key : gpus) {
    const auto card = util.find(key);
    if (card == util.end()) continue;
    ++n;
    load.card += card->second;
    const auto at = use.jobs_at.find(key);
    if (at == use.jobs_at.end() || at->second.size() < 2) {
      load.own += card->second;
      continue;
    }
    load.alone = false;
    load.own += part_of(id, card->second, tenants(key, at->second));
  }
  if (n == 0) return std::nullopt;
  load.own /= n;
  load.card /= n;
  return load;
}

// The jobs `readings` can measure: those placed on their nodes and those their processes
// name (any other running job has no GPU among the readings), in id order.
std::vector<int64_t> measurable(
    const std::vector<GpuTelemetry>& readings,
    const std::unordered_map<std::string, std::vector<int64_t>>& by_node, const ProcessUse& use) {
  std::vector<int64_t> ids;
  const std::string* node = nullptr;
  for (const GpuTelemetry& g : readings) {
    if (node && *node == g.node) continue;
    node = &g.node;
    if (const auto it = by_node.find(g.node); it != by_node.end())
      ids.insert(ids.end(), it->second.begin(), it->second.end());
  }
  for (const auto& [id, gpus] : use.gpus) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace

ApiReply Scheduler::ingest_telemetry(const Principal& who, TelemetryBatch batch) {
  auto outcome = pushed_->ingest(who.nodes, std::move(batch), clock_->now());
  if (const auto* refused = std::get_if<TelemetryBook::Refusal>(&outcome))
    return error_reply(refused->status, refused->error.message, refused->error.field);
  const auto& a = std::get<TelemetryBook::Accepted>(outcome);
  ApiReply r;
  r.status = 202;
  r.body = {{"accepted", a.accepted}, {"stale", a.stale}};
  return r;
}

Scheduler::RunningIndex Scheduler::running_index() const {
  RunningIndex index;
  for (const auto& [id, l] : jobs_) {
    if (l.rec.state != JobStatus::kRunning) continue;
    if (std::string s = slurm_job_of(l.rec.handle); !s.empty()) index.by_slurm[s] = id;
    for (const Slot& slot : l.placement.slots) {
      if (slot.gpu < 0) continue;
      std::vector<int64_t>& ids = index.by_node[cluster_.nodes[slot.node].name];
      if (ids.empty() || ids.back() != id) ids.push_back(id);  // once per node, ascending
    }
  }
  return index;
}

void Scheduler::fold_job_use(const std::vector<GpuTelemetry>& readings, double at,
                             const RunningIndex& index) {
  if (readings.empty()) return;
  const ProcessUse use = process_use(readings, index.by_slurm);
  std::map<GpuKey, double> util;
  std::map<GpuKey, int64_t> card_mib;
  for (const GpuTelemetry& g : readings) {
    if (g.utilization >= 0) util[{g.node, g.gpu}] = g.utilization;
    if (g.memory_total_mib > 0) card_mib[{g.node, g.gpu}] = g.memory_total_mib;
  }
  std::map<GpuKey, std::vector<CardTenant>> tenants_at;  // per shared card, made once
  const auto tenants = [&](const GpuKey& key,
                           const std::vector<int64_t>& ids) -> const std::vector<CardTenant>& {
    auto [it, fresh] = tenants_at.try_emplace(key);
    if (fresh) it->second = card_tenants(key, ids);
    return it->second;
  };
  for (const int64_t id : measurable(readings, index.by_node, use)) {
    const auto found = jobs_.find(id);
    if (found == jobs_.end() || found->second.rec.state != JobStatus::kRunning) continue;
    Live& l = found->second;
    std::vector<GpuKey> gpus;
    if (const auto it = use.gpus.find(id); it != use.gpus.end()) {
      int64_t memory = -1;
      for (const auto& [key, mib] : it->second) {
        gpus.push_back(key);
        if (mib >= 0) memory = std::max<int64_t>(memory, 0) + mib;
      }
      l.measured_gpus = gpus;
      l.gpu_memory_mib = memory;
    } else {
      for (const Slot& slot : l.placement.slots)
        if (slot.gpu >= 0) gpus.emplace_back(cluster_.nodes[slot.node].name, slot.gpu);
    }
    const std::optional<JobLoad> load = job_load(id, gpus, use, util, tenants);
    if (!load) continue;
    if (const auto c = card_mib.find(gpus.front()); c != card_mib.end())
      l.card_memory_mib = c->second;
    double own = load->own;
    // A fractional job (a guest too: its MPS limit) is measured on its share of the card,
    // which is what the ledger prices: busy 30 % of a card on a half share is 0.6.
    if (const int milli = l.placement.slots.empty() ? 0 : l.placement.slots.front().milli;
        milli > 0 && milli < kMilliPerGpu)
      own = std::min(1.0, own * kMilliPerGpu / static_cast<double>(milli));
    // Decisions see what the card does (a host's load is at most that: its guest is recalled
    // when the card as a whole passes sharing.return_above); a guest, its own part.
    note_measured(l, own, l.guest_of > 0 ? own : load->card, load->alone, at);
  }
}

std::vector<CardTenant> Scheduler::card_tenants(const std::pair<std::string, int>& key,
                                                const std::vector<int64_t>& ids) const {
  std::vector<CardTenant> out;
  for (const int64_t id : ids) {
    const auto it = jobs_.find(id);
    if (it == jobs_.end() || it->second.rec.state != JobStatus::kRunning) continue;
    CardTenant t;
    t.id = id;
    for (const Slot& slot : it->second.placement.slots)
      if (slot.gpu == key.second && cluster_.nodes[slot.node].name == key.first && slot.milli > 0)
        t.share = static_cast<double>(slot.milli) / kMilliPerGpu;
    for (const int64_t other : ids)
      if (const auto o = jobs_.find(other); o != jobs_.end() && o->second.guest_of == id)
        t.solo = it->second.solo_use;
    out.push_back(t);
  }
  return out;
}

void Scheduler::note_measured(Live& l, double own, double load, bool alone, double at) {
  l.last_utilization = own;
  l.measured_at = at;
  if (own >= config_.alerts.job_idle_below)
    l.idle_since = -1;
  else if (l.idle_since < 0)
    l.idle_since = at;
  // Folded into the job's running mean (the ledger prices the unused share as
  // idle_allocated waste).
  JobRecord& r = l.rec;
  const double k = static_cast<double>(r.utilization_samples);
  r.utilization = r.utilization < 0 ? own : (r.utilization * k + own) / (k + 1);
  ++r.utilization_samples;
  mark(l);
  // Into the engine (CycleView::job_use): over the sharing window (the last sampling period
  // without `sharing:`).
  double memory_frac = -1;
  const size_t cards = std::max<size_t>(
      1, l.measured_gpus.empty() ? l.placement.slots.size() : l.measured_gpus.size());
  if (l.gpu_memory_mib >= 0 && l.card_memory_mib > 0)
    memory_frac = static_cast<double>(l.gpu_memory_mib) /
                  static_cast<double>(l.card_memory_mib * static_cast<int64_t>(cards));
  const UseWindow::Rules rules = use_rules();
  l.use.add(rules, at, load, memory_frac);
  if (std::optional<MeasuredUse> u = l.use.summary(rules)) {
    if (alone) l.solo_use = u->utilization;
    u->at = engine_time(u->at);
    engine_->observe_job(l.idx, *u);
  }
  // A lender's new measure may lend a card or recall its guest: the Lend point runs in the
  // next cycle (one per turn at most, however many jobs were measured).
  const SharingConfig& sh = config_.sharing;
  if (sh.enabled && (l.spec->lend_idle || (sh.general_lends && l.spec->tier == Tier::kGeneral)))
    engine_dirty_ = true;
}

UseWindow::Rules Scheduler::use_rules() const {
  UseWindow::Rules r;
  r.period_s = config_.telemetry_period_s;
  r.span_s = config_.sharing.enabled ? config_.sharing.window_minutes * 60 : r.period_s;
  r.max_gap_s = std::max(60.0, 3 * r.period_s);
  return r;
}

void Scheduler::sample_telemetry(double now) {
  last_telemetry_ = now;
  telemetry_ = driver_->telemetry();
  // The local backend's node answers when the loop runs; other backends report per node.
  for (const NodeSpec& n : cluster_.nodes)
    if (cluster_.nodes.size() <= 16) node_seen_[n.name] = now;
  std::set<std::string> sampled;
  for (const GpuTelemetry& g : telemetry_) {
    node_seen_[g.node] = now;
    sampled.insert(g.node);
  }
  // Folding changes no job's state or placement: one index of the running jobs serves the
  // driver's readings and every report taken.
  const RunningIndex running = running_index();
  fold_job_use(telemetry_, now, running);
  // Agents' reports, for nodes the driver does not sample itself: each report once into
  // the jobs' measured use, each node's newest into the view.
  for (const NodeReport& r : pushed_->take()) {
    if (sampled.count(r.node)) continue;
    fold_job_use(r.gpus, r.time, running);
    double& seen = node_seen_[r.node];
    seen = std::max(seen, r.time);
  }
  host_load_.clear();
  for (NodeReport& r : pushed_->latest(now)) {
    if (sampled.count(r.node)) continue;
    host_load_[r.node] = r.host;
    for (GpuTelemetry& g : r.gpus) telemetry_.push_back(std::move(g));
  }

  std::vector<AlertBook::GpuView> gpus;
  const ClusterState& st = engine_->cluster();
  for (const GpuTelemetry& g : telemetry_) {
    AlertBook::GpuView v;
    v.node = g.node;
    v.gpu = g.gpu;
    v.utilization = g.utilization;
    v.memory_used_mib = g.memory_used_mib;
    v.memory_total_mib = g.memory_total_mib;
    if (const std::optional<NodeId> n = node_named(g.node); n && g.gpu < st.gpus(*n))
      v.allocated = st.free_milli(*n, g.gpu) < kMilliPerGpu;
    gpus.push_back(v);
  }
  std::vector<AlertBook::PendingView> pending;
  for (const auto& [id, l] : jobs_)
    if (!is_final(l.rec.state) && l.rec.state != JobStatus::kRunning && !l.rec.held &&
        l.rec.request.deadline > 0)
      pending.push_back({id, l.rec.team, l.rec.request.deadline, l.spec->runtime_estimate()});
  const BurnRates burn = burn_rates(now);
  spend_rate_ = burn.cluster_usd_h;
  alerts_.evaluate(now, gpus, node_seen_, pending, job_views(now), burn);
  observe_nodes(now);
  pause_turn(now);
  requeue_idle(now);
}

void Scheduler::requeue_idle(double now) {
  const double after_s = config_.alerts.job_idle_requeue_minutes * 60;
  // Only while others wait: requeued with nothing waiting, it would start again at once.
  // (Jobs the pause holds cannot take the GPUs.)
  if (!(after_s > 0) || engine_->pending_count() == engine_->held_count()) return;
  for (const AlertBook::JobView& v : job_views(now)) {
    Live& l = jobs_.at(v.job);
    if (v.idle_since < 0 || now - v.idle_since < after_s || l.draining || l.move_to ||
        l.rec.team == kExternalTeam)
      continue;
    const std::string why = fmt::format(
        "idle on all its GPUs for {:g} min (alerts.job_idle.requeue_after_minutes): requeued, "
        "held back {:g} s",
        config_.alerts.job_idle_requeue_minutes, config_.alerts.job_idle_requeue_hold_s);
    const double grace =
        l.rec.request.grace_s >= 0 ? l.rec.request.grace_s : config_.checkpoint_grace_s;
    if (engine_->checkpoint_requeue(l.idx, engine_time(now), grace, why,
                                    config_.alerts.job_idle_requeue_hold_s)) {
      engine_dirty_ = true;
      log_(fmt::format("job {}: {}", v.job, why));
    }
  }
}

std::vector<AlertBook::JobView> Scheduler::job_views(double now) const {
  // Measured within the last three samples (or a minute): a job no longer measured (its
  // node's agent went quiet) is not judged idle on old readings.
  const double fresh = std::max(60.0, 3 * config_.telemetry_period_s);
  std::vector<AlertBook::JobView> out;
  for (const auto& [id, l] : jobs_)
    if (l.rec.state == JobStatus::kRunning && l.measured_at >= 0 && now - l.measured_at <= fresh)
      out.push_back({id, l.rec.team, l.idle_since, l.last_utilization});
  return out;
}

std::future<ApiReply> Scheduler::insights(const Principal& who) {
  return enqueue([this, who] {
    const double now = wall_now();
    std::vector<SizedJob> uses;
    for (const auto& [id, l] : jobs_) {
      const JobRecord& r = l.rec;
      if (!who.may_access(r.team) || r.started_at < 0 || r.utilization < 0) continue;
      SizedJob u;
      u.team = r.team;
      u.key = r.request.name.empty() ? std::string(to_string(r.request.job_class)) : r.request.name;
      u.gpus = r.request.gpus * r.request.gpu_milli / 1000.0;
      u.utilization = r.utilization;
      u.run_s = std::max(0.0, (r.finished_at >= 0 ? r.finished_at : now) - r.started_at);
      u.memory_mib = l.gpu_memory_mib;
      u.card_memory_mib = l.card_memory_mib;
      uses.push_back(std::move(u));
    }
    nlohmann::json keys = nlohmann::json::array();
    for (const RightSizing& rs : right_sizing(uses)) keys.push_back(to_json(rs));
    ApiReply reply;
    reply.body = {{"rightsizing", std::move(keys)},
                  {"scope", fmt::format("jobs measured by telemetry and still held by the service "
                                        "(running, or ended within retain_jobs_s = {:g} s)",
                                        config_.retain_jobs_s)}};
    return reply;
  });
}

}  // namespace frugal
