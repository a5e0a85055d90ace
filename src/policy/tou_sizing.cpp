// Time-of-use elastic sizing (the elastic cycle plugin's option tou, profile +tou): the rules
// for sizing elastic jobs on on-demand capacity by the hour's rental price (tou_sizing.h).
//
// A region with a time-of-use schedule (Region::time_of_use, discount d) rents on-demand
// GPUs at p = (1 − d) × list in its off-peak hours. An elastic job on n GPUs runs n^alpha as
// fast as on one (EngineOptions::elastic_alpha), so more GPUs cost more per unit of work
// (2^0.2 = 15 % more per doubling at alpha 0.8) — less than the discount when d = 0.4. So
// work is moved into the cheap hours: a job grows there and holds less outside them.
//
// Growth (tou_growth_pays). A running job on n GPUs, every one of them on demand in one
// region that is off-peak now, may grow to n' GPUs of its model on new on-demand GPUs of that
// region (usable after a boot of b seconds) when that costs less than staying at n:
//
//   with T = its remaining run at n after the boot (from its runtime estimate), N = off-peak
//   time left after the boot, s = (n'/n)^alpha, c = the resize cost,
//   C0 (stay at n)  = n·p·min(T, N) + n·max(0, T − N)
//   C1 (grow to n') = n'·p·(T/s + c) + (n'−n)·p·b                   if T/s + c <= N
//                   = n'·p·N + (n'−n)·p·b + n·(T − s·(N − c) + c)   otherwise (back to n
//                                                                     when the window ends)
//   grow to the largest n' with C1 < C0 (both in list-rate GPU-seconds; later off-peak hours
//   are ignored, which makes the rule conservative for jobs that run past the next night).
//
// A job that would end within the window anyway never pays (C1 = C0 · (n'/n)^(1−alpha) +
// boot). Work displaced from reserved or owned GPUs saves nothing (paid whatever happens), so
// only jobs wholly on demand take part. The autoscaler is asked for the growth in whole
// nodes (tou_growth_demand); the elastic plugin's growth makes it when the nodes are up, onto nodes
// the job fills (ElasticSizing::grown_elsewhere).
//
// A job held below its request for the day (below) goes back to its request at night
// whatever the cost; growth beyond that is judged from the request.
//
// Outside off-peak hours (tou_peak_size): a job that at its request would still run when its
// region's next off-peak hours start holds at most its minimum on on-demand nodes there, when
// that does not delay it — held at its minimum until then, at its request (or its maximum,
// when that growth would pay then) from a boot after the start through those hours, and at
// its request after them, it ends no later than at its request all along; otherwise, and for
// any other job, at most its request. It starts at that size (tou_start_size: whole nodes on
// the model its request was placed on, so a job that would hand a node back at once does not
// take it; the autoscaler asks for that size too), growth back stops at it, and when off-peak
// hours end a job above it gives back every on-demand node it alone occupies (tou_shrink,
// kResize; the emptied node is released like any idle node).
//
// Without autoscaling (EngineOptions::static_capacity, and so the live service) on-demand
// nodes stay provisioned and paid whether used or not: a node given back saves nothing and
// growth onto it is paid anyway (ElasticSizing::grown_elsewhere). So none of the peak rules apply
// there — tou_peak_size is the request and tou_shrink gives nothing back. (Applying them made
// tou_shrink and elastic_grow undo each other forever: EXPERIMENTS.md, round 9.)

#include "policy/tou_sizing.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace frugal {
namespace {

constexpr int kScanHours = 8 * 24;  // how far ahead off-peak boundaries are looked for

// The growth rule of the header, C1 < C0: from n0 to n1 GPUs with T wall seconds left at n0
// and N off-peak seconds left (both after the boot of b seconds), off-peak price factor p,
// resize cost c, speed-up exponent alpha.
bool growth_cheaper(double n0, double n1, double T, double N, double b, double p, double c,
                    double alpha) {
  if (!(N > 0) || !(T > 0) || !(n1 > n0)) return false;
  const double s = std::pow(n1 / n0, alpha);
  const double stay = n0 * p * std::min(T, N) + n0 * std::max(0.0, T - N);
  const double boot = (n1 - n0) * p * b;
  const double grow =
      T / s + c <= N ? n1 * p * (T / s + c) + boot : n1 * p * N + boot + n0 * (T - s * (N - c) + c);
  return grow < stay;
}

}  // namespace

bool tou_cheap(const CycleOps& ops, uint32_t region, Seconds t) {
  const Region& r = ops.cluster().spec().regions[region];
  if (!(r.time_of_use.discount > 0) || r.offpeak.empty()) return false;
  return r.offpeak.at(static_cast<double>(ops.cluster().spec().epoch_unix_s) + t) > 0.5;
}

Seconds tou_next_hour(const CycleOps& ops, uint32_t region, Seconds t, bool cheap) {
  const double epoch = static_cast<double>(ops.cluster().spec().epoch_unix_s);
  double hour = std::floor((epoch + t) / 3600.0 + 1.0) * 3600.0;  // next whole UTC hour
  for (int i = 0; i < kScanHours; ++i, hour += 3600.0)
    if (tou_cheap(ops, region, hour - epoch) == cheap) return hour - epoch;
  return kNever;
}

Seconds tou_cheap_until(const CycleOps& ops, uint32_t region, Seconds t) {
  return tou_cheap(ops, region, t) ? tou_next_hour(ops, region, t, false) : t;
}

Seconds tou_next_start(const CycleOps& ops, uint32_t region, Seconds t) {
  return tou_next_hour(ops, region, t, true);
}

Seconds tou_next_boundary(const CycleOps& ops, Seconds now) {
  const ClusterSpec& spec = ops.cluster().spec();
  Seconds best = kNever;
  for (uint32_t reg = 0; reg < spec.regions.size(); ++reg) {
    const Region& r = spec.regions[reg];
    if (!(r.time_of_use.discount > 0) || r.offpeak.empty()) continue;
    bool has_on_demand = false;
    for (const Pool& p : spec.pools)
      has_on_demand |= p.region == reg && p.capacity == Capacity::kOnDemand;
    if (has_on_demand)
      best = std::min(best, tou_next_hour(ops, reg, now, !tou_cheap(ops, reg, now)));
  }
  return best;
}

bool tou_growth_pays(const CycleOps& ops, const JobRuntime& r, int n, Seconds now, Seconds boot_s) {
  if (!r.elastic() || r.signalled() || n <= r.size || n > r.spec->max_gpus || r.size <= 0)
    return false;
  const ClusterSpec& spec = ops.cluster().spec();
  const std::vector<NodeId> held = r.placement.nodes();
  if (held.empty()) return false;
  const uint32_t region = spec.region_of(spec.nodes[held.front()]);
  for (NodeId k : held)
    if (!ops.capacity().on_demand(k) || spec.region_of(spec.nodes[k]) != region) return false;
  if (!tou_cheap(ops, region, now)) return false;
  // A job held below its request for the day goes back to it at night, whatever the cost;
  // growth beyond is judged from there.
  const int base = std::max(r.size, r.spec->gpus);
  if (n <= base) return true;
  const double b = std::max(0.0, boot_s);
  const double at_base =
      ops.speed(*r.spec, r.placement.model) *
      std::pow(static_cast<double>(base) / r.spec->gpus, ops.options().elastic_alpha);
  const double T = left_work(r, now) / at_base - b;
  const double N = tou_cheap_until(ops, region, now) - now - b;
  return growth_cheaper(base, n, T, N, b, 1.0 - spec.regions[region].time_of_use.discount,
                        ops.options().resize_cost_s, ops.options().elastic_alpha);
}

double left_work(const JobRuntime& r, Seconds now) {
  return std::max(0.0, r.spec->runtime_estimate() - r.work_done(now));
}

int tou_peak_size(const CycleOps& ops, const JobRuntime& r, Seconds now) {
  if (r.placement.empty()) return r.spec->gpus;
  const ClusterSpec& spec = ops.cluster().spec();
  // The end it would reach at its request from here: the same answer at any current size.
  return tou_peak_size(ops, r, spec.region_of(spec.nodes[r.placement.slots.front().node]),
                       now + left_work(r, now) / ops.speed(*r.spec, r.placement.model), now);
}

int tou_peak_size(const CycleOps& ops, const JobRuntime& r, uint32_t home, Seconds end,
                  Seconds now) {
  // Down to its minimum when it will still run when its region's next off-peak hours start
  // (it grows again then) and that does not delay it: at its minimum until then, at its
  // maximum (after a boot and a restart) through those hours and at its request after them,
  // it ends no later than at its request all along. Else down to its request.
  if (!ops.capacity().autoscaled() ||
      !(ops.cluster().spec().regions[home].time_of_use.discount > 0) || tou_cheap(ops, home, now))
    return r.spec->gpus;
  const Seconds start = tou_next_start(ops, home, now);
  if (!(end > start)) return r.spec->gpus;
  const GpuModelId m = r.placement.empty() ? kNoGpuModel : r.placement.model;
  const double boot = m >= 0 && ops.on_demand_shape().delay[static_cast<size_t>(m)] < kNever
                          ? ops.on_demand_shape().delay[static_cast<size_t>(m)]
                          : 0.0;
  const double c = ops.options().resize_cost_s, left = end - now;  // at its request
  const double lo =
      std::pow(static_cast<double>(r.min_size()) / r.spec->gpus, ops.options().elastic_alpha);
  const double hi =
      std::pow(static_cast<double>(r.spec->max_gpus) / r.spec->gpus, ops.options().elastic_alpha);
  const double up = start + boot + c;  // grown from here
  const double low = (start + boot - now) * lo;
  Seconds finish;
  if (low >= left) {
    finish = now + left / lo;
  } else {
    // At night it grows back to its request, and to its maximum when that pays then.
    const Seconds until = tou_cheap_until(ops, home, start);
    const double p = 1.0 - ops.cluster().spec().regions[home].time_of_use.discount;
    const double night =
        growth_cheaper(r.spec->gpus, r.spec->max_gpus, left - low - boot, until - start - boot,
                       boot, p, c, ops.options().elastic_alpha)
            ? hi
            : 1.0;
    const double high = std::max(0.0, until - up) * night;
    finish = low + high >= left ? up + (left - low) / night : until + c + (left - low - high);
  }
  return finish <= end ? r.min_size() : r.spec->gpus;
}

int tou_start_size(const CycleOps& ops, const JobRuntime& r, GpuModelId m, uint32_t home,
                   Seconds now) {
  const int per_node = m >= 0 ? ops.on_demand_shape().node_gpus[static_cast<size_t>(m)] : 0;
  if (per_node <= 0) return r.spec->gpus;
  const double left = std::max(0.0, r.spec->runtime_estimate() - r.progress_ref_s);
  const int cap = tou_peak_size(ops, r, home, now + left / ops.speed(*r.spec, m), now);
  // Whole nodes only: the most GPUs on as many nodes as `cap` needs.
  return std::min(r.spec->gpus, (cap + per_node - 1) / per_node * per_node);
}

std::vector<double> tou_growth_demand(const CycleOps& ops, Seconds now) {
  std::vector<double> demand(ops.catalog().size(), 0.0);
  for (const QueueKey& k : ops.running()) {
    const JobRuntime& r = ops.job(k.job);
    const GpuModelId m = r.placement.model;
    if (!r.elastic() || m < 0 || r.size >= r.spec->max_gpus) continue;
    const int per_node = ops.on_demand_shape().node_gpus[static_cast<size_t>(m)];
    if (per_node <= 0) continue;
    // The largest growth in whole nodes that pays, within what the pool can still add.
    const int64_t room =
        std::min<int64_t>(r.spec->max_gpus - r.size,
                          ops.capacity().unprovisioned_gpus(m) + ops.cluster().free_whole_of(m));
    for (int add = static_cast<int>(room / per_node * per_node); add > 0; add -= per_node) {
      if (tou_growth_pays(ops, r, r.size + add, now,
                          ops.on_demand_shape().delay[static_cast<size_t>(m)])) {
        demand[static_cast<size_t>(m)] += add;
        break;
      }
    }
  }
  for (size_t m = 0; m < demand.size(); ++m)
    if (demand[m] > 0)
      demand[m] = std::max(
          0.0,
          demand[m] - static_cast<double>(ops.cluster().free_whole_of(static_cast<GpuModelId>(m))));
  return demand;
}

void tou_shrink(CycleOps& ops, Seconds now) {
  if (ops.running_elastic() == 0 || !ops.capacity().autoscaled()) return;  // nothing saved (header)
  const ClusterSpec& spec = ops.cluster().spec();
  std::vector<JobIdx> cands;
  for (const QueueKey& k : ops.running()) {
    const JobRuntime& r = ops.job(k.job);
    if (r.elastic() && !r.signalled() && r.size > r.min_size()) cands.push_back(k.job);
  }
  for (JobIdx j : cands) {
    const JobRuntime& r = ops.job(j);
    // Not worth a restart for the last few minutes of a run.
    if (r.expected_end(now) - now < 10 * ops.options().resize_cost_s) continue;
    const int target = tou_peak_size(ops, r, now);
    if (r.size <= target) continue;
    Placement smaller;
    smaller.model = r.placement.model;
    int keep = r.size;
    std::vector<NodeId> dropped;
    for (NodeId n : r.placement.nodes()) {
      const uint32_t region = spec.region_of(spec.nodes[n]);
      if (!ops.capacity().on_demand(n) || !(spec.regions[region].time_of_use.discount > 0) ||
          tou_cheap(ops, region, now) || ops.jobs_on(n).size() != 1)
        continue;
      int on_node = 0;
      for (const Slot& s : r.placement.slots) on_node += s.node == n ? 1 : 0;
      if (keep - on_node < target || on_node == keep) continue;
      keep -= on_node;
      dropped.push_back(n);
    }
    if (dropped.empty()) continue;
    for (const Slot& s : r.placement.slots)
      if (std::find(dropped.begin(), dropped.end(), s.node) == dropped.end())
        smaller.slots.push_back(s);
    (void)ops.move(
        j, std::move(smaller), Decision::Kind::kResize, ops.options().resize_cost_s,
        fmt::format("off-peak hours over: gives back {} on-demand node(s)", dropped.size()));
  }
}

}  // namespace frugal
