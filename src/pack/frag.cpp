#include "pack/frag.h"

#include <algorithm>
#include <functional>

namespace frugal::pack {

NodeState initial_state(const NodeSpec& spec) {
  NodeState s;
  s.cpu_left = spec.cpu;
  s.mem_left = spec.mem;
  s.num_gpu = spec.num_gpu;
  s.model = spec.model;
  for (int g = 0; g < spec.num_gpu; ++g) s.free[static_cast<size_t>(g)] = kMilli;
  return s;
}

double node_frag(int64_t cpu_left, const int32_t* free, int num_gpu, int model,
                 const TypicalPods& typical) {
  // Class buckets in the artifact's order: q1, q2, q3, q4, xl, xr, no_access.
  enum { kQ1, kQ2, kQ3, kQ4, kXL, kXR, kNA, kClasses };
  double bucket[kClasses] = {0, 0, 0, 0, 0, 0, 0};
  int64_t left = 0;
  for (int g = 0; g < num_gpu; ++g) left += free[g];
  const double L = static_cast<double>(left);
  for (const TypicalPod& p : typical.pods) {
    const bool cpu_ok = cpu_left >= p.cpu;
    if (p.milli == 0) {
      bucket[cpu_ok ? kXL : kXR] += p.freq * L;
      continue;
    }
    if (!model_ok(p.model_mask, model)) {
      bucket[kNA] += p.freq * L;
      continue;
    }
    int fit = 0;
    int64_t small = 0;
    for (int g = 0; g < num_gpu; ++g) {
      if (free[g] >= p.milli)
        ++fit;
      else
        small += free[g];
    }
    if (fit >= p.num_gpu) {
      if (cpu_ok) {
        bucket[kQ2] += p.freq * static_cast<double>(small);
        bucket[kQ3] += p.freq * static_cast<double>(left - small);
      } else {
        bucket[kQ4] += p.freq * L;
      }
    } else {
      bucket[cpu_ok ? kQ2 : kQ1] += p.freq * L;
    }
  }
  double out = 0;
  for (int c = 0; c < kClasses; ++c)
    if (c != kQ3) out += bucket[c];
  return out;
}

double FragMemo::operator()(int64_t cpu_left, const int32_t* free, int num_gpu, int model) {
  if (cpu_left < 0 || cpu_left >= (int64_t{1} << 20) || model >= 63)
    return node_frag(cpu_left, free, num_gpu, model, *typical_);  // outside the key's range
  int32_t sorted[kMaxGpus] = {0};
  for (int g = 0; g < num_gpu; ++g) {  // insertion sort, descending (at most 8 cards)
    int32_t v = free[g];
    int h = g;
    for (; h > 0 && sorted[h - 1] < v; --h) sorted[h] = sorted[h - 1];
    sorted[h] = v;
  }
  Key k;
  k.a = (static_cast<uint64_t>(cpu_left) & 0xFFFFFu) |
        (static_cast<uint64_t>(model + 1) & 0x3Fu) << 20 | static_cast<uint64_t>(num_gpu) << 26;
  // 11 bits per card (0..1000): cards 0-2 in a, 3-7 in b.
  for (int g = 0; g < 3; ++g) k.a |= static_cast<uint64_t>(sorted[g]) << (30 + 11 * g);
  for (int g = 3; g < kMaxGpus; ++g) k.b |= static_cast<uint64_t>(sorted[g]) << (11 * (g - 3));
  auto it = memo_.find(k);
  if (it != memo_.end()) return it->second;
  const double f = node_frag(cpu_left, free, num_gpu, model, *typical_);
  memo_.emplace(k, f);
  return f;
}

}  // namespace frugal::pack
