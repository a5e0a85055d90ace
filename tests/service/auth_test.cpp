// Token hashing and bearer authentication.

#include "service/auth.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

TEST(Auth, Sha256MatchesKnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("alpha-dev-token"),
            "96b19de18b9c05f8b1befddab64f030fe3203ba6f76814ce9b690eec08f5f8ce");
}

TEST(Auth, BearerTokensMapToTeamsOrAdmin) {
  const Authenticator a({{sha256_hex("ta"), "alpha"}, {sha256_hex("tb"), "beta"}},
                        sha256_hex("root"));
  const auto alpha = a.authenticate("Bearer ta");
  ASSERT_TRUE(alpha);
  EXPECT_EQ(alpha->team, "alpha");
  EXPECT_FALSE(alpha->admin);
  EXPECT_TRUE(alpha->may_access("alpha"));
  EXPECT_FALSE(alpha->may_access("beta"));
  const auto admin = a.authenticate("Bearer root");
  ASSERT_TRUE(admin);
  EXPECT_TRUE(admin->admin);
  EXPECT_TRUE(admin->may_access("beta"));
  EXPECT_FALSE(a.authenticate(""));
  EXPECT_FALSE(a.authenticate("Bearer "));
  EXPECT_FALSE(a.authenticate("Bearer tc"));
  EXPECT_FALSE(a.authenticate("Basic ta"));
  // The scheme's case does not matter (RFC 9110 §11.1); the token's does.
  ASSERT_TRUE(a.authenticate("bearer ta"));
  EXPECT_EQ(a.authenticate("BEARER ta")->team, "alpha");
  EXPECT_FALSE(a.authenticate("Bearer TA"));
  EXPECT_FALSE(a.authenticate("Bearerta"));
}

TEST(Auth, NoAdminTokenMeansNoAdmin) {
  const Authenticator a({{sha256_hex("ta"), "alpha"}}, "");
  EXPECT_FALSE(a.authenticate("Bearer "));
  EXPECT_FALSE(a.authenticate("Bearer x"));
}

}  // namespace
}  // namespace frugal
