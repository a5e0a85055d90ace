// The policy registry (policy/registry.h) and typed options (framework/options.h): every
// entry builds, every policy string that parsed before the registry still parses to the same
// pipeline, and option errors name the item.
#include <gtest/gtest.h>

#include "framework/options.h"
#include "policy/profile.h"
#include "policy/registry.h"

namespace frugal {
namespace {

using Kind = PolicyEntry::Kind;

TEST(Registry, EveryProfileBuildsWithEveryPlacerAndSuffix) {
  for (const std::string& name : profile_names()) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(make_profile(name).ok());
    for (const std::string& placer : policy_entry_names(Kind::kPlacer))
      EXPECT_TRUE(make_profile(name + "/" + placer).ok()) << placer;
    for (const std::string& suffix : profile_options())
      EXPECT_TRUE(make_profile(name + "+" + suffix).ok()) << suffix;
  }
}

// The pipelines the if/else chain built before the registry (Profile::describe()), for
// strings of each form: a change here changes every report that prints a profile.
TEST(Registry, PipelinesAreThoseOfTheOldParser) {
  const std::pair<const char*, const char*> cases[] = {
      {"fifo",
       "sort=arrival admit=capacity filter=model-constraint place=bestfit postfilter=strict "
       "preempt=none"},
      {"backfill/firstfit+consolidate",
       "sort=arrival admit=capacity filter=model-constraint place=firstfit "
       "postfilter=easy-backfill preempt=none consolidate=consolidate"},
      {"las",
       "sort=las admit=capacity filter=model-constraint place=bestfit postfilter=skip "
       "preempt=priority-order"},
      {"backfill/hetero",
       "sort=arrival admit=capacity filter=hetero place=ordered(bestfit) "
       "postfilter=easy-backfill preempt=none"},
      {"timeshift:max_delay_s=3600",
       "sort=arrival admit=time-shift filter=model-constraint place=bestfit "
       "postfilter=easy-backfill preempt=none"},
      {"bestfit+tou+release",
       "sort=arrival admit=capacity filter=model-constraint place=bestfit postfilter=skip "
       "preempt=none elastic release tou"},
      {"frugal",
       "sort=tier-shortest admit=time-shift filter=sun(hetero-fast) place=sun(ordered(bestfit)) "
       "postfilter=easy-backfill preempt=tier-preempt consolidate=consolidate relay=sun elastic "
       "packdown soonfree release tou"},
      {"frugal:sun=0:tou=0:release=0:autoscale_first=1",
       "sort=tier-shortest admit=time-shift filter=hetero-fast place=ordered(bestfit) "
       "postfilter=easy-backfill preempt=tier-preempt consolidate=consolidate elastic packdown "
       "soonfree autoscale-first"},
      {"frugal:consolidate=0",
       "sort=tier-shortest admit=time-shift filter=sun(hetero-fast) place=sun(ordered(bestfit)) "
       "postfilter=easy-backfill preempt=tier-preempt relay=sun elastic packdown soonfree "
       "release tou"},
      {"frugal:consolidate=0+consolidate",
       "sort=tier-shortest admit=time-shift filter=sun(hetero-fast) place=sun(ordered(bestfit)) "
       "postfilter=easy-backfill preempt=tier-preempt consolidate=consolidate relay=sun elastic "
       "packdown soonfree release tou"},
      {"frugal:tou=0+tou",
       "sort=tier-shortest admit=time-shift filter=sun(hetero-fast) place=sun(ordered(bestfit)) "
       "postfilter=easy-backfill preempt=tier-preempt consolidate=consolidate relay=sun elastic "
       "packdown soonfree release tou"},
  };
  for (const auto& [policy, pipeline] : cases) {
    SCOPED_TRACE(policy);
    auto p = make_profile(policy);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p.value().describe(), pipeline);
    EXPECT_EQ(p.value().name, policy);
  }
}

TEST(Registry, ErrorsNameThePart) {
  EXPECT_EQ(make_profile("fifo:x=1").error().message, "policy 'fifo' takes no options");
  EXPECT_EQ(make_profile("timeshift:valley=2").error().message,
            "timeshift option 'valley=2': must be 0 or 1");
  EXPECT_EQ(make_profile("bestfit/worstfit").error().message,
            "unknown placement 'worstfit' in policy 'bestfit/worstfit'; known: firstfit, "
            "bestfit, hetero, hetero-fast");
  EXPECT_EQ(make_profile("bestfit+fast").error().message,
            "unknown option '+fast' in policy 'bestfit+fast'; known: +consolidate, +datasets, "
            "+elastic, +packdown, +release, +soonfree, +sun, +tou");
}

TEST(Registry, NamesAreUniquePerKindAndEveryEntryHasHelp) {
  for (const PolicyEntry& e : policy_registry()) {
    SCOPED_TRACE(e.name);
    EXPECT_FALSE(e.help.empty());
    EXPECT_EQ(find_policy_entry(e.kind, e.name), &e);
    EXPECT_EQ(e.kind == Kind::kProfile, static_cast<bool>(e.build));
    EXPECT_EQ(e.kind != Kind::kProfile, static_cast<bool>(e.apply));
    for (const OptionSpec& o : e.options) EXPECT_FALSE(o.help.empty()) << o.key;
  }
}

TEST(Options, ParseOverDefaultsWithTypedErrors) {
  const std::vector<OptionSpec> specs = {
      {"limit_s", OptionSpec::Type::kNumber, 60, 3600, "s", "a bound"},
      {"share", OptionSpec::Type::kNumber, 0.5, -1, "", "any number"},
      {"on", OptionSpec::Type::kFlag, 1, -1, "", "a flag"},
  };
  auto d = parse_options(specs, "", "test");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().number("limit_s"), 60);
  EXPECT_TRUE(d.value().flag("on"));
  EXPECT_FALSE(d.value().given("on"));
  auto v = parse_options(specs, "on=0::share=2.5", "test");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_FALSE(v.value().flag("on"));
  EXPECT_TRUE(v.value().given("on"));
  EXPECT_EQ(v.value().number("share"), 2.5);
  EXPECT_EQ(parse_options(specs, "limit_s=7200", "test").error().message,
            "test option 'limit_s=7200': at most 3600 s");
  EXPECT_EQ(parse_options(specs, "share=-1", "test").error().message,
            "test option 'share=-1': not a non-negative number");
  EXPECT_EQ(parse_options(specs, "share", "test").error().message,
            "test option 'share': expected key=value");
  EXPECT_EQ(parse_options(specs, "on=yes", "test").error().message,
            "test option 'on=yes': must be 0 or 1");
  EXPECT_EQ(parse_options(specs, "off=1", "test").error().message,
            "test option 'off': known keys limit_s, share, on");
  EXPECT_EQ(default_text(specs[1]), "0.5");
  EXPECT_EQ(default_text(specs[2]), "1");
}

}  // namespace
}  // namespace frugal
