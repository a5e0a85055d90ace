#pragma once
// Go's math/rand (Go 1.x value stream, as in Go 1.19/1.20 with an explicit Seed), so the FGD
// artifact's seeded draws (workload shuffle, up-sampling, node tie-break prefixes) can be
// replayed draw for draw.
//
// The source is an additive lagged Fibonacci generator (Mitchell & Reeds):
//   x_n = x_{n-607} + x_{n-273} (mod 2^64), output x_n & (2^63 − 1),
// held in a 607-slot ring. Seeding fills the ring from the Lehmer generator
// y ← 48271·y mod (2^31 − 1) (three steps per slot, after 20 warm-up steps) XORed with a fixed
// "cooked" state: the ring of the same generator seeded with 1 (shifts 20/10) after
// 7.8e12 steps. We do not embed that table; cooked_state() derives it by jumping the
// recurrence ahead (x^N mod the characteristic polynomial x^607 − x^334 − 1 over Z/2^64),
// which takes a few milliseconds and is checked against known values in the tests.
//
// Derived draws follow Go 1.x semantics exactly: Int31 = Int63 >> 32, Int31n by rejection
// (power-of-two mask fast path), Intn → Int31n for n < 2^31, Uint32 = Int63 >> 31, the
// internal int31n (Lemire multiply-shift) used by Shuffle, Perm's inside-out loop (i from 0),
// Float64 = Int63 / 2^63 with resampling of 1.0.

#include <array>
#include <cstdint>
#include <vector>

namespace frugal::pack {

class GoRand {
 public:
  explicit GoRand(int64_t seed) { Seed(seed); }
  void Seed(int64_t seed);

  int64_t Int63();
  uint32_t Uint32() { return static_cast<uint32_t>(Int63() >> 31); }
  int32_t Int31() { return static_cast<int32_t>(Int63() >> 32); }
  int64_t Int() { return Int63(); }  // 64-bit int: the sign bit is already clear
  int64_t Int63n(int64_t n);
  int32_t Int31n(int32_t n);
  int64_t Intn(int64_t n) { return n <= INT32_MAX ? Int31n(static_cast<int32_t>(n)) : Int63n(n); }
  double Float64();
  std::vector<int> Perm(int n);
  // Fisher–Yates from the top, j = int31n(i + 1) (n < 2^31 here).
  template <class Swap>
  void Shuffle(int n, Swap swap) {
    for (int i = n - 1; i > 0; --i) swap(i, static_cast<int>(int31n(i + 1)));
  }

  // The 63-bit cooked seeding state (rng_cooked), computed once.
  static const std::array<uint64_t, 607>& cooked_state();

 private:
  int32_t int31n(int32_t n);  // Go's unexported multiply-shift variant
  std::array<uint64_t, 607> vec_{};
  int tap_ = 0, feed_ = 0;
};

}  // namespace frugal::pack
