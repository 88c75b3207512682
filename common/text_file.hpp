// Whole text files: the files a user names (robot model, cluster file, task), and the copies a
// run log's header keeps of them.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include "common/error.hpp"

namespace rfms {

// The file's text, or "" when it cannot be read (callers that must have it check first).
inline std::string readTextFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A file the user named as `what` ("robot model file"): its whole text, or a ConfigError naming
// the path and why not: missing, unreadable, a directory (which opens as an empty stream and
// would read as an empty file), or larger than any such file has reason to be (a regular file by
// its size, anything else as it is read).
inline std::string loadTextFile(const std::string& path, const std::string& what,
                                std::uintmax_t limit = std::uintmax_t{64} << 20) {
  const std::string cannot = path + ": cannot open " + what + ": ";
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec) throw ConfigError(cannot + ec.message());
  if (std::filesystem::is_directory(status)) throw ConfigError(cannot + "it is a directory");
  if (std::filesystem::is_regular_file(status)) {
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > limit)
      throw ConfigError(cannot + "it has " + std::to_string(size) + " bytes, more than the " + std::to_string(limit) +
                        " such a file may have");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(cannot + std::strerror(errno));
  // Read in pieces up to the limit: a device or a pipe (/dev/zero) has no size to check first.
  std::string text;
  char piece[65536];
  while (in.read(piece, sizeof piece) || in.gcount() > 0) {
    text.append(piece, static_cast<std::size_t>(in.gcount()));
    if (text.size() > limit)
      throw ConfigError(cannot + "it goes on past the " + std::to_string(limit) + " bytes such a file may have");
  }
  return text;
}

}  // namespace rfms
