#include "storage/files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

namespace frugal::storage {
namespace fs = std::filesystem;

namespace {

std::string errno_text(const std::string& what, const std::string& path) {
  return fmt::format("{} {}: {}", what, path, std::strerror(errno));
}

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

std::string hex(const unsigned char* md, unsigned int len) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 0xf]);
  }
  return out;
}

using Ctx = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

Ctx new_ctx() {
  Ctx ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) ctx.reset();
  return ctx;
}

std::string finish(Ctx& ctx) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx.get(), md.data(), &len) != 1) return {};
  return hex(md.data(), len);
}

Status copy_file(const std::string& src, const std::string& dst) {
  const Fd in(::open(src.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) return Error{errno_text("open", src)};
  struct stat st {};
  if (::fstat(in.fd, &st) != 0) return Error{errno_text("stat", src)};
  const Fd out(::open(dst.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 0777));
  if (out.fd < 0) return Error{errno_text("create", dst)};
  std::vector<char> buf(1 << 20);
  for (;;) {
    const ssize_t n = ::read(in.fd, buf.data(), buf.size());
    if (n < 0) return Error{errno_text("read", src)};
    if (n == 0) break;
    for (ssize_t off = 0; off < n;) {
      const ssize_t w = ::write(out.fd, buf.data() + off, static_cast<size_t>(n - off));
      if (w < 0) return Error{errno_text("write", dst)};
      off += w;
    }
  }
  if (::fsync(out.fd) != 0) return Error{errno_text("fsync", dst)};
  return {};
}

Status copy_dir(const std::string& src, const std::string& dst) {
  std::error_code ec;
  if (!fs::create_directory(dst, ec) || ec)
    return Error{fmt::format("mkdir {}: {}", dst, ec ? ec.message() : "exists")};
  std::vector<fs::directory_entry> entries;
  for (fs::directory_iterator it(src, ec), end; !ec && it != end; it.increment(ec))
    entries.push_back(*it);
  if (ec) return Error{fmt::format("list {}: {}", src, ec.message())};
  for (const auto& e : entries) {
    const std::string to = dst + "/" + e.path().filename().string();
    const Status s = e.is_directory()        ? copy_dir(e.path().string(), to)
                     : e.is_regular_file(ec) ? copy_file(e.path().string(), to)
                                             : Status{};
    if (!s.ok()) return s;
  }
  return fsync_path(dst);
}

}  // namespace

Result<std::string> sha256_file(const std::string& path) {
  const Fd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) return Error{errno_text("open", path)};
  Ctx ctx = new_ctx();
  if (!ctx) return Error{"sha256: OpenSSL init failed"};
  std::vector<char> buf(1 << 20);
  for (;;) {
    const ssize_t n = ::read(in.fd, buf.data(), buf.size());
    if (n < 0) return Error{errno_text("read", path)};
    if (n == 0) break;
    if (EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(n)) != 1)
      return Error{"sha256: update failed"};
  }
  return finish(ctx);
}

Result<std::vector<std::string>> list_files(const std::string& root) {
  std::error_code ec;
  const fs::file_status st = fs::status(root, ec);
  if (ec || !fs::exists(st)) return Error{fmt::format("{} does not exist", root)};
  std::vector<std::string> out;
  if (fs::is_regular_file(st)) {
    out.push_back(fs::path(root).filename().string());
    return out;
  }
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_symlink())  // never followed: it could reach data outside the folder
      return Error{fmt::format("{} is a symbolic link (not followed: copy the data in)",
                               it->path().string())};
    if (it->is_regular_file()) out.push_back(fs::relative(it->path(), root).generic_string());
  }
  if (ec) return Error{fmt::format("list {}: {}", root, ec.message())};
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::string> tree_checksum(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return sha256_file(path);
  auto files = list_files(path);
  if (!files.ok()) return files.error();
  Ctx ctx = new_ctx();
  if (!ctx) return Error{"sha256: OpenSSL init failed"};
  for (const std::string& rel : files.value()) {
    auto h = sha256_file(path + "/" + rel);
    if (!h.ok()) return h.error();
    const std::string line = rel + '\0' + h.value() + '\n';
    EVP_DigestUpdate(ctx.get(), line.data(), line.size());
  }
  return finish(ctx);
}

Result<TreeSignature> tree_signature(const std::string& path) {
  TreeSignature sig;
  auto add = [&sig](const std::string& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return false;
    if (S_ISREG(st.st_mode)) {
      sig.bytes += static_cast<uint64_t>(st.st_size);
      ++sig.files;
    }
    const int64_t ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    sig.newest_mtime_ns = std::max(sig.newest_mtime_ns, ns);
    return true;
  };
  if (!add(path)) return Error{errno_text("stat", path)};
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return sig;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (!add(it->path().string())) return Error{errno_text("stat", it->path().string())};
  if (ec) return Error{fmt::format("list {}: {}", path, ec.message())};
  return sig;
}

Status copy_tree(const std::string& src, const std::string& dst) {
  std::error_code ec;
  if (fs::exists(dst, ec)) return Error{fmt::format("{} already exists", dst)};
  const Status s = fs::is_directory(src, ec) ? copy_dir(src, dst) : copy_file(src, dst);
  if (!s.ok()) return s;
  return fsync_parent(dst);
}

Status fsync_path(const std::string& path) {
  const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.fd < 0) return Error{errno_text("open", path)};
  if (::fsync(fd.fd) != 0) return Error{errno_text("fsync", path)};
  return {};
}

Status fsync_parent(const std::string& path) {
  return fsync_path(parent_of(path));
}

Status rename_path(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    return Error{fmt::format("rename {} -> {}: {}", from, to, std::strerror(errno))};
  if (Status s = fsync_parent(to); !s.ok()) return s;
  return fsync_parent(from);
}

Status remove_tree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) return Error{fmt::format("remove {}: {}", path, ec.message())};
  return {};
}

Status make_dirs(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Error{fmt::format("mkdir {}: {}", path, ec.message())};
  return {};
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string parent_of(const std::string& path) {
  const std::string p = fs::path(path).parent_path().string();
  return p.empty() ? "." : p;
}

}  // namespace frugal::storage
