// UseWindow: a job's measured use over the sharing window (service/use_window.h).

#include "service/use_window.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

constexpr UseWindow::Rules kRules{/*span_s=*/30, /*period_s=*/5, /*max_gap_s=*/60};

TEST(UseWindow, SummarisesTheSamplesOfTheLastSpan) {
  UseWindow w;
  EXPECT_FALSE(w.summary(kRules));
  w.add(kRules, 100, 0.2, 0.1);
  auto u = w.summary(kRules);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->at, 100);
  EXPECT_EQ(u->window, 5);  // one sample: its period
  w.add(kRules, 105, 0.6, -1);
  w.add(kRules, 110, 0.4, 0.3);
  u = w.summary(kRules);
  EXPECT_EQ(u->window, 15);
  EXPECT_NEAR(u->utilization, 0.4, 1e-12);
  EXPECT_EQ(u->peak, 0.6);
  EXPECT_EQ(u->latest, 0.4);
  EXPECT_EQ(u->memory_frac, 0.3);
  for (double t = 115; t <= 200; t += 5) w.add(kRules, t, 0.1, 0.05);
  u = w.summary(kRules);
  EXPECT_EQ(u->window, 30);  // never more than the span
  EXPECT_EQ(u->peak, 0.1);   // the older, busier samples left the window
  EXPECT_EQ(u->memory_frac, 0.05);
}

TEST(UseWindow, AFloodOfSamplesStaysBoundedAndAGapStartsAfresh) {
  UseWindow w;
  for (int i = 0; i < 100000; ++i) w.add(kRules, 1000 + i * 0.001, i % 2 ? 0.9 : 0.1, -1);
  auto u = w.summary(kRules);
  ASSERT_TRUE(u);
  EXPECT_NEAR(u->utilization, 0.5, 1e-9);
  EXPECT_EQ(u->peak, 0.9);
  EXPECT_EQ(u->memory_frac, -1);  // no sample knew it
  // Older than the newest: ignored.
  w.add(kRules, 500, 1.0, 1.0);
  EXPECT_EQ(w.summary(kRules)->peak, 0.9);
  // Silent for longer than max_gap_s: the window restarts at the next sample.
  w.add(kRules, 1200, 0.3, 0.2);
  u = w.summary(kRules);
  EXPECT_EQ(u->window, 5);
  EXPECT_EQ(u->peak, 0.3);
  w.clear();
  EXPECT_TRUE(w.empty());
}

}  // namespace
}  // namespace frugal
