#include "policy/lend_idle.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace frugal {
namespace {

// A card a host lends now.
struct Offer {
  JobIdx host = 0;
  Slot slot;           // the card, with the share a guest gets
  double memory = 0;   // the host's peak memory share of the card
  double busy = 0;     // the host's peak utilisation
  Seconds window = 0;  // what it was measured over
};

class LendIdle final : public CyclePlugin {
 public:
  explicit LendIdle(LendOptions o) : o_(o) {}
  std::string name() const override { return "lend"; }

  void lend(CycleOps& ops) override {
    recall(ops);
    std::vector<JobIdx> waiting = opportunistic(ops);
    if (waiting.empty()) return;
    std::vector<Offer> offers = this->offers(ops);
    // The largest share first (ties: node, GPU).
    std::sort(offers.begin(), offers.end(), [](const Offer& a, const Offer& b) {
      if (a.slot.milli != b.slot.milli) return a.slot.milli > b.slot.milli;
      return std::pair(a.slot.node, a.slot.gpu) < std::pair(b.slot.node, b.slot.gpu);
    });
    for (const JobIdx j : waiting) {
      const JobSpec& s = *ops.job(j).spec;
      for (Offer& offer : offers) {
        if (offer.slot.milli == 0 || !fits(ops, s, offer)) continue;
        const JobSpec& h = *ops.job(offer.host).spec;
        const std::string why = fmt::format(
            "guest on GPU {} of job {}: measured at most {:.0f} % busy over {:g} min (MPS limit "
            "{} %)",
            offer.slot.gpu, h.id, offer.busy * 100, offer.window / 60, offer.slot.milli / 10);
        if (ops.start_guest(j, offer.host, offer.slot, why).ok()) {
          offer.slot.milli = 0;  // taken
          break;
        }
      }
    }
  }

 private:
  void recall(CycleOps& ops) const {
    std::vector<std::pair<JobIdx, std::string>> out;
    for (const auto& [g, host] : ops.guests()) {
      const MeasuredUse* u = ops.job_use(host);
      const Slot& s = ops.job(g).placement.slots.front();
      const NodeReading* r = ops.node_reading(s.node);
      const double card_memory = r && static_cast<size_t>(s.gpu) < r->gpus.size()
                                     ? r->gpus[static_cast<size_t>(s.gpu)].memory_frac
                                     : -1;
      if (u && u->latest > o_.return_above)
        out.emplace_back(g, fmt::format("host job {} needs its GPU back ({:.0f} % busy)",
                                        ops.job(host).spec->id, u->latest * 100));
      else if (card_memory > o_.memory_below)
        out.emplace_back(g, fmt::format("GPU {} of node {} near its memory limit ({:.0f} % used)",
                                        s.gpu, s.node, card_memory * 100));
    }
    for (auto& [g, why] : out) ops.recall_guest(g, std::move(why));
  }

  // Queued opportunistic jobs among the first `examined`, in queue order.
  std::vector<JobIdx> opportunistic(const CycleOps& ops) const {
    std::vector<JobIdx> out;
    size_t seen = 0;
    for (auto it = ops.pending().begin(); it != ops.pending().end() && seen < o_.examined;
         ++it, ++seen) {
      const JobSpec& s = *ops.job(it->job).spec;
      if (s.opportunistic && s.gpus == 1 && !s.pinned &&
          (s.fractional() || s.tier == Tier::kGeneral))
        out.push_back(it->job);
    }
    return out;
  }

  bool lends(const JobSpec& s) const {
    return s.lend_idle || (o_.general_lends && s.tier == Tier::kGeneral);
  }

  std::vector<Offer> offers(const CycleOps& ops) const {
    std::vector<Offer> out;
    std::vector<std::pair<NodeId, int>> taken;
    for (const auto& [g, host] : ops.guests()) {
      const Slot& s = ops.job(g).placement.slots.front();
      taken.emplace_back(s.node, s.gpu);
    }
    for (const QueueKey& k : ops.running()) {
      const JobRuntime& r = ops.job(k.job);
      if (!lends(*r.spec) || r.signalled()) continue;
      const MeasuredUse* u = ops.job_use(k.job);
      if (!u || u->window < o_.window_s || u->peak < 0 || u->peak >= o_.lend_below ||
          u->memory_frac < 0 || u->memory_frac >= o_.memory_below)
        continue;
      const double headroom = 1 - u->peak;
      if (headroom < o_.min_headroom) continue;
      const Milli share = static_cast<Milli>(std::floor(headroom * 100 + 1e-9) * 10);
      for (const Slot& s : r.placement.slots) {
        if (s.gpu < 0 || s.milli != kMilliPerGpu) continue;
        if (std::find(taken.begin(), taken.end(), std::pair<NodeId, int>(s.node, s.gpu)) !=
            taken.end())
          continue;
        out.push_back(Offer{k.job, Slot{s.node, s.gpu, share}, u->memory_frac, u->peak, u->window});
      }
    }
    return out;
  }

  // Whether guest `s` may take `offer`: its model, the node's limits and its memory.
  bool fits(const CycleOps& ops, const JobSpec& s, const Offer& offer) const {
    const ClusterState& st = ops.cluster();
    const NodeId n = offer.slot.node;
    if (!st.admits(n, s)) return false;
    if (!s.allowed_models.empty() && std::find(s.allowed_models.begin(), s.allowed_models.end(),
                                               st.model(n)) == s.allowed_models.end())
      return false;
    if (s.gpu_memory_mib > 0) {
      const int64_t card = st.gpu_memory(n);
      if (card <= 0 ||
          offer.memory + static_cast<double>(s.gpu_memory_mib) / static_cast<double>(card) >
              o_.memory_below)
        return false;
    }
    return true;
  }

  LendOptions o_;
};

}  // namespace

std::unique_ptr<CyclePlugin> make_lend_idle(LendOptions options) {
  return std::make_unique<LendIdle>(options);
}

}  // namespace frugal
