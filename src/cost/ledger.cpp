#include "cost/ledger.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace frugal {
namespace {

constexpr double kMonthS = 30.0 * 86400.0;  // storage prices are per 30-day month

}  // namespace

Waste& Waste::operator+=(const Waste& o) {
  idle_allocated_usd += o.idle_allocated_usd;
  idle_unallocated_usd += o.idle_unallocated_usd;
  stranded_usd += o.stranded_usd;
  booting_usd += o.booting_usd;
  rework_usd += o.rework_usd;
  peak_premium_usd += o.peak_premium_usd;
  oversized_usd += o.oversized_usd;
  storage_tier_usd += o.storage_tier_usd;
  duplicate_storage_usd += o.duplicate_storage_usd;
  spot_reclaim_usd += o.spot_reclaim_usd;
  return *this;
}

double Waste::total() const {
  return idle_allocated_usd + idle_unallocated_usd + stranded_usd + rework_usd + peak_premium_usd +
         oversized_usd + storage_tier_usd + duplicate_storage_usd + spot_reclaim_usd;
}

CostAccount& CostAccount::operator+=(const CostAccount& o) {
  compute += o.compute;
  storage_usd += o.storage_usd;
  transfer_usd += o.transfer_usd;
  gpu_hours += o.gpu_hours;
  booting_gpu_hours += o.booting_gpu_hours;
  waste += o.waste;
  return *this;
}

Ledger::Ledger(const ClusterSpec& spec, const GpuCatalog& catalog, const ClusterState& state,
               GpuModelId reference_model, size_t jobs_hint)
    : spec_(spec),
      catalog_(catalog),
      state_(&state),
      reference_(reference_model),
      pricing_(spec, catalog, state),
      jobs_(jobs_hint),
      specs_(jobs_hint, nullptr),
      unattributed_by_region_(spec.regions.size()),
      unattributed_by_pool_(spec.pools.size()),
      centre_nodes_(state.centre_count(), 0),
      centre_region_(state.centre_count(), 0),
      open_(state.centre_count()),
      capacity_by_pool_(spec.pools.size()) {
  for (NodeId n = 0; n < spec.nodes.size(); ++n) {
    ++centre_nodes_[state.centre_of(n)];
  }
  for (uint32_t c = 0; c < state.centre_count(); ++c)
    centre_region_[c] = spec.pools[state.centre_pool(c)].region;
}

Ledger::JobAccount& Ledger::job_account(JobIdx j) {
  if (jobs_.size() <= j) {
    jobs_.resize(j + 1);
    specs_.resize(j + 1, nullptr);
  }
  return jobs_[j];
}

double Ledger::tier_price(const std::string& tier) const {
  const auto& tiers = spec_.storage_tiers.empty() ? default_tiers_ : spec_.storage_tiers;
  for (const StorageTier& t : tiers)
    if (t.name == tier) return t.usd_per_gb_month;
  return -1;
}

void Ledger::note_time(double t0, double t1) {
  if (!any_time_) {
    first_t_ = t0;
    last_t_ = t1;
    any_time_ = true;
  }
  first_t_ = std::min(first_t_, t0);
  last_t_ = std::max(last_t_, t1);
}

SpanCost Ledger::quote(const JobSpec& job, const Placement& p, double t0, double t1,
                       double utilization) const {
  const double u = utilization >= 0 ? utilization : job.utilization;
  SpanCost cost;
  if (!(t1 - t0 > 0)) return cost;
  // GPUs held per centre (a placement rarely spans more than one).
  uint32_t centres[4];
  double gpus[4];
  int used = 0;
  for (const Slot& s : p.slots) {
    if (s.gpu < 0) continue;
    const uint32_t c = state_->centre_of(s.node);
    const double g = static_cast<double>(s.milli) / kMilliPerGpu;
    int k = 0;
    while (k < used && centres[k] != c) ++k;
    if (k == used) {
      if (used == 4) {  // more centres than expected: price this slot alone
        cost += pricing_.span(c, g, u, t0, t1);
        continue;
      }
      centres[used] = c;
      gpus[used++] = 0;
    }
    gpus[k] += g;
  }
  for (int k = 0; k < used; ++k) cost += pricing_.span(centres[k], gpus[k], u, t0, t1);
  return cost;
}

void Ledger::segment(JobIdx j, const JobSpec& job, const Placement& p, double t0, double t1,
                     double kept_s, double utilization, bool reclaimed) {
  JobAccount& ja = job_account(j);
  specs_[j] = &job;
  const double u = utilization >= 0 ? utilization : job.utilization;
  const double ran = t1 - t0;
  if (!(ran > 0)) return;
  note_time(t0, t1);
  const SpanCost cost = quote(job, p, t0, t1, u);
  double total_gpus = 0;
  for (const Slot& s : p.slots)
    if (s.gpu >= 0) total_gpus += static_cast<double>(s.milli) / kMilliPerGpu;
  if (!ja.placed && !p.slots.empty()) {  // CPU-only jobs too: they keep storage
    ja.placed = true;
    const auto gpu_slot =
        std::find_if(p.slots.begin(), p.slots.end(), [](const Slot& s) { return s.gpu >= 0; });
    ja.centre =
        state_->centre_of(gpu_slot != p.slots.end() ? gpu_slot->node : p.slots.front().node);
    ja.region = pricing_.region_of_centre(ja.centre);
  }
  ja.account.compute += cost;
  ja.account.gpu_hours += total_gpus * ran / 3600.0;
  ja.account.waste.idle_allocated_usd += cost.rental_usd * (1.0 - u);
  const double lost = std::clamp(ran - kept_s, 0.0, ran);
  (reclaimed ? ja.account.waste.spot_reclaim_usd : ja.account.waste.rework_usd) +=
      cost.total_usd() * lost / ran;
}

void Ledger::guest_segment(JobIdx g, const JobSpec& guest, JobIdx host, const JobSpec& host_job,
                           const Placement& p, double t0, double t1, double kept_s,
                           double utilization) {
  job_account(std::max(g, host));  // both exist before either is referenced
  const CostAccount before = jobs_[g].account;
  segment(g, guest, p, t0, t1, kept_s, utilization);
  const CostAccount& after = jobs_[g].account;
  SpanCost moved = after.compute;
  moved += before.compute.scaled(-1);
  JobAccount& h = jobs_[host];
  specs_[host] = &host_job;
  h.account.compute += moved.scaled(-1);
  h.account.gpu_hours -= after.gpu_hours - before.gpu_hours;
  h.account.waste.idle_allocated_usd -= moved.rental_usd;
}

void Ledger::transfer(JobIdx j, const JobSpec& job, double usd) {
  JobAccount& ja = job_account(j);
  specs_[j] = &job;
  if (usd > 0) ja.account.transfer_usd += usd;
}

void Ledger::rebind(const ClusterState& state) {
  state_ = &state;
  for (IdleStretch& o : open_) o.version = kStaleVersion;  // recount at the next capacity()
}

void Ledger::capacity(double t0, double t1, int fragmentation_block,
                      const std::vector<int64_t>& provisioned_gpus,
                      const std::vector<int64_t>& booting_gpus,
                      const std::vector<int64_t>& provisioned_nodes) {
  if (!(t1 > t0)) return;
  note_time(t0, t1);
  capacity_end_ = t1;
  const double hours = (t1 - t0) / 3600.0;
  for (uint32_t c = 0; c < state_->centre_count(); ++c) {
    PoolCapacity& pc = capacity_by_pool_[state_->centre_pool(c)];
    pc.gpu_hours += static_cast<double>(provisioned_gpus[c]) * hours;
    if (c < booting_gpus.size())
      pc.booting_gpu_hours += static_cast<double>(booting_gpus[c]) * hours;
    if (c < provisioned_nodes.size())
      pc.node_hours += static_cast<double>(provisioned_nodes[c]) * hours;
  }
  const bool fragmented =
      fragmentation_block > 0 && fragmentation_block <= state_->free_whole_total();
  // Idle capacity is priced per constant stretch, not per step: a centre's open stretch
  // is closed (priced) only when its idle or stranded GPU count changes.
  const int block = fragmented ? fragmentation_block : 0;
  for (uint32_t c = 0; c < state_->centre_count(); ++c) {
    IdleStretch& o = open_[c];
    const int64_t boot = c < booting_gpus.size() ? booting_gpus[c] : 0;
    // Nothing that decides this centre's idle, stranded or booting count moved: the stretch
    // goes on.
    if (o.open && o.version == state_->centre_version(c) && o.block == block &&
        o.provisioned == provisioned_gpus[c] && o.booting_gpus == boot)
      continue;
    double idle = 0, stranded = 0, booting = 0;
    if (state_->centre_model(c) == kNoGpuModel) {
      idle = static_cast<double>(centre_nodes_[c]);  // CPU-only nodes: host power only
    } else {
      const double alloc = static_cast<double>(state_->centre_allocated_milli(c)) / kMilliPerGpu;
      idle = std::max(0.0, static_cast<double>(provisioned_gpus[c]) - alloc);
      booting = std::min(idle, static_cast<double>(boot));
      if (fragmented && idle > booting)
        stranded = std::min(idle - booting,
                            static_cast<double>(state_->centre_free_below(c, fragmentation_block)));
    }
    const bool same = o.open && o.idle == idle && o.stranded == stranded && o.booting == booting;
    if (o.open && !same)
      price_stretch(c, o, t0, unattributed_, unattributed_by_region_, unattributed_by_pool_);
    if (!same) o = IdleStretch{true, t0, idle, stranded, booting};
    o.version = state_->centre_version(c);
    o.block = block;
    o.provisioned = provisioned_gpus[c];
    o.booting_gpus = boot;
  }
}

void Ledger::price_stretch(uint32_t c, const IdleStretch& o, double until, CostAccount& total,
                           std::vector<CostAccount>& by_region,
                           std::vector<CostAccount>& by_pool) const {
  if (!o.open || o.idle <= 0 || !(until > o.since)) return;
  CostAccount add;
  add.compute = pricing_.span(c, o.idle, 0, o.since, until);
  const double total_usd = add.compute.total_usd();
  if (state_->centre_model(c) == kNoGpuModel) {
    add.waste.idle_unallocated_usd = total_usd;
  } else {
    add.gpu_hours = o.idle * (until - o.since) / 3600.0;
    add.booting_gpu_hours = o.booting * (until - o.since) / 3600.0;
    add.waste.stranded_usd = total_usd * o.stranded / o.idle;
    add.waste.idle_unallocated_usd = total_usd - add.waste.stranded_usd;
    add.waste.booting_usd = total_usd * o.booting / o.idle;  // within idle_unallocated
  }
  total += add;
  by_region[centre_region_[c]] += add;
  by_pool[state_->centre_pool(c)] += add;
}

void Ledger::job_ended(JobIdx j, const JobSpec& job, double first_start, double finish,
                       double run_time, double utilization) {
  JobAccount& ja = job_account(j);
  specs_[j] = &job;
  if (!ja.placed || first_start < 0) return;
  const double u = utilization >= 0 ? utilization : job.utilization;
  charge_storage(j, ja, job, first_start, finish, run_time);
  charge_peak_premium(ja, job, u, first_start, run_time);
  charge_oversized(ja, job);
}

// Storage, kept from submission to the end; data on the priciest tier while the job only
// waited could sit one tier lower.
void Ledger::charge_storage(JobIdx j, JobAccount& ja, const JobSpec& job, double first_start,
                            double finish, double run_time) {
  const double checkpoints_usd = lifecycle_checkpoint_usd(job, first_start, finish, run_time);
  if (checkpoints_usd > 0) ja.account.storage_usd += checkpoints_usd;
  const double size = job.dataset_gb + (checkpoints_usd >= 0 ? 0.0 : job.checkpoint_gb);
  const double price = tier_price(job.storage_tier);
  if (!(size > 0 && price > 0 && finish > job.submit)) return;
  const double life = finish - job.submit;
  ja.account.storage_usd += size * price * life / kMonthS;
  double cheaper = -1;
  bool priciest = true;
  const auto& tiers = spec_.storage_tiers.empty() ? default_tiers_ : spec_.storage_tiers;
  for (const StorageTier& t : tiers) {
    if (t.usd_per_gb_month > price) priciest = false;
    if (t.usd_per_gb_month < price && t.usd_per_gb_month > cheaper) cheaper = t.usd_per_gb_month;
  }
  const double queued = std::max(0.0, life - run_time);
  if (priciest && cheaper >= 0)
    ja.account.waste.storage_tier_usd += size * (price - cheaper) * queued / kMonthS;
  if (!job.dataset.empty() && job.dataset_gb > 0)
    datasets_[job.dataset].push_back({job.submit, finish, job.dataset_gb * price / kMonthS, j});
}

bool Ledger::set_checkpoint_lifecycle(const storage::LifecyclePolicies& policies) {
  auto prices = storage::tier_prices(spec_.storage_tiers);
  if (!prices.ok()) return false;
  lifecycle_prices_ = prices.value();
  lifecycle_ = policies;
  return true;
}

double Ledger::lifecycle_checkpoint_usd(const JobSpec& job, double first_start, double finish,
                                        double run_time) const {
  if (!lifecycle_ || !(job.checkpoint_gb > 0 && job.checkpoint_interval > 0)) return -1;
  if (!(first_start >= 0 && finish > first_start)) return -1;
  storage::CheckpointSeries s;
  s.job = job.id;
  s.team = job.team;
  s.start = first_start;
  s.run_s = std::min(run_time, finish - first_start);
  s.interval_s = job.checkpoint_interval;
  s.gb = job.checkpoint_gb;
  storage::StorageSimOptions o;
  o.until = finish;
  o.sweep_s = lifecycle_->sweep_s;
  const storage::LifecyclePolicies& p = *lifecycle_;
  auto policy_for = [&](const std::string& team) -> const storage::LifecyclePolicy& {
    return p.for_team(team);
  };
  auto r = storage::simulate_checkpoint_storage({s}, policy_for, lifecycle_prices_, o);
  return r.ok() ? r.value().total_usd() : -1;
}

// Peak premium: the same contiguous run at the cheapest start the deadline allowed.
void Ledger::charge_peak_premium(JobAccount& ja, const JobSpec& job, double u, double first_start,
                                 double run_time) const {
  const double gpus = static_cast<double>(job.total_milli()) / kMilliPerGpu;
  if (!((job.deadline != kNever || job.deferrable) && run_time > 0 && gpus > 0)) return;
  const double latest = job.deadline != kNever ? job.deadline - run_time : job.submit + 86400;
  if (latest < job.submit) return;
  auto cost_at = [&](double s) {
    return pricing_.span(ja.centre, gpus, u, s, s + run_time).total_usd();
  };
  const double actual = cost_at(first_start);
  double best = actual;
  const double step = std::max(3600.0, (latest - job.submit) / 336.0);  // ≤ 337 probes
  for (double s = job.submit; s < latest; s += step) best = std::min(best, cost_at(s));
  best = std::min(best, cost_at(latest));
  ja.account.waste.peak_premium_usd += std::max(0.0, actual - best);
}

// Oversized: auxiliary work priced against the cheapest model per unit of its work.
void Ledger::charge_oversized(JobAccount& ja, const JobSpec& job) const {
  const double gpus = static_cast<double>(job.total_milli()) / kMilliPerGpu;
  if (job.job_class == JobClass::kPretrain || !(gpus > 0) || !(job.duration > 0)) return;
  double best = -1;
  for (GpuModelId m : state_->models()) {
    if (!job.allowed_models.empty() &&
        std::find(job.allowed_models.begin(), job.allowed_models.end(), m) ==
            job.allowed_models.end())
      continue;
    const double rate = pricing_.cheapest_rate(m);
    if (rate < 0) continue;
    const double speed = catalog_.relative_speed(m, reference_, job.job_class);
    const double alt = gpus * job.duration / speed / 3600.0 * rate;
    if (best < 0 || alt < best) best = alt;
  }
  const double rental = ja.account.compute.rental_usd;
  if (best >= 0 && rental > best) ja.account.waste.oversized_usd += rental - best;
}

double Ledger::job_total_usd(JobIdx j) const {
  return j < jobs_.size() ? jobs_[j].account.total_usd() : 0.0;
}

double Ledger::job_waste_usd(JobIdx j) const {
  return j < jobs_.size() ? jobs_[j].account.waste.total() : 0.0;
}

SpanCost Ledger::job_compute(JobIdx j) const {
  return j < jobs_.size() ? jobs_[j].account.compute : SpanCost{};
}

int64_t Ledger::job_centre(JobIdx j) const {
  return j < jobs_.size() && jobs_[j].placed ? static_cast<int64_t>(jobs_[j].centre) : -1;
}

// Duplicate storage: per dataset, what its jobs paid beyond one copy kept over the union of
// their lifetimes, charged to every job but the first holder in proportion to its cost.
std::vector<double> Ledger::duplicate_storage() const {
  std::vector<double> duplicate(jobs_.size(), 0.0);
  for (const auto& [name, uses_in] : datasets_) {
    if (uses_in.size() < 2) continue;
    std::vector<DatasetUse> uses = uses_in;
    std::sort(uses.begin(), uses.end(), [](const DatasetUse& a, const DatasetUse& b) {
      return a.t0 != b.t0 ? a.t0 < b.t0 : a.job < b.job;
    });
    double paid = 0, rate = 0, union_s = 0, cur0 = uses[0].t0, cur1 = uses[0].t1;
    for (const DatasetUse& u : uses) {
      paid += (u.t1 - u.t0) * u.usd_per_s;
      rate = std::max(rate, u.usd_per_s);
      if (u.t0 > cur1) {
        union_s += cur1 - cur0;
        cur0 = u.t0;
        cur1 = u.t1;
      } else {
        cur1 = std::max(cur1, u.t1);
      }
    }
    union_s += cur1 - cur0;
    const double waste = std::max(0.0, paid - union_s * rate);
    double others = 0;
    for (size_t i = 1; i < uses.size(); ++i)
      others += (uses[i].t1 - uses[i].t0) * uses[i].usd_per_s;
    if (others <= 0) continue;
    for (size_t i = 1; i < uses.size(); ++i)
      duplicate[uses[i].job] += waste * (uses[i].t1 - uses[i].t0) * uses[i].usd_per_s / others;
  }
  return duplicate;
}

LedgerReport Ledger::report() const {
  LedgerReport r;
  r.spot = spec_.has_spot();
  const std::vector<double> duplicate = duplicate_storage();
  // Fold by index first (no string work per job), then name the groups.
  std::map<std::string_view, CostAccount> by_team;
  std::array<CostAccount, kJobClassCount> by_class;
  std::array<bool, kJobClassCount> class_seen{};
  std::vector<CostAccount> by_region(spec_.regions.size());
  std::vector<char> region_seen(spec_.regions.size(), 0);
  const std::string* last_team = nullptr;
  CostAccount* team_account = nullptr;
  for (JobIdx j = 0; j < jobs_.size(); ++j) {
    if (!specs_[j]) continue;
    CostAccount a = jobs_[j].account;
    a.waste.duplicate_storage_usd += duplicate[j];
    if (last_team == nullptr || *last_team != specs_[j]->team) {
      last_team = &specs_[j]->team;
      team_account = &by_team[*last_team];
    }
    *team_account += a;
    const int cls = static_cast<int>(specs_[j]->job_class);
    by_class[cls] += a;
    class_seen[cls] = true;
    if (jobs_[j].placed) {
      by_region[jobs_[j].region] += a;
      region_seen[jobs_[j].region] = 1;
    }
    r.total += a;
    if (specs_[j]->deferrable) {
      ++r.deferrable.jobs;
      r.deferrable.energy_usd += a.compute.energy_usd;
      r.deferrable.energy_kwh += a.compute.energy_kwh;
      r.deferrable.cost_usd += a.compute.total_usd();
    }
  }
  for (const auto& [team, a] : by_team) r.by_team.emplace(std::string(team), a);
  for (int c = 0; c < kJobClassCount; ++c)
    if (class_seen[c]) r.by_class[std::string(kJobClassNames[c])] = by_class[c];
  for (size_t i = 0; i < by_region.size(); ++i)
    if (region_seen[i]) r.by_region[spec_.regions[i].name] += by_region[i];
  CostAccount unattributed = unattributed_;
  std::vector<CostAccount> unattributed_by_region = unattributed_by_region_;
  std::vector<CostAccount> unattributed_by_pool = unattributed_by_pool_;
  for (uint32_t c = 0; c < open_.size(); ++c)
    price_stretch(c, open_[c], capacity_end_, unattributed, unattributed_by_region,
                  unattributed_by_pool);
  for (size_t i = 0; i < spec_.pools.size(); ++i)
    if (unattributed_by_pool[i].total_usd() != 0 || unattributed_by_pool[i].gpu_hours > 0)
      r.unattributed_by_pool[spec_.pools[i].name] += unattributed_by_pool[i];
  for (size_t i = 0; i < spec_.pools.size(); ++i)
    if (capacity_by_pool_[i].gpu_hours > 0 || capacity_by_pool_[i].node_hours > 0)
      r.capacity_by_pool[spec_.pools[i].name] = capacity_by_pool_[i];
  r.unattributed = unattributed;
  r.total += unattributed;
  for (size_t i = 0; i < spec_.regions.size(); ++i)
    if (unattributed_by_region[i].total_usd() != 0 || unattributed_by_region[i].gpu_hours > 0)
      r.by_region[spec_.regions[i].name] += unattributed_by_region[i];
  r.series_wrapped = any_time_ && pricing_.wrapped(first_t_, last_t_);
  return r;
}

}  // namespace frugal
