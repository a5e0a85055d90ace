// The Relay point's runner (contract in relay_step.h).

#include "policy/relay_step.h"

#include <fmt/format.h>
#include <algorithm>

namespace frugal {
namespace {

class RelayStep final : public CyclePlugin {
 public:
  explicit RelayStep(const Relay& relay) : relay_(relay) {}
  std::string name() const override { return "relay"; }
  std::vector<std::string> describe_words() const override { return {}; }  // "relay=" says it

  void relay(CycleOps& ops) override {
    if (ops.running_movable() == 0 || ops.now() < next_) return;
    next_ = relay_.next_tick(ops);
    if (!ops.pending().empty()) return;
    std::vector<JobIdx> movable;
    for (const QueueKey& k : ops.running())
      if (ops.job(k.job).spec->movable) movable.push_back(k.job);
    const ClusterSpec& spec = ops.cluster().spec();
    for (JobIdx j : movable) {
      std::optional<Move> m = relay_.relay(ops, j);
      if (!m) continue;
      const uint32_t from = spec.region_of(spec.nodes[ops.job(j).placement.slots.front().node]);
      const uint32_t to = spec.region_of(spec.nodes[m->to.slots.front().node]);
      if (Status st = ops.move(j, std::move(m->to), Decision::Kind::kMigrate,
                               ops.options().migration_cost_s,
                               fmt::format("{}: relayed from region {} to {}", relay_.name(),
                                           spec.regions[from].name, spec.regions[to].name));
          !st.ok())
        ops.report_internal(j, "internal: relay rejected: " + st.error().message);
    }
  }

  bool ranks_provisioning(const CycleOps& /*ops*/) const override { return true; }
  double provision_rank(const CycleOps& ops, NodeId n) const override {
    return relay_.provision_rank(ops, n);
  }

  Seconds next_wakeup(const CycleOps& ops) const override {
    return ops.running_movable() > 0 ? std::max(ops.now(), next_) : kNever;
  }

 private:
  const Relay& relay_;
  Seconds next_ = 0;  // the Relay's next price tick
};

}  // namespace

std::unique_ptr<CyclePlugin> make_relay_step(const Relay& relay) {
  return std::make_unique<RelayStep>(relay);
}

}  // namespace frugal
