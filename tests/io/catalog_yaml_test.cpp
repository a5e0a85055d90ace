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

const char* kGood = R"(
models:
  - name: X1
    aliases: [x-one]
    memory_gib: 12.5
    speed: {pretrain: 0.5, finetune: 0.6, eval: 0.7, preprocess: 0.8}
    source: test
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

TEST(CatalogYaml, RejectsDuplicateNames) {
  const std::string speed = "speed: {pretrain: 1, finetune: 1, eval: 1, preprocess: 1}";
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
