// Pricing::span, hand-computed. Fixtures (cost_test_util.h): A100 idle 100 W, peak 400 W,
// $4 on-demand / $2 reserved per GPU-hour; region prices 100, −20, 50, 10 USD/MWh and
// carbon 200, 100, 300, 400 g/kWh for hours 0..3 from the epoch, PUE 1.5, hours 1 and 2
// off-peak at a 50 % on-demand discount.
//
// The node used below holds 2 A100s and 200 W of host overhead (100 W per GPU). At
// utilization 0.6 one GPU draws 100 + 300 × 0.6 + 100 = 380 W; two GPUs at PUE 1.5 draw
// 2 × 380 × 1.5 = 1140 W = 1.14 kW.

#include "cost/pricing.h"

#include <gtest/gtest.h>

#include "cluster/cluster_state.h"
#include "cost_test_util.h"

namespace frugal {
namespace {

using testing::gpu_node;
using testing::hand_cluster;
using testing::kA100;
using testing::kHour;
using testing::kT4;
using testing::kV100;
using testing::priced_gpus;

constexpr double kPricingEps = 1e-9;

struct Priced {
  explicit Priced(ClusterSpec s) : spec(std::move(s)), state(spec, priced_gpus()) {}
  ClusterSpec spec;
  ClusterState state;
  Pricing pricing() const { return Pricing(state.spec(), priced_gpus(), state); }
};

TEST(Pricing, ReservedTwoHoursHandComputed) {
  Priced p(hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2, 200)}));
  const Pricing pr = p.pricing();
  const uint32_t c = p.state.centre_of(0);
  const SpanCost s = pr.span(c, 2, 0.6, 0, 2 * kHour);
  // rental: 2 GPUs × $2 × 2 h = $8 (reserved: no time-of-use discount)
  EXPECT_NEAR(s.rental_usd, 8.0, kPricingEps);
  // energy: 1.14 kW × 2 h = 2.28 kWh
  EXPECT_NEAR(s.energy_kwh, 2.28, kPricingEps);
  // 1.14 kW = 0.00114 MW × (100 − 20) USD/MWh·h = $0.0912
  EXPECT_NEAR(s.energy_usd, 0.0912, kPricingEps);
  // 1.14 kW × (200 + 100) g/kWh·h = 342 g = 0.342 kg
  EXPECT_NEAR(s.co2_kg, 0.342, kPricingEps);
  EXPECT_NEAR(s.total_usd(), 8.0912, kPricingEps);
  EXPECT_NEAR(pr.rental_rate(c, 0), 2.0, kPricingEps);
  EXPECT_NEAR(pr.rental_rate(c, 1.5 * kHour), 2.0, kPricingEps);  // off-peak, but reserved
  EXPECT_FALSE(pr.wrapped(0, 4 * kHour));
}

TEST(Pricing, NegativePriceHourGivesNegativeEnergyCost) {
  Priced p(hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2, 200)}));
  const Pricing pr = p.pricing();
  const SpanCost s = pr.span(p.state.centre_of(0), 2, 0.6, kHour, 2 * kHour);
  // Hour 1 only: 0.00114 MW × −20 USD/MWh × 1 h = −$0.0228 (reported, not clamped)
  EXPECT_NEAR(s.energy_usd, -0.0228, kPricingEps);
  EXPECT_LT(s.energy_usd, 0);
  EXPECT_NEAR(s.energy_kwh, 1.14, kPricingEps);  // energy itself stays positive
  EXPECT_NEAR(s.co2_kg, 0.114, kPricingEps);     // 1.14 kW × 100 g/kWh
  EXPECT_NEAR(s.rental_usd, 4.0, kPricingEps);   // 2 GPUs × $2 × 1 h
  EXPECT_NEAR(s.total_usd(), 3.9772, kPricingEps);
}

TEST(Pricing, PartialHoursAndIdlePower) {
  Priced p(hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2, 200)}));
  const Pricing pr = p.pricing();
  // One idle GPU (u = 0): (100 + 100) W × 1.5 = 0.3 kW over [00:30, 01:30) = 1 h.
  const SpanCost s = pr.span(p.state.centre_of(0), 1, 0, 0.5 * kHour, 1.5 * kHour);
  EXPECT_NEAR(s.energy_kwh, 0.3, kPricingEps);
  // price: half an hour at 100 and half at −20 → 40 USD/MWh·h; 0.0003 MW × 40 = $0.012
  EXPECT_NEAR(s.energy_usd, 0.012, kPricingEps);
  // carbon: 0.5 × 200 + 0.5 × 100 = 150 g/kWh·h; 0.3 × 150 g = 0.045 kg
  EXPECT_NEAR(s.co2_kg, 0.045, kPricingEps);
  EXPECT_NEAR(s.rental_usd, 2.0, kPricingEps);  // 1 GPU × $2 × 1 h
  // Half a GPU at full load for an hour: 0.5 × (400 + 100) W × 1.5 = 0.375 kWh, $1 rental
  const SpanCost h = pr.span(p.state.centre_of(0), 0.5, 1.0, 0, kHour);
  EXPECT_NEAR(h.energy_kwh, 0.375, kPricingEps);
  EXPECT_NEAR(h.rental_usd, 1.0, kPricingEps);
  // Nothing for no GPUs or an empty span.
  EXPECT_EQ(pr.span(p.state.centre_of(0), 0, 1, 0, kHour).total_usd(), 0);
  EXPECT_EQ(pr.span(p.state.centre_of(0), 2, 1, kHour, kHour).energy_kwh, 0);
}

TEST(Pricing, OnDemandTimeOfUseDiscount) {
  Priced p(hand_cluster(Capacity::kOnDemand, {gpu_node("n", kA100, 2, 200)}));
  const Pricing pr = p.pricing();
  const uint32_t c = p.state.centre_of(0);
  // Four hours, hours 1 and 2 off-peak at 50 %: 2 GPUs × $4 × (4 − 0.5 × 2) h = $24
  const SpanCost s = pr.span(c, 2, 0.6, 0, 4 * kHour);
  EXPECT_NEAR(s.rental_usd, 24.0, kPricingEps);
  EXPECT_NEAR(s.energy_kwh, 4.56, kPricingEps);                               // 1.14 kW × 4 h
  EXPECT_NEAR(s.energy_usd, 0.00114 * (100 - 20 + 50 + 10), kPricingEps);     // $0.1596
  EXPECT_NEAR(s.co2_kg, 1.14 * (200 + 100 + 300 + 400) / 1000, kPricingEps);  // 1.14 kg
  // [00:30, 01:30): half an hour at list, half at half price: 2 × $4 × (1 − 0.25) = $6
  EXPECT_NEAR(pr.span(c, 2, 0.6, 0.5 * kHour, 1.5 * kHour).rental_usd, 6.0, kPricingEps);
  EXPECT_NEAR(pr.rental_rate(c, 0), 4.0, kPricingEps);
  EXPECT_NEAR(pr.rental_rate(c, kHour), 2.0, kPricingEps);
  EXPECT_NEAR(pr.rental_rate(c, 2 * kHour + 3599), 2.0, kPricingEps);
  EXPECT_NEAR(pr.rental_rate(c, 3 * kHour), 4.0, kPricingEps);
  EXPECT_NEAR(pr.rental_rate(c, 5 * kHour), 2.0, kPricingEps);  // wrapped: hour 1 again
  // The cheapest rate is the list price, before discounts.
  EXPECT_NEAR(pr.cheapest_rate(kA100), 4.0, kPricingEps);
}

TEST(Pricing, WrapsPastTheSeries) {
  Priced p(hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2, 200)}));
  const Pricing pr = p.pricing();
  // Hour 4 is hour 0 again (100 USD/MWh, 200 g/kWh): $0.114, 0.228 kg
  const SpanCost s = pr.span(p.state.centre_of(0), 2, 0.6, 4 * kHour, 5 * kHour);
  EXPECT_NEAR(s.energy_usd, 0.114, kPricingEps);
  EXPECT_NEAR(s.co2_kg, 0.228, kPricingEps);
  EXPECT_TRUE(pr.wrapped(0, 5 * kHour));
  EXPECT_TRUE(pr.wrapped(-1, kHour));
}

TEST(Pricing, FlatDefaultsWhenSeriesEmpty) {
  ClusterSpec spec = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2, 200)});
  spec.regions[0].electricity_usd_per_mwh = HourlySeries();
  spec.regions[0].carbon_g_per_kwh = HourlySeries();
  spec.regions[0].default_electricity_usd_per_mwh = 80;
  spec.regions[0].default_carbon_g_per_kwh = 400;
  spec.regions[0].offpeak = HourlySeries();
  Priced p(std::move(spec));
  const Pricing pr = p.pricing();
  const SpanCost s = pr.span(p.state.centre_of(0), 2, 0.6, 0, 2 * kHour);
  EXPECT_NEAR(s.energy_usd, 0.00114 * 80 * 2, kPricingEps);   // $0.1824
  EXPECT_NEAR(s.co2_kg, 1.14 * 400 * 2 / 1000, kPricingEps);  // 0.912 kg
  EXPECT_FALSE(pr.wrapped(-1e9, 1e9));
}

TEST(Pricing, OverheadIsAveragedPerGpuOfTheCentre) {
  // 2-GPU node with 200 W and 4-GPU node with 100 W: 300 W over 6 GPUs = 50 W per GPU.
  Priced p(hand_cluster(Capacity::kReserved,
                        {gpu_node("a", kA100, 2, 200), gpu_node("b", kA100, 4, 100)}));
  ASSERT_EQ(p.state.centre_of(0), p.state.centre_of(1));
  const Pricing pr = p.pricing();
  // One idle GPU for an hour: (100 + 50) W × 1.5 = 0.225 kWh
  EXPECT_NEAR(pr.span(p.state.centre_of(0), 1, 0, 0, kHour).energy_kwh, 0.225, kPricingEps);
}

TEST(Pricing, RentalOverridesAndCheapestRate) {
  ClusterSpec spec = hand_cluster(Capacity::kReserved, {gpu_node("v", kV100, 4)});
  Pool od;
  od.name = "od";
  od.capacity = Capacity::kOnDemand;
  od.rental.push_back(RentalOverride{kA100, 3.0, 1.5});
  spec.pools.push_back(od);
  spec.nodes.push_back(gpu_node("a", kA100, 8, 0, 1));
  Priced p(std::move(spec));
  const Pricing pr = p.pricing();
  const uint32_t ca = p.state.centre_of(1);
  EXPECT_NEAR(pr.rental_rate(ca, 0), 3.0, kPricingEps);      // overridden on-demand rate
  EXPECT_NEAR(pr.rental_rate(ca, kHour), 1.5, kPricingEps);  // off-peak: 3 × (1 − 0.5)
  EXPECT_NEAR(pr.rental_rate(p.state.centre_of(0), 0), 0.5, kPricingEps);  // V100 reserved
  EXPECT_NEAR(pr.cheapest_rate(kA100), 3.0, kPricingEps);
  EXPECT_NEAR(pr.cheapest_rate(kV100), 0.5, kPricingEps);
  EXPECT_LT(pr.cheapest_rate(kT4), 0);  // not in the cluster
  EXPECT_EQ(pr.region_of_centre(ca), 0u);
}

TEST(Pricing, CpuOnlyNodesPayHostPowerOnly) {
  ClusterSpec spec = hand_cluster(Capacity::kOwned, {gpu_node("c", kNoGpuModel, 0, 400)});
  Priced p(std::move(spec));
  const Pricing pr = p.pricing();
  // One node of 400 W at PUE 1.5 for hour 0: 0.6 kWh, 0.0006 MW × 100 = $0.06, no rental
  const SpanCost s = pr.span(p.state.centre_of(0), 1, 0.9, 0, kHour);
  EXPECT_EQ(s.rental_usd, 0);
  EXPECT_NEAR(s.energy_kwh, 0.6, kPricingEps);
  EXPECT_NEAR(s.energy_usd, 0.06, kPricingEps);
  EXPECT_NEAR(s.co2_kg, 0.12, kPricingEps);  // 0.6 kWh × 200 g
}

}  // namespace
}  // namespace frugal
