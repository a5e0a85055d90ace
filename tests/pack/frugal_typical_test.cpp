// frugal's workload distribution (frugal_typical_pods): the popularity cut per narrow gpu_spec
// domain, wide model lists pooled with the unrestricted pods.
#include <gtest/gtest.h>

#include <algorithm>

#include "pack/frugal_typical.h"
#include "pack/typical_pods.h"

namespace frugal::pack {
namespace {

void add_pod(std::vector<Pod>& pods, int count, int64_t cpu, int32_t milli, uint64_t mask,
             const std::string& key) {
  for (int i = 0; i < count; ++i)
    pods.push_back(Pod{"p", cpu, 1024, milli > 0 ? 1 : 0, milli, mask, key});
}

// 8 GPUs of model 0, 2 of model 1: model 1 reaches 20 % of the cluster, models 0|1 all of it.
std::vector<NodeSpec> cluster() {
  return {NodeSpec{"a", 64000, 1 << 20, 8, 0}, NodeSpec{"b", 32000, 1 << 20, 2, 1},
          NodeSpec{"c", 96000, 1 << 20, 0, -1}};
}

void expect_same(const TypicalPods& a, const TypicalPods& b) {
  ASSERT_EQ(a.pods.size(), b.pods.size());
  for (size_t i = 0; i < a.pods.size(); ++i) {
    EXPECT_EQ(a.pods[i].cpu, b.pods[i].cpu) << i;
    EXPECT_EQ(a.pods[i].milli, b.pods[i].milli) << i;
    EXPECT_EQ(a.pods[i].model_key, b.pods[i].model_key) << i;
    EXPECT_EQ(a.pods[i].freq, b.pods[i].freq) << i;  // bit for bit
  }
  EXPECT_EQ(a.coverage, b.coverage);
}

TEST(PackFrugalTypical, NoGpuSpecEqualsGlobalCut) {
  std::vector<Pod> pods;
  add_pod(pods, 50, 4000, 1000, 0, "");
  add_pod(pods, 30, 2000, 500, 0, "");
  add_pod(pods, 15, 8000, 0, 0, "");
  add_pod(pods, 5, 1000, 250, 0, "");
  expect_same(typical_pods(pods, 90), frugal_typical_pods(pods, cluster(), 0.5, 0.0, 90));
}

// A rare class restricted to model 1 (20 % of the GPUs) is a narrow domain and stays; a rare
// class whose list covers the whole cluster is pooled and cut as FGD cuts it.
TEST(PackFrugalTypical, KeepsNarrowDomainsPoolsWideOnes) {
  std::vector<Pod> pods;
  add_pod(pods, 60, 4000, 1000, 0, "");
  add_pod(pods, 33, 2000, 500, 0, "");
  add_pod(pods, 4, 8000, 1000, uint64_t{1} << 1, "M1");
  add_pod(pods, 3, 6000, 1000, uint64_t{3}, "M0|M1");
  const TypicalPods t = frugal_typical_pods(pods, cluster(), 0.5, 0.0, 95);
  double sum = 0;
  bool narrow = false, wide = false;
  for (const TypicalPod& p : t.pods) {
    sum += p.freq;
    narrow |= p.model_key == "M1";
    wide |= p.model_key == "M0|M1";
  }
  EXPECT_TRUE(narrow);
  EXPECT_FALSE(wide);  // 60 + 33 of the 96 pooled pods reach 95 %
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_NEAR(t.coverage, 0.97, 1e-12);
  // Every domain narrow: the cut of typical_pods_per_domain, which keeps both.
  expect_same(typical_pods_per_domain(pods, 95),
              frugal_typical_pods(pods, cluster(), 1.0, 0.0, 95));
  // Model 1 alone reaches 0.2 of the GPUs: at max_reach 0.1 no domain is narrow, FGD's cut.
  expect_same(typical_pods(pods, 95), frugal_typical_pods(pods, cluster(), 0.1, 0.0, 95));
}

// The M1 pods ask for 4000 of 80500 GPU milli (5.0 %) on hardware with 20 % of the GPUs: a
// pressure of 0.248. At min_pressure 0.2 they keep their domain, at 0.3 they are pooled.
TEST(PackFrugalTypical, PoolsARareNarrowDomain) {
  std::vector<Pod> pods;
  add_pod(pods, 60, 4000, 1000, 0, "");
  add_pod(pods, 33, 2000, 500, 0, "");
  add_pod(pods, 4, 8000, 1000, uint64_t{1} << 1, "M1");
  auto has_m1 = [](const TypicalPods& t) {
    return std::any_of(t.pods.begin(), t.pods.end(),
                       [](const TypicalPod& p) { return p.model_key == "M1"; });
  };
  EXPECT_TRUE(has_m1(frugal_typical_pods(pods, cluster(), 0.5, 0.2, 95)));
  const TypicalPods pooled = frugal_typical_pods(pods, cluster(), 0.5, 0.3, 95);
  EXPECT_FALSE(has_m1(pooled));  // 60 + 33 of the 97 pods reach 95 %
  expect_same(typical_pods(pods, 95), pooled);
}

}  // namespace
}  // namespace frugal::pack
