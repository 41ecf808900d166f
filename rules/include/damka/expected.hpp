// Error handling without exceptions across library boundaries (leveldb-style
// Status, C++23-expected-style value-or-error).  Libraries never exit().
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace damka {

// What kind of failure an Error is, for callers that act differently on
// each (a probe retries after Io, never after Corrupt).  Every layer that
// turns an Error into something else (a C status, a Python exception, an
// exit code, an HTTP answer) maps this code, never the message text.  The
// numbers are stable (new codes are added at the end).
enum class ErrorCode : std::uint8_t {
  Other = 0,            // a check that failed, an internal limit, ... (none of the below)
  NotFound = 1,         // a file or directory that does not exist; a table the answer needs is missing
  Io = 2,               // an operating-system or resource failure that may pass (EMFILE, EIO,
                        // ENOMEM, EACCES, ...): nothing is known to be wrong with the data
  Corrupt = 3,          // the data itself is wrong: checksum, size or structure
  InvalidArgument = 4,  // the caller's input is wrong: an unknown name (variant, rulebook,
                        // clause), a bad number, text that cannot be read (a FEN, a game)
  InvalidPosition = 5,  // a position no table can answer (probeable(), probe.hpp): overlapping
                        // pieces, a man on its own promotion row, more than 12 pieces a side,
                        // or the side not to move has no pieces (the game is over)
};

// "other", "not found", "i/o error", "corrupt", "invalid argument", "invalid position".
constexpr const char* error_code_name(ErrorCode c) {
  switch (c) {
    case ErrorCode::Other: return "other";
    case ErrorCode::NotFound: return "not found";
    case ErrorCode::Io: return "i/o error";
    case ErrorCode::Corrupt: return "corrupt";
    case ErrorCode::InvalidArgument: return "invalid argument";
    case ErrorCode::InvalidPosition: return "invalid position";
  }
  return "other";
}

class Error {
 public:
  Error() = default;
  explicit Error(std::string message, ErrorCode code = ErrorCode::Other)
      : message_(std::move(message)), code_(code) {}
  const std::string& message() const { return message_; }
  ErrorCode code() const { return code_; }

 private:
  std::string message_;
  ErrorCode code_ = ErrorCode::Other;
};

// Status: success, or an Error with a message.
class Status {
 public:
  Status() = default;
  Status(Error e) : error_(std::move(e)), ok_(false) {}  // NOLINT(google-explicit-constructor)
  static Status ok_status() { return Status(); }
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const std::string& message() const { return error_.message(); }
  const Error& error() const { return error_; }
  ErrorCode code() const { return error_.code(); }  // meaningful when !ok()

 private:
  Error error_;
  bool ok_ = true;
};

// A value of type T, or an Error.
template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Expected(Error e) : v_(std::move(e)) {}      // NOLINT(google-explicit-constructor)
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { assert(!ok()); return std::get<1>(v_); }
  const std::string& message() const { return error().message(); }
  ErrorCode code() const { return error().code(); }
  Status status() const { return ok() ? Status() : Status(error()); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace damka
