// Internal to damka's own libraries: what another library needs to extend the
// C API (damka.h) on the same handle and with the same error reporting (the
// statutes library adds damka_judge_statute_fen this way).  Not for users.
#pragma once

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>

#include "damka.h"
#include "damka/position.hpp"
#include "damka/probe.hpp"

struct damka_tablebase {
  std::unique_ptr<damka::Tablebase> tb;
};

namespace damka::capi {

// Records `message` for damka_last_error() and returns s.
damka_status fail(damka_status s, std::string_view message) noexcept;

// The C status of an error's code, the one mapping both C APIs use:
// NotFound DAMKA_UNKNOWN (a table the answer needs is missing), Io
// DAMKA_E_IO, Corrupt DAMKA_E_CORRUPT, InvalidArgument DAMKA_E_BAD_ARGUMENT,
// InvalidPosition DAMKA_E_INVALID_POSITION, Other DAMKA_E_INTERNAL.
damka_status status_of(ErrorCode code) noexcept;
// Records e's message and returns status_of(e.code()).
damka_status fail(const Error& e) noexcept;

// Parses a FEN under the handle's rules (DAMKA_E_BAD_FEN when it cannot be read).
damka_status read_fen(const damka_tablebase* h, const char* fen, Position& p);

// Runs f, turning exceptions into statuses.
template <class F>
damka_status guarded(F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return fail(DAMKA_E_NO_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(DAMKA_E_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(DAMKA_E_INTERNAL, "internal error");
  }
}

}  // namespace damka::capi
