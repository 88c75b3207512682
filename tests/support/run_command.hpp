// Runs one of the project's programs as a user would: a child process with a time limit, its
// standard output, standard error and exit code.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

namespace rfms::test {

struct Outcome {
  int code = -1;  // exit code, -1 when killed or not run
  std::string out, err;
};

// `args` are appended to `exe` as written (quote them for the shell where needed).
inline Outcome runCommand(const std::string& exe, const std::string& args, int timeout_s = 60) {
  char err_path[] = "/tmp/rfms-test-err-XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd < 0) return {};
  close(fd);
  const std::string cmd = "timeout " + std::to_string(timeout_s) + " " + exe + " " + args + " 2>" + err_path;
  Outcome r;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    std::array<char, 4096> buf;
    while (std::size_t n = fread(buf.data(), 1, buf.size(), p)) r.out.append(buf.data(), n);
    const int status = pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  if (FILE* e = fopen(err_path, "r")) {
    std::array<char, 4096> buf;
    while (std::size_t n = fread(buf.data(), 1, buf.size(), e)) r.err.append(buf.data(), n);
    fclose(e);
  }
  std::remove(err_path);
  return r;
}

}  // namespace rfms::test
