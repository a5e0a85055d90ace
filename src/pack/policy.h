#pragma once
// Placement policies of the static-fill experiment, each as a node scorer plus a GPU selector,
// with the FGD artifact's exact integer semantics (scores int64 in 0..100, plugin weight 1000,
// the highest score wins, ties go to the lowest node rank):
//   random         one uniformly drawn feasible node scores 100, the rest 0; gpusel random.
//   dotprod        Tetris dot product, dimext merge, norm max: v_node = (cpu_left/128000,
//                  gpu_left/8000), v_pod = (cpu/128000, total milli/8000);
//                  int64(100·(1 − v_node·v_pod/2)); gpusel best.
//   gpuclustering  25·(8000 − gpu_left)/8000 (integer) + 75 if the node holds only pods of the
//                  pod's GPU-affinity tag, +50 if it holds that tag among others, +25 if it holds
//                  no GPU pod, +0 otherwise; CPU-only pods score 0; gpusel best.
//   gpupacking     all cards free: max(33 − free cards, free cards); needs fully free cards:
//                  max(50 − those cards, 33); else max(100 − Σ(free·100/1000)/10, 50) over the
//                  tightest cards; CPU-only pods score 0; gpusel best.
//   bestfit        s = 0.5·(cpu_left − cpu)/128000 + 0.5·(gpu_left − total milli)/8000,
//                  int64((1 − s)·100), min-max normalised to 0..100 over the feasible nodes
//                  (only the top raw score can normalise to 100, so the argmax is unchanged);
//                  gpusel best.
//   fgd            int64(sigmoid((F − F')/1000)·100), F' after placing the pod (sharing pods:
//                  the best card, first index on ties; others: the tightest cards, as
//                  NodeResource.Sub); gpusel FGD (the card that scored).
//   fgd-alt        FGD with its ties broken by a second random node order (alt_tie: a fixed hash
//                  of the rank position, independent of the rank) instead of the lowest rank:
//                  the same packer as FGD in distribution, so fgd-alt − FGD is the noise of a
//                  comparison with FGD (bench/PACK_RESULTS.md §6.2). Not among the published
//                  policies; FillState adds the tie (score_node gives FGD's score).
//   frugal         our packer, see policy.cpp (frugal_score): FGD's score, with F over the
//                  typical pods cut per narrow gpu_spec domain (frugal_typical_pods; the
//                  `memo` the engine passes for frugal), a packing tie-break for CPU-only pods; its
//                  GPU-pod rules (exact-ΔF card, keep-some-GPU tie-break) only from
//                  kFrugalGpuRulesFrom arrived load on, FGD's before.
//                  Whether a workload gets these rules or FGD's is decided per workload
//                  before its runs (calibrate.h, experiment.h), not here.
// gpusel best: a sharing pod takes the tightest card with room (lowest index on ties); whole
// cards are the lowest-index fully free cards (AllocateExclusiveGpuId).

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "pack/frag.h"
#include "pack/go_rand.h"
#include "pack/pack_model.h"

namespace frugal::pack {

enum class Policy {
  kRandom,
  kDotProd,
  kGpuClustering,
  kGpuPacking,
  kBestFit,
  kFgd,
  kFrugal,
  kFgdAlt
};

inline constexpr int64_t kInfeasible = INT64_MIN;

std::string_view policy_name(Policy p);
std::optional<Policy> parse_policy(std::string_view name);
std::vector<Policy> all_policies();

// fgd-alt's tie-break key of the node at rank position r: 32 pseudo-random bits (splitmix64 of
// r), higher wins. Deterministic, the same for every run.
int64_t alt_tie(size_t r);

// Score of placing `pod` on `node` (higher is better), kInfeasible when the CPU/GPU filter
// rejects it. Depends only on the node state and the pod's class (cpu, num_gpu, milli, model
// mask), never on memory, so callers may cache it per (class, node version).
// Random returns 0 for every feasible node (the draw happens in the engine).
// `gpu_rules` matters to frugal only: whether its GPU-pod rules are on (see frugal_score); the
// fill engine turns them on once the arrived GPU load exceeds kFrugalGpuRulesFrom of capacity.
// Tuned on all 8 required openb variants together (bench/PACK_RESULTS.md §3).
inline constexpr double kFrugalGpuRulesFrom = 0.5;
int64_t score_node(Policy policy, const NodeState& node, const Pod& pod, FragMemo& memo,
                   bool gpu_rules = true);

// The random policy's draws: either std::mt19937_64 (statistical replica) or the continuation
// of Go's math/rand global stream after the workload/prefix draws (the artifact's own stream:
// rand.Intn(#feasible) per pod with ≥ 2 feasible nodes, then rand.Intn(k) per card with room
// for a sharing pod, k = 1, 2, ...).
class PolicyRng {
 public:
  explicit PolicyRng(uint64_t seed) : mt_(seed) {}
  explicit PolicyRng(const GoRand& go) : go_(go) {}
  bool is_go() const { return go_.has_value(); }
  // Uniform in [0, n), n ≥ 1.
  int64_t below(int64_t n) {
    if (go_) return go_->Intn(n);
    return std::uniform_int_distribution<int64_t>(0, n - 1)(mt_);
  }

 private:
  std::mt19937_64 mt_;
  std::optional<GoRand> go_;
};

// The cards a pod placed on `node` takes (device indices, pod.num_gpu of them).
// Precondition: fits(node, pod).
struct GpuChoice {
  std::array<int8_t, kMaxGpus> ids{};
  int n = 0;
};
GpuChoice select_gpus(Policy policy, const NodeState& node, const Pod& pod, FragMemo& memo,
                      PolicyRng& rng, bool gpu_rules = true);

}  // namespace frugal::pack
