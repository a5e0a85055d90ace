// The service's clocks (service/clock.h).

#include "service/clock.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

TEST(Clock, ManualClockMovesOnlyForwardAndOnlyWhenTold) {
  ManualClock c(1000);
  EXPECT_EQ(c.now(), 1000);
  c.advance(2.5);
  EXPECT_EQ(c.now(), 1002.5);
  c.set(1001);  // backwards: ignored
  EXPECT_EQ(c.now(), 1002.5);
  c.advance(-1);  // ignored too
  EXPECT_EQ(c.now(), 1002.5);
  c.set(2000);
  EXPECT_EQ(c.now(), 2000);
}

TEST(Clock, SystemClockIsUnixTime) {
  const double t = SystemClock().now();
  EXPECT_GT(t, 1.6e9);  // after 2020
  EXPECT_LT(t, 4.1e9);  // before 2100
}

}  // namespace
}  // namespace frugal
