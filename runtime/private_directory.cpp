#include "runtime/private_directory.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rfms {

std::string privateDirectoryProblem(const std::string& dir) {
  struct stat st {};
  // lstat: a symbolic link someone put in the directory's place is not this user's directory.
  if (lstat(dir.empty() ? "." : dir.c_str(), &st) != 0) return dir + " cannot be read: " + std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return dir + " is not a directory";
  if (st.st_uid != geteuid()) return dir + " belongs to user " + std::to_string(st.st_uid) + ", not to this one";
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return dir + " may be opened by other users (mode " + mode + "; chmod 700 it)";
  }
  return "";
}

}  // namespace rfms
