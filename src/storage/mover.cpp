#include "storage/mover.h"

#include <fmt/format.h>

#include "storage/files.h"

namespace frugal::storage {

const char* move_step_name(MoveStep s) {
  switch (s) {
    case MoveStep::journal:
      return "journal";
    case MoveStep::copy:
      return "copy";
    case MoveStep::fsync:
      return "fsync";
    case MoveStep::verify:
      return "verify";
    case MoveStep::rename:
      return "rename";
    case MoveStep::record:
      return "record";
    case MoveStep::delete_source:
      return "delete_source";
    case MoveStep::finish:
      return "finish";
  }
  return "?";
}

Status Mover::abort_move(const MoveEntry& m, const std::string& why) {
  (void)remove_tree(m.tmp);
  if (m.state == "renamed-by-us") (void)remove_tree(m.dst);
  (void)db_.delete_move(m.id);
  return Error{why};
}

Status Mover::copy_and_verify(const FileSet& f, const MoveEntry& m, double now) {
  auto sig0 = tree_signature(f.path);
  if (!sig0.ok()) return abort_move(m, "move: source " + sig0.error().message);
  auto sum0 = tree_checksum(f.path);
  if (!sum0.ok()) return abort_move(m, "move: source " + sum0.error().message);
  step(MoveStep::copy);
  if (Status s = make_dirs(parent_of(m.dst)); !s.ok()) return abort_move(m, s.error().message);
  if (Status s = copy_tree(f.path, m.tmp); !s.ok()) return abort_move(m, s.error().message);
  step(MoveStep::fsync);
  if (Status s = fsync_path(m.tmp); !s.ok()) return abort_move(m, s.error().message);
  if (Status s = fsync_parent(m.tmp); !s.ok()) return abort_move(m, s.error().message);
  step(MoveStep::verify);
  auto sum1 = tree_checksum(m.tmp);
  if (!sum1.ok() || sum1.value() != sum0.value())
    return abort_move(
        m, fmt::format("move of {}: the copy's checksum does not match the source's", f.path));
  // The source unchanged since it was hashed: its signature (bytes, files, newest mtime in ns;
  // any write moves the newest mtime) rather than a third pass over its bytes.
  auto sig1 = tree_signature(f.path);
  if (!sig1.ok() || !(sig1.value() == sig0.value()))
    return abort_move(m, fmt::format("move of {} aborted: the source was modified while moving "
                                     "(kept where it was; the partial copy was removed)",
                                     f.path));
  FileSet moved = f;
  moved.checksum = sum0.value();
  step(MoveStep::rename);
  if (Status s = rename_path(m.tmp, m.dst); !s.ok()) return abort_move(m, s.error().message);
  MoveEntry renamed = m;
  renamed.state = "renamed-by-us";
  step(MoveStep::record);
  moved.path = m.dst;
  moved.tier = m.to_tier;
  moved.tier_since = now;
  if (Status s = db_.begin(); !s.ok()) return abort_move(renamed, s.error().message);
  // The bill in the same transaction: the source tier's interval closed, the transfer logged.
  Status s = db_.add_usage(f, now);
  if (s.ok()) s = db_.add_transfer(TransferRow{f.team, f.job, f.tier, m.to_tier, f.bytes, now});
  if (s.ok()) s = db_.update_fileset(moved);
  if (s.ok()) s = db_.set_move_state(m.id, "recorded");
  if (s.ok()) s = db_.commit();
  if (!s.ok()) {
    db_.rollback();
    return abort_move(renamed, s.error().message);
  }
  step(MoveStep::delete_source);
  auto sig2 = tree_signature(f.path);
  if (!sig2.ok() || !(sig2.value() == sig0.value())) {
    // Modified after the copy: undo the record, keep the source, drop the copy. Its interval
    // on the old tier restarts at `now` (the one closed at the record step stays billed); the
    // transfer stays logged (its bytes were read).
    FileSet back = f;
    back.tier_since = now;
    if (Status r = db_.update_fileset(back); !r.ok()) return r;
    return abort_move(renamed, fmt::format("move of {} aborted: the source was modified while "
                                           "moving (kept where it was; the copy was removed)",
                                           f.path));
  }
  if (Status r = remove_tree(f.path); !r.ok()) return r;  // recover() finishes it
  (void)fsync_parent(f.path);
  step(MoveStep::finish);
  return db_.delete_move(m.id);
}

Status Mover::move(int64_t id, const std::string& dst, const std::string& to_tier, double now) {
  const std::optional<FileSet> f = db_.fileset(id);
  if (!f) return Error{fmt::format("move: no file set {}", id)};
  if (!path_exists(f->path)) return Error{fmt::format("move: {} does not exist", f->path)};
  if (path_exists(dst)) return Error{fmt::format("move: {} already exists", dst)};
  step(MoveStep::journal);
  // dst is unique (it must not exist), so is its temporary sibling.
  MoveEntry m{0, id, f->path, dst, fmt::format("{}{}move", dst, kTmpInfix), to_tier, "started"};
  auto mid = db_.insert_move(m);
  if (!mid.ok()) return mid.error();
  m.id = mid.value();
  return copy_and_verify(*f, m, now);
}

Result<std::vector<std::string>> Mover::recover() {
  std::vector<std::string> done;
  for (const MoveEntry& m : db_.moves()) {
    const std::optional<FileSet> f = db_.fileset(m.fileset_id);
    const bool recorded = m.state == "recorded" && f && f->path == m.dst;
    if (recorded && path_exists(m.dst)) {
      if (Status s = remove_tree(m.src); !s.ok()) return s.error();
      (void)fsync_parent(m.src);
      (void)remove_tree(m.tmp);
      done.push_back(fmt::format("completed move {} -> {}", m.src, m.dst));
    } else {
      // Not recorded: the source is intact (never deleted before the record); drop the copy.
      (void)remove_tree(m.tmp);
      if (path_exists(m.src) && (!f || f->path == m.src)) (void)remove_tree(m.dst);
      done.push_back(fmt::format("rolled back move {} -> {}", m.src, m.dst));
    }
    if (Status s = db_.delete_move(m.id); !s.ok()) return s.error();
  }
  return done;
}

}  // namespace frugal::storage
