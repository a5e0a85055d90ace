#include "policy/preempt.h"

namespace frugal {
namespace {

class PriorityOrderPreempt final : public Preempt {
 public:
  std::string name() const override { return "priority-order"; }
  std::vector<JobIdx> victims(const CycleView& v, const std::set<QueueKey>& pending,
                              const std::set<QueueKey>& running) override {
    std::vector<JobIdx> out;
    if (pending.empty()) return out;
    int64_t budget = v.cluster().up_gpus() * kMilliPerGpu;
    auto p = pending.begin();
    auto r = running.begin();
    bool pending_selected = false;
    while (p != pending.end() || r != running.end()) {
      if (budget <= 0) {  // nothing left to give: every remaining running job is a victim
        for (; r != running.end(); ++r) out.push_back(r->job);
        break;
      }
      const bool take_running = p == pending.end() || (r != running.end() && *r < *p);
      const QueueKey& k = take_running ? *r : *p;
      const int64_t need = v.job(k.job).spec->total_milli();
      if (take_running) {
        if (need <= budget) {
          budget -= need;
        } else {
          out.push_back(k.job);
        }
        ++r;
      } else {
        if (need <= budget) {
          budget -= need;
          pending_selected = true;
        }
        ++p;
      }
    }
    if (!pending_selected) out.clear();  // nobody would gain from a preemption
    // Stop the lowest-priority victims first.
    return {out.rbegin(), out.rend()};
  }
};

}  // namespace

std::unique_ptr<Preempt> make_priority_order_preempt() {
  return std::make_unique<PriorityOrderPreempt>();
}

}  // namespace frugal
