// read_log (src/service/log_tail.h): whole, tail, offset, bounds, a file not written yet.

#include "service/log_tail.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace frugal {
namespace {

namespace fs = std::filesystem;

fs::path write(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

TEST(LogTail, WholeTailAndOffset) {
  const fs::path p = write("frugal_log_tail.out", "a\nbb\nccc\n");
  auto all = read_log(p, std::nullopt, std::nullopt, 1 << 20);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all.value().text, "a\nbb\nccc\n");
  EXPECT_EQ(all.value().size, 9);
  EXPECT_EQ(all.value().from, 0);
  EXPECT_EQ(all.value().to, 9);
  EXPECT_FALSE(all.value().truncated);
  EXPECT_EQ(read_log(p, std::nullopt, 2, 1 << 20).value().text, "bb\nccc\n");
  EXPECT_EQ(read_log(p, std::nullopt, 2, 1 << 20).value().from, 2);
  EXPECT_EQ(read_log(p, std::nullopt, 0, 1 << 20).value().text, "");
  EXPECT_EQ(read_log(p, std::nullopt, 10, 1 << 20).value().text, "a\nbb\nccc\n");
  EXPECT_EQ(read_log(p, int64_t{2}, std::nullopt, 1 << 20).value().text, "bb\nccc\n");
  EXPECT_EQ(read_log(p, int64_t{50}, std::nullopt, 1 << 20).value().text, "");
  // A last line without its newline is a line.
  const fs::path q = write("frugal_log_tail2.out", "x\ny");
  EXPECT_EQ(read_log(q, std::nullopt, 1, 1 << 20).value().text, "y");
  fs::remove(p);
  fs::remove(q);
}

TEST(LogTail, BoundedAndMarkedTruncated) {
  const fs::path p = write("frugal_log_tail3.out", "0123456789\n");
  auto end = read_log(p, std::nullopt, std::nullopt, 4).value();
  EXPECT_EQ(end.text, "789\n");
  EXPECT_EQ(end.from, 7);
  EXPECT_TRUE(end.truncated);
  auto head = read_log(p, int64_t{0}, std::nullopt, 4).value();
  EXPECT_EQ(head.text, "0123");
  EXPECT_EQ(head.to, 4);
  EXPECT_TRUE(head.truncated);  // more after `to`
  auto lines = read_log(p, std::nullopt, 5, 4).value();
  EXPECT_EQ(lines.text, "789\n");
  EXPECT_TRUE(lines.truncated);  // asked for more lines than the bound held
  fs::remove(p);
}

TEST(LogTail, NotWrittenYetIsEmpty) {
  auto r = read_log((fs::temp_directory_path() / "frugal_no_such.out").string(), std::nullopt,
                    std::nullopt, 100);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().size, 0);
  EXPECT_EQ(r.value().text, "");
}

}  // namespace
}  // namespace frugal
