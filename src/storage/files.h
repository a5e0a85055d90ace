#pragma once
// File-system primitives of the storage manager: SHA-256 of files and folder trees, copies
// that fsync every file and folder, a tree's size and change signature. Errors name the path.

#include <cstdint>
#include <string>
#include <vector>

#include "model/result.h"

namespace frugal::storage {

// The infix of every temporary name the manager creates (recover() removes leftovers).
inline constexpr const char* kTmpInfix = ".frugal-tmp-";

// SHA-256 (hex) of one file's bytes.
Result<std::string> sha256_file(const std::string& path);

// A checksum of a file or folder: for a file its SHA-256; for a folder the SHA-256 over the
// sorted "relpath\0sha256\n" of every regular file under it.
Result<std::string> tree_checksum(const std::string& path);

// Regular files under `root` (or root itself when a file), as '/'-separated relpaths, sorted.
// A symbolic link under `root` is an error naming it (never followed: it could reach outside).
Result<std::vector<std::string>> list_files(const std::string& root);

// What changes when a tree is modified: total bytes, file count, newest mtime (ns).
struct TreeSignature {
  uint64_t bytes = 0;
  uint64_t files = 0;
  int64_t newest_mtime_ns = 0;
  bool operator==(const TreeSignature&) const = default;
};
Result<TreeSignature> tree_signature(const std::string& path);

// Copies a file or folder `src` to `dst` (which must not exist), fsyncing every file and
// folder written, and the parent of dst.
Status copy_tree(const std::string& src, const std::string& dst);

// fsync of one file or folder (by path).
Status fsync_path(const std::string& path);
// fsync of the folder holding `path`.
Status fsync_parent(const std::string& path);

// rename(2) then fsync of both parents.
Status rename_path(const std::string& from, const std::string& to);

// Removes a file or folder (recursively); absent is fine.
Status remove_tree(const std::string& path);

// mkdir -p.
Status make_dirs(const std::string& path);

bool path_exists(const std::string& path);

// The folder holding `path` ("/a/b" -> "/a").
std::string parent_of(const std::string& path);

}  // namespace frugal::storage
