// Reading and joining `frugal report`'s documents (io/report_input.h).

#include "io/report_input.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace frugal {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ReportInput : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: ctest runs this suite's cases as parallel processes.
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / (std::string("frugal_report_input_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(ReportInput, ReadsADocument) {
  auto doc = read_report_document(write("a.json", R"({"runs": [{"policy": "fifo"}]})"));
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(doc.value()["runs"][0]["policy"], "fifo");
  EXPECT_TRUE(read_report_document(write("b.json", R"({"policy": "fifo"})")).ok());
  EXPECT_TRUE(
      read_report_document(write("c.json", R"({"groups": [{"name": "g", "runs": [{}]}]})")).ok());
}

TEST_F(ReportInput, ErrorsNameTheFile) {
  const auto error = [](const std::string& path) {
    auto doc = read_report_document(path);
    return doc.ok() ? std::string("<ok>") : doc.error().message;
  };
  const std::string missing = (dir_ / "missing.json").string();
  EXPECT_EQ(error(missing), missing + ": cannot read");
  const std::string bad = write("bad.json", "{\"runs\": [\n  {\"policy\": fifo}]}");
  EXPECT_NE(error(bad).find(bad + ": not JSON: parse error at line 2, column 15"),
            std::string::npos)
      << error(bad);
  for (const char* text : {R"({"runs": []})", R"({"groups": []})", "[]", R"({"x": 1})",
                           R"({"groups": [{"name": "g", "runs": []}]})"}) {
    const std::string p = write("empty.json", text);
    EXPECT_NE(error(p).find(p + ": holds no run"), std::string::npos) << text << ": " << error(p);
  }
}

TEST_F(ReportInput, JoinsRunsOrGroupsInOrder) {
  const json a = {{"runs", {{{"policy", "fifo"}}, {{"policy", "sjf"}}}}};
  const json b = {{"policy", "frugal"}};
  auto one = join_report_documents({a}, {"a"});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one.value(), a);  // one document: as it is
  auto runs = join_report_documents({a, b}, {"a", "b"});
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs.value(), (json{{"runs", {{{"policy", "fifo"}}, {{"policy", "sjf"}}, b}}}));
  const json g1 = {{"groups", {{{"name", "x"}, {"runs", {b}}}}}};
  const json g2 = {{"groups", {{{"name", "y"}, {"runs", {b}}}}}};
  auto groups = join_report_documents({g1, g2}, {"g1", "g2"});
  ASSERT_TRUE(groups.ok());
  EXPECT_EQ(groups.value()["groups"].size(), 2u);
  EXPECT_EQ(groups.value()["groups"][1]["name"], "y");
  auto mixed = join_report_documents({a, g1}, {"a.json", "g1.json"});
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.error().message.find("g1.json is grouped and a.json is not"), std::string::npos)
      << mixed.error().message;
}

}  // namespace
}  // namespace frugal
