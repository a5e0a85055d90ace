#pragma once
// Node GPU fragmentation w.r.t. the typical pods (the artifact's NodeGpuShareFragAmount and
// FragAmountSumExceptQ3, README §4.4).
//
// For each typical pod p (frequency f_p), with L = the node's free milli-GPU:
//   CPU-only p                                → f_p·L (xl/xr: idle GPUs are fragment for it);
//   p's model list excludes the node's model  → f_p·L (no_access);
//   node has num_gpu cards with free ≥ milli and cpu_left ≥ cpu (q3)
//                                             → f_p·Σ{free_g : free_g < milli} (the q2 part);
//   otherwise (q1, q2, q4)                    → f_p·L.
// F(node) is the sum; memory is ignored. Amounts are accumulated per class and summed in the
// artifact's class order, so values match its float64 results.

#include <cstdint>
#include <unordered_map>

#include "pack/pack_model.h"
#include "pack/typical_pods.h"

namespace frugal::pack {

// F for the state (cpu_left, free[0..num_gpu), model). Pure; no caching.
double node_frag(int64_t cpu_left, const int32_t* free, int num_gpu, int model,
                 const TypicalPods& typical);

// Memoised F keyed by (cpu_left, sorted free list, model). Not thread-safe; one per thread.
// The memo is only valid for the TypicalPods it was built with.
class FragMemo {
 public:
  explicit FragMemo(const TypicalPods& typical) : typical_(&typical) {}
  double operator()(int64_t cpu_left, const int32_t* free, int num_gpu, int model);
  double operator()(const NodeState& s) {
    return (*this)(s.cpu_left, s.free.data(), s.num_gpu, s.model);
  }
  const TypicalPods& typical() const { return *typical_; }
  size_t size() const { return memo_.size(); }

 private:
  struct Key {
    uint64_t a = 0, b = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = k.a * 0x9E3779B97F4A7C15ull ^ (k.b + 0x632BE59BD9B4E019ull + (k.a << 6));
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  const TypicalPods* typical_;
  std::unordered_map<Key, double, KeyHash> memo_;
};

}  // namespace frugal::pack
