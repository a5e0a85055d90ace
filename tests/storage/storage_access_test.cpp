// One writer at a time (storage_manager.h): a second writer on the same database is refused,
// naming the lock file, until the first is gone; a reader opens beside a writer, sees its
// records, and refuses every change. The CLI opens its read-only commands as readers, so
// `frugal storage du` works while a writer (the service) holds the lock and `dataset add`
// says why it cannot.

#include <sys/wait.h>

#include <cstdlib>

#include "storage_fixture.h"

namespace frugal::storage::testing {
namespace {

class StorageAccess : public StorageTest {};

TEST_F(StorageAccess, SecondWriterIsRefusedUntilTheFirstCloses) {
  auto first = open_manager();
  ASSERT_TRUE(first);
  auto second = StorageManager::open(config, db_path);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find(db_path + ".storage-lock"), std::string::npos)
      << second.error().message;
  EXPECT_NE(second.error().message.find("held by another process"), std::string::npos);
  first.reset();
  auto third = StorageManager::open(config, db_path);
  EXPECT_TRUE(third.ok()) << (third.ok() ? "" : third.error().message);
}

TEST_F(StorageAccess, ReaderSeesTheWritersRecordsAndChangesNothing) {
  auto writer = open_manager();
  ASSERT_TRUE(writer);
  write_file(root + "/src/a.txt", "alpha");
  ASSERT_TRUE(writer->add_dataset("d@1", root + "/src", "team-a", 100).ok());
  auto reader = StorageManager::open(config, db_path, {}, Access::reader);
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  StorageManager& r = *reader.value();
  EXPECT_EQ(r.access(), Access::reader);
  EXPECT_EQ(writer->access(), Access::writer);
  ASSERT_TRUE(r.find_dataset("d@1").ok());
  EXPECT_EQ(r.view().datasets, 1);
  const auto read_only = [](const std::string& message) {
    return message.find("opened read-only") != std::string::npos;
  };
  auto add = r.add_dataset("e@1", root + "/src", "team-a", 101);
  ASSERT_FALSE(add.ok());
  EXPECT_TRUE(read_only(add.error().message)) << add.error().message;
  auto staged = r.stage("d@1", "node-0", "7", 0, 1, 102);
  ASSERT_FALSE(staged.ok());
  EXPECT_TRUE(read_only(staged.error().message));
  EXPECT_FALSE(r.release("7", 103).ok());
  EXPECT_FALSE(r.remove_dataset("d@1", 50).ok());
  EXPECT_FALSE(r.scan_checkpoints("7", "team-a", job_dir("7"), 1000).ok());
  EXPECT_FALSE(r.run_lifecycle(104, [](const std::string&) { return true; }).ok());
  EXPECT_FALSE(r.restore_newest("7", 3000).ok());
  EXPECT_FALSE(r.recover().ok());
  EXPECT_FALSE(r.gc(false, 105, [](const std::string&) { return true; }).ok());
  EXPECT_TRUE(r.gc(true, 105, [](const std::string&) { return true; }).ok());
  // Nothing changed: still one dataset, nothing staged.
  EXPECT_EQ(writer->view().datasets, 1);
  EXPECT_EQ(writer->view().staged, 0);
}

TEST_F(StorageAccess, CliReadsBesideAWriterAndRefusesToWrite) {
  const std::string cfg = root + "/serve.yaml";
  write_file(cfg, fmt::format("db: {}\nstorage:\n  enabled: true\n  tiers:\n"
                              "    hot: {{path: {}/hot}}\n    warm: {{path: {}/warm}}\n"
                              "    cold: {{path: {}/cold}}\n",
                              db_path, root, root, root));
  auto writer = open_manager();
  ASSERT_TRUE(writer);
  write_file(root + "/src/a.txt", "alpha");
  const std::string bin = FRUGAL_BINARY;
  const std::string log = root + "/cli.log";
  const auto run = [&](const std::string& args) {
    const std::string cmd =
        fmt::format("'{}' storage --config '{}' {} >'{}' 2>&1", bin, cfg, args, log);
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(run("du --json"), 0) << read_file(log);
  EXPECT_EQ(run("dataset ls"), 0) << read_file(log);
  EXPECT_EQ(run(fmt::format("dataset add d@1 '{}/src'", root)), 1);
  EXPECT_NE(read_file(log).find("held by another process"), std::string::npos) << read_file(log);
  writer.reset();
  EXPECT_EQ(run(fmt::format("dataset add d@1 '{}/src'", root)), 0) << read_file(log);
}

}  // namespace
}  // namespace frugal::storage::testing
