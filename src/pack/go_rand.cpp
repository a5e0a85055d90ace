#include "pack/go_rand.h"

#include <cstddef>
#include <vector>

namespace frugal::pack {
namespace {

constexpr int kLen = 607;
constexpr int kTap = 273;
constexpr uint64_t kMask = (uint64_t{1} << 63) - 1;

// y ← 48271·y mod (2^31 − 1), Schrage's method as Go writes it.
int32_t seedrand(int32_t x) {
  constexpr int32_t kA = 48271, kQ = 44488, kR = 3399, kM = 2147483647;
  const int32_t hi = x / kQ;
  const int32_t lo = x % kQ;
  x = kA * lo - kR * hi;
  if (x < 0) x += kM;
  return x;
}

using Poly = std::vector<uint64_t>;  // kLen coefficients, arithmetic mod 2^64

// a·b mod (x^607 − x^334 − 1): x^k = x^(k−607)·(x^334 + 1) for k ≥ 607.
Poly mulmod(const Poly& a, const Poly& b) {
  std::vector<uint64_t> r(2 * kLen - 1, 0);
  for (int i = 0; i < kLen; ++i) {
    const uint64_t ai = a[static_cast<std::size_t>(i)];
    if (ai == 0) continue;
    for (int j = 0; j < kLen; ++j)
      r[static_cast<std::size_t>(i + j)] += ai * b[static_cast<std::size_t>(j)];
  }
  for (int k = 2 * kLen - 2; k >= kLen; --k) {
    const uint64_t c = r[static_cast<std::size_t>(k)];
    r[static_cast<std::size_t>(k - kTap)] += c;
    r[static_cast<std::size_t>(k - kLen)] += c;
  }
  r.resize(kLen);
  return r;
}

std::array<uint64_t, kLen> compute_cooked() {
  // The generator of Go's gen_cooked: seed 1, shifts 20/10, no XOR.
  std::array<uint64_t, kLen> ring{};
  int32_t x = 1;
  for (int i = -20; i < kLen; ++i) {
    x = seedrand(x);
    if (i >= 0) {
      uint64_t u = static_cast<uint64_t>(x) << 20;
      x = seedrand(x);
      u ^= static_cast<uint64_t>(x) << 10;
      x = seedrand(x);
      u ^= static_cast<uint64_t>(x);
      ring[static_cast<std::size_t>(i)] = u;
    }
  }
  // With tap = 0 and feed = 334 decrementing, slot (333 − j) mod 607 holds x_j of the sequence
  // x_j = x_{j−607} + x_{j−273}; after N steps the ring holds x_N .. x_{N+606} in the same slots.
  auto slot = [](uint64_t j) {
    return static_cast<std::size_t>((333 + kLen - static_cast<int64_t>(j % kLen)) % kLen);
  };
  std::vector<uint64_t> init(kLen);
  for (int j = 0; j < kLen; ++j)
    init[static_cast<std::size_t>(j)] = ring[slot(static_cast<uint64_t>(j))];
  constexpr uint64_t kSteps = 7'800'000'000'000ull;
  Poly res(kLen, 0), base(kLen, 0);
  res[0] = 1;
  base[1] = 1;
  for (uint64_t e = kSteps; e; e >>= 1) {
    if (e & 1) res = mulmod(res, base);
    base = mulmod(base, base);
  }
  std::array<uint64_t, kLen> out{};
  for (int t = 0; t < kLen; ++t) {
    uint64_t s = 0;
    for (int i = 0; i < kLen; ++i)
      s += res[static_cast<std::size_t>(i)] * init[static_cast<std::size_t>(i)];
    out[slot(kSteps + static_cast<uint64_t>(t))] = s & kMask;
    const uint64_t top = res[kLen - 1];  // res ← res·x
    for (int i = kLen - 1; i > 0; --i)
      res[static_cast<std::size_t>(i)] = res[static_cast<std::size_t>(i - 1)];
    res[0] = top;
    res[kLen - kTap] += top;
  }
  return out;
}

}  // namespace

const std::array<uint64_t, 607>& GoRand::cooked_state() {
  static const std::array<uint64_t, kLen> cooked = compute_cooked();
  return cooked;
}

void GoRand::Seed(int64_t seed) {
  const auto& cooked = cooked_state();
  tap_ = 0;
  feed_ = kLen - kTap;
  constexpr int64_t kM = 2147483647;
  seed %= kM;
  if (seed < 0) seed += kM;
  if (seed == 0) seed = 89482311;
  auto x = static_cast<int32_t>(seed);
  for (int i = -20; i < kLen; ++i) {
    x = seedrand(x);
    if (i >= 0) {
      uint64_t u = static_cast<uint64_t>(x) << 40;
      x = seedrand(x);
      u ^= static_cast<uint64_t>(x) << 20;
      x = seedrand(x);
      u ^= static_cast<uint64_t>(x);
      u ^= cooked[static_cast<std::size_t>(i)];
      vec_[static_cast<std::size_t>(i)] = u & kMask;
    }
  }
}

int64_t GoRand::Int63() {
  if (--tap_ < 0) tap_ += kLen;
  if (--feed_ < 0) feed_ += kLen;
  const uint64_t x =
      (vec_[static_cast<std::size_t>(feed_)] + vec_[static_cast<std::size_t>(tap_)]) & kMask;
  vec_[static_cast<std::size_t>(feed_)] = x;
  return static_cast<int64_t>(x);
}

int64_t GoRand::Int63n(int64_t n) {
  if ((n & (n - 1)) == 0) return Int63() & (n - 1);
  const auto max = static_cast<int64_t>((uint64_t{1} << 63) - 1 -
                                        (uint64_t{1} << 63) % static_cast<uint64_t>(n));
  int64_t v = Int63();
  while (v > max) v = Int63();
  return v % n;
}

int32_t GoRand::Int31n(int32_t n) {
  if ((n & (n - 1)) == 0) return Int31() & (n - 1);
  const auto max = static_cast<int32_t>((uint32_t{1} << 31) - 1 -
                                        (uint32_t{1} << 31) % static_cast<uint32_t>(n));
  int32_t v = Int31();
  while (v > max) v = Int31();
  return v % n;
}

int32_t GoRand::int31n(int32_t n) {
  uint32_t v = Uint32();
  uint64_t prod = static_cast<uint64_t>(v) * static_cast<uint64_t>(n);
  auto low = static_cast<uint32_t>(prod);
  if (low < static_cast<uint32_t>(n)) {
    const uint32_t thresh = (0u - static_cast<uint32_t>(n)) % static_cast<uint32_t>(n);
    while (low < thresh) {
      v = Uint32();
      prod = static_cast<uint64_t>(v) * static_cast<uint64_t>(n);
      low = static_cast<uint32_t>(prod);
    }
  }
  return static_cast<int32_t>(prod >> 32);
}

double GoRand::Float64() {
  for (;;) {
    const double f = static_cast<double>(Int63()) / 9223372036854775808.0;
    if (f != 1) return f;
  }
}

std::vector<int> GoRand::Perm(int n) {
  std::vector<int> m(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto j = static_cast<int>(Intn(i + 1));
    m[static_cast<std::size_t>(i)] = m[static_cast<std::size_t>(j)];
    m[static_cast<std::size_t>(j)] = i;
  }
  return m;
}

}  // namespace frugal::pack
