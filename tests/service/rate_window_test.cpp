// RateWindow (service/rate_window.h): a time-weighted mean over a trailing window, known only
// once the samples cover it.

#include "service/rate_window.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

TEST(RateWindow, MeanOverTheWindowOnceCovered) {
  RateWindow w(60);
  w.add(0, 10);
  EXPECT_FALSE(w.mean(30).has_value());  // half the window seen
  w.add(30, 30);
  ASSERT_TRUE(w.mean(60).has_value());
  EXPECT_DOUBLE_EQ(*w.mean(60), 20);  // 30 s at 10, 30 s at 30
  w.add(60, 0);
  EXPECT_DOUBLE_EQ(*w.mean(90), 15);  // [30, 60) at 30, [60, 90) at 0
  w.add(200, 50);                     // a gap: the last sample held meanwhile
  EXPECT_DOUBLE_EQ(*w.mean(200), 0);
  EXPECT_DOUBLE_EQ(*w.mean(230), 25);
}

TEST(RateWindow, IrregularSamplesAreWeightedByHowLongTheyHeld) {
  RateWindow w(100);
  w.add(0, 0);
  w.add(90, 100);
  EXPECT_DOUBLE_EQ(*w.mean(100), 10);  // 90 s at 0, 10 s at 100
  for (double t = 100; t <= 300; t += 5) w.add(t, 4);
  EXPECT_DOUBLE_EQ(*w.mean(300), 4);
}

}  // namespace
}  // namespace frugal
