#include "io/catalog_yaml.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace frugal {
namespace {

const char* kRequired[] = {"H200", "H100",      "A100-80GB", "A100-40GB", "L40S", "L4", "A10",
                           "T4",   "V100-32GB", "V100-16GB", "P100",      "G2",   "G3"};

GpuCatalog builtin() {
  auto r = load_builtin_catalog();
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : GpuCatalog{};
}

TEST(CatalogYaml, BuiltinHasEveryRequiredModel) {
  const GpuCatalog cat = builtin();
  for (const char* name : kRequired) {
    auto id = cat.find(name);
    ASSERT_TRUE(id.has_value()) << name;
    const GpuModel& m = cat.at(*id);
    EXPECT_EQ(m.name, name);
    EXPECT_GT(m.memory_mib, 0) << name;
    EXPECT_FALSE(m.source.empty()) << name;
    for (double s : m.speed) EXPECT_TRUE(std::isfinite(s) && s > 0) << name;
  }
}

TEST(CatalogYaml, BuiltinReferenceAndMemory) {
  const GpuCatalog cat = builtin();
  const GpuModel& a100 = cat.at(*cat.find("A100-80GB"));
  EXPECT_EQ(a100.memory_mib, 80 * 1024);
  for (double s : a100.speed) EXPECT_DOUBLE_EQ(s, 1.0);
  EXPECT_EQ(cat.at(*cat.find("H200")).memory_mib, 141 * 1024);
  EXPECT_EQ(cat.at(*cat.find("T4")).memory_mib, 16 * 1024);
  // Newer is faster for training.
  const auto h100 = *cat.find("H100");
  const auto v100 = *cat.find("V100-32GB");
  EXPECT_GT(cat.relative_speed(h100, v100, JobClass::kPretrain), 1.0);
}

TEST(CatalogYaml, BuiltinHasPowerAndRentalForEveryModel) {
  const GpuCatalog cat = builtin();
  ASSERT_GT(cat.size(), 0u);
  for (const GpuModel& m : cat.models()) {
    EXPECT_GT(m.idle_w, 0) << m.name;
    EXPECT_GE(m.peak_w, m.idle_w) << m.name;
    EXPECT_LE(m.idle_w, 0.25 * m.peak_w) << m.name;  // idle is ~10-25% of TDP
    EXPECT_GT(m.on_demand_usd_h, 0) << m.name;
    EXPECT_GT(m.reserved_usd_h, 0) << m.name;
    EXPECT_LT(m.reserved_usd_h, m.on_demand_usd_h) << m.name;
    EXPECT_FALSE(m.price_source.empty()) << m.name;
  }
}

TEST(CatalogYaml, BuiltinPowerAndPriceFigures) {
  const GpuCatalog cat = builtin();
  auto model = [&](const char* name) -> const GpuModel& { return cat.at(*cat.find(name)); };
  // Board TDPs from the NVIDIA datasheets.
  EXPECT_DOUBLE_EQ(model("H100").peak_w, 700);
  EXPECT_DOUBLE_EQ(model("H200").peak_w, 700);
  EXPECT_DOUBLE_EQ(model("A100-80GB").peak_w, 400);
  EXPECT_DOUBLE_EQ(model("A100-40GB").peak_w, 400);
  EXPECT_DOUBLE_EQ(model("L40S").peak_w, 350);
  EXPECT_DOUBLE_EQ(model("L4").peak_w, 72);
  EXPECT_DOUBLE_EQ(model("A10").peak_w, 150);
  EXPECT_DOUBLE_EQ(model("T4").peak_w, 70);
  EXPECT_DOUBLE_EQ(model("V100-32GB").peak_w, 300);
  EXPECT_DOUBLE_EQ(model("P100").peak_w, 250);
  // AWS list prices per GPU-hour: p5.48xlarge / 8, p4d.24xlarge / 8, g4dn.xlarge.
  EXPECT_NEAR(model("H100").on_demand_usd_h, 98.32 / 8, 0.01);
  EXPECT_NEAR(model("A100-40GB").on_demand_usd_h, 32.77 / 8, 0.01);
  EXPECT_NEAR(model("T4").on_demand_usd_h, 0.526, 0.001);
  // Reserved is the on-demand price less the assumed ~40% commitment discount.
  for (const GpuModel& m : cat.models())
    EXPECT_NEAR(m.reserved_usd_h, 0.6 * m.on_demand_usd_h, 0.001) << m.name;
  // G2 and G3 follow their assumed equivalents.
  EXPECT_DOUBLE_EQ(model("G2").peak_w, model("A10").peak_w);
  EXPECT_DOUBLE_EQ(model("G2").on_demand_usd_h, model("A10").on_demand_usd_h);
  EXPECT_DOUBLE_EQ(model("G3").peak_w, model("A100-80GB").peak_w);
  EXPECT_DOUBLE_EQ(model("G3").on_demand_usd_h, model("A100-80GB").on_demand_usd_h);
}

TEST(CatalogYaml, AliasesResolve) {
  const GpuCatalog cat = builtin();
  struct Case {
    const char* alias;
    const char* canonical;
  };
  const Case cases[] = {
      {"A100", "A100-80GB"},          {"a100", "A100-80GB"},    {"H100-80GB", "H100"},
      {"H100-SXM", "H100"},           {"V100M16", "V100-16GB"}, {"V100", "V100-16GB"},
      {"v100m32", "V100-32GB"},       {"A10", "A10"},           {"g2", "G2"},
      {"A100-SXM4-80GB", "A100-80GB"}};
  for (const auto& c : cases) {
    auto id = cat.find(c.alias);
    ASSERT_TRUE(id.has_value()) << c.alias;
    EXPECT_EQ(cat.at(*id).name, c.canonical) << c.alias;
  }
  EXPECT_FALSE(cat.find("K80").has_value());
}

const char* kPowerRental =
    "power: {idle_w: 1, peak_w: 2}, rental: {on_demand_usd_h: 1, reserved_usd_h: 0.5}";

const char* kGood = R"(
models:
  - name: X1
    aliases: [x-one]
    memory_gib: 12.5
    speed: {pretrain: 0.5, finetune: 0.6, eval: 0.7, preprocess: 0.8}
    source: test
    power: {idle_w: 10.5, peak_w: 100}
    rental: {on_demand_usd_h: 2.5, reserved_usd_h: 1.5}
    price_source: test prices
)";

TEST(CatalogYaml, ParsesMinimalCatalog) {
  auto r = parse_catalog_yaml(kGood, "t.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const GpuCatalog& cat = r.value();
  ASSERT_EQ(cat.size(), 1u);
  const GpuModel& m = cat.at(0);
  EXPECT_EQ(m.memory_mib, 12800);
  EXPECT_DOUBLE_EQ(m.speed[static_cast<int>(JobClass::kEval)], 0.7);
  EXPECT_EQ(cat.find("X-ONE"), GpuModelId{0});
  EXPECT_DOUBLE_EQ(m.idle_w, 10.5);
  EXPECT_DOUBLE_EQ(m.peak_w, 100);
  EXPECT_DOUBLE_EQ(m.power_w(0.5), 55.25);
  EXPECT_DOUBLE_EQ(m.on_demand_usd_h, 2.5);
  EXPECT_DOUBLE_EQ(m.reserved_usd_h, 1.5);
  EXPECT_EQ(m.price_source, "test prices");
}

// Parses `text`, expects failure, returns the message.
std::string error_of(const std::string& text) {
  auto r = parse_catalog_yaml(text, "bad.yaml");
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error().message;
}

TEST(CatalogYaml, RejectsGarbage) {
  const std::string msg = error_of("models: [ {name: X, ]]]: \n  - {{");
  EXPECT_NE(msg.find("bad.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line"), std::string::npos) << msg;
  EXPECT_NE(error_of("just some text").find("expected a map"), std::string::npos);
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  EXPECT_NE(error_of("\x01\x02\xff{[").find("bad.yaml"), std::string::npos);
}

TEST(CatalogYaml, RejectsMissingSpeedClass) {
  const std::string msg = error_of(R"(
models:
  - name: X
    memory_gib: 16
    speed: {pretrain: 1, finetune: 1, eval: 1}
)");
  EXPECT_NE(msg.find("models[0] (X).speed.preprocess"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
}

TEST(CatalogYaml, RejectsNegativeMemory) {
  const std::string msg = error_of(R"(
models:
  - name: X
    memory_gib: -16
    speed: {pretrain: 1, finetune: 1, eval: 1, preprocess: 1}
)");
  EXPECT_NE(msg.find("memory_gib"), std::string::npos) << msg;
  EXPECT_NE(msg.find("-16"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 4"), std::string::npos) << msg;
}

TEST(CatalogYaml, RejectsBadSpeeds) {
  EXPECT_NE(error_of(R"(
models:
  - {name: X, memory_gib: 1, speed: {pretrain: 0, finetune: 1, eval: 1, preprocess: 1}}
)")
                .find("speed.pretrain"),
            std::string::npos);
  EXPECT_NE(error_of(R"(
models:
  - {name: X, memory_gib: 1, speed: {pretrain: .nan, finetune: 1, eval: 1, preprocess: 1}}
)")
                .find("finite"),
            std::string::npos);
  EXPECT_NE(error_of(R"(
models:
  - {name: X, memory_gib: 1, speed: {pretrain: fast, finetune: 1, eval: 1, preprocess: 1}}
)")
                .find("expected a number"),
            std::string::npos);
}

// One model "X" with the given power and rental bodies (flow maps, or "" to leave it out).
std::string with_power_rental(const std::string& power, const std::string& rental) {
  std::string s =
      "models:\n  - name: X\n    memory_gib: 1\n"
      "    speed: {pretrain: 1, finetune: 1, eval: 1, preprocess: 1}\n";
  if (!power.empty()) s += "    power: " + power + "\n";
  if (!rental.empty()) s += "    rental: " + rental + "\n";
  return s;
}

const char* kPower = "{idle_w: 10, peak_w: 100}";
const char* kRental = "{on_demand_usd_h: 2, reserved_usd_h: 1}";

void expect_error(const std::string& text, const std::string& needle) {
  const std::string msg = error_of(text);
  EXPECT_NE(msg.find(needle), std::string::npos) << "message: " << msg << "\nwanted: " << needle;
}

TEST(CatalogYaml, ParsesPowerAndRentalEdgeValues) {
  auto r = parse_catalog_yaml(
      with_power_rental("{idle_w: 0, peak_w: 0}", "{on_demand_usd_h: 0, reserved_usd_h: 0}"),
      "t.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_DOUBLE_EQ(r.value().at(0).power_w(1), 0);
  EXPECT_TRUE(r.value().at(0).price_source.empty());
}

TEST(CatalogYaml, RejectsMissingPowerOrRental) {
  expect_error(with_power_rental("", kRental), "models[0] (X).power: required field is missing");
  expect_error(with_power_rental(kPower, ""), "models[0] (X).rental: required field is missing");
  expect_error(with_power_rental("{idle_w: 10}", kRental),
               "models[0] (X).power.peak_w: required field is missing");
  expect_error(with_power_rental(kPower, "{on_demand_usd_h: 2}"),
               "models[0] (X).rental.reserved_usd_h: required field is missing");
  expect_error(with_power_rental("300", kRental), "power: expected a map");
}

TEST(CatalogYaml, RejectsBadPower) {
  expect_error(with_power_rental("{idle_w: -1, peak_w: 100}", kRental),
               "power.idle_w: must be between 0 and 100000, got -1");
  expect_error(with_power_rental("{idle_w: 10, peak_w: .inf}", kRental),
               "power.peak_w: must be a finite number");
  expect_error(with_power_rental("{idle_w: 10, peak_w: .nan}", kRental),
               "power.peak_w: must be a finite number");
  expect_error(with_power_rental("{idle_w: 200, peak_w: 100}", kRental),
               "power.peak_w: must be >= idle_w (200), got 100");
  expect_error(with_power_rental("{idle_w: 10, peak_w: 100, tdp: 100}", kRental),
               "power: unknown key(s) 'tdp'");
}

TEST(CatalogYaml, RejectsBadRental) {
  expect_error(with_power_rental(kPower, "{on_demand_usd_h: -2, reserved_usd_h: 1}"),
               "rental.on_demand_usd_h: must be between 0 and");
  expect_error(with_power_rental(kPower, "{on_demand_usd_h: 2, reserved_usd_h: -.inf}"),
               "rental.reserved_usd_h: must be a finite number");
  expect_error(with_power_rental(kPower, "{on_demand_usd_h: cheap, reserved_usd_h: 1}"),
               "rental.on_demand_usd_h: expected a number");
  expect_error(with_power_rental(kPower, "{on_demand_usd_h: 2, reserved_usd_h: 1, spot: 1}"),
               "rental: unknown key(s) 'spot'");
}

TEST(CatalogYaml, RejectsDuplicateNames) {
  const std::string speed =
      "speed: {pretrain: 1, finetune: 1, eval: 1, preprocess: 1}, " + std::string(kPowerRental);
  std::string msg = error_of("models:\n  - {name: X, memory_gib: 1, " + speed +
                             "}\n  - {name: x, memory_gib: 1, " + speed + "}\n");
  EXPECT_NE(msg.find("already used by model 'X'"), std::string::npos) << msg;
  msg = error_of("models:\n  - {name: X, memory_gib: 1, " + speed +
                 "}\n  - {name: Y, aliases: [Z, X], memory_gib: 1, " + speed + "}\n");
  EXPECT_NE(msg.find("models[1] (Y)"), std::string::npos) << msg;
}

TEST(CatalogYaml, RejectsUnknownKeys) {
  const std::string msg = error_of(R"(
models:
  - name: X
    memory_gib: 1
    tflops: 100
    speed: {pretrain: 1, finetune: 1, eval: 1, preprocess: 1, train: 2}
)");
  EXPECT_NE(msg.find("'tflops'"), std::string::npos) << msg;
  EXPECT_NE(error_of("modles: []").find("'modles'"), std::string::npos);
  EXPECT_NE(error_of(R"(
models:
  - {name: X, memory_gib: 1, speed: {pretrain: 1, finetune: 1, eval: 1, preprocess: 1, t: 2}}
)")
                .find("'t'"),
            std::string::npos);
}

TEST(CatalogYaml, RejectsEmptyAndBadNames) {
  EXPECT_NE(error_of("models: []").find("no models"), std::string::npos);
  EXPECT_NE(error_of(R"(
models:
  - {name: "A B", memory_gib: 1, speed: {pretrain: 1, finetune: 1, eval: 1, preprocess: 1}}
)")
                .find("must not contain"),
            std::string::npos);
}

TEST(CatalogYaml, LoadFile) {
  auto ok = load_catalog_file(FRUGAL_SOURCE_DIR "/data/catalog/gpus.yaml");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok.value().size(), builtin().size());
  auto missing = load_catalog_file("/nonexistent/gpus.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent/gpus.yaml"), std::string::npos);
}

}  // namespace
}  // namespace frugal
