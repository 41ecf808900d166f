// read_small_file: see env.hpp.
#include <string>

#include "damka/env.hpp"

namespace damka {

Expected<std::string> read_small_file(Env& env, const std::filesystem::path& path, std::uint64_t max_bytes) {
  auto file = env.open_read(path);
  if (!file) return file.error();
  auto info = (*file)->info();
  if (!info) return info.error();
  if (!info->regular) return Error("not a regular file", ErrorCode::InvalidArgument);
  if (info->size > max_bytes)
    return Error("larger than " + std::to_string(max_bytes) + " bytes", ErrorCode::InvalidArgument);
  std::string text(static_cast<std::size_t>(info->size), '\0');
  if (Status s = (*file)->read(0, text.size(), text.data()); !s.ok()) return s.error();
  return text;
}

}  // namespace damka
