#pragma once
// Errors as values at API boundaries (in the manner of leveldb::Status).
// Error carries a human-readable message naming the file, line or field at fault.
// Result<T> holds either a value or an Error; callers must check ok() before value().

#include <string>
#include <utility>
#include <variant>

namespace frugal {

struct Error {
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  // Precondition: ok().
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  // Precondition: !ok().
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result<void> equivalent: an optional error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error e) : ok_(false), error_(std::move(e)) {}  // NOLINT(google-explicit-constructor)
  static Status Ok() { return Status(); }
  bool ok() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  bool ok_ = true;
  Error error_;
};

}  // namespace frugal
