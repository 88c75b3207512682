// A whole text file, for the headers of run logs (robot model, task) and the like.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace rfms {

// The file's text, or "" when it cannot be read (callers that must have it check first).
inline std::string readTextFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace rfms
