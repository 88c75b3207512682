// Child processes for tests that start nodes: every one is killed when the group goes, so a
// failing test never leaves processes behind.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace rfms::test {

class ProcessGroup {
 public:
  ~ProcessGroup() {
    for (pid_t p : pids_) kill(p, SIGKILL);
    for (pid_t p : pids_) waitpid(p, nullptr, 0);
  }
  // Starts `argv` with stdout and stderr into `log`; returns its pid.
  pid_t start(const std::vector<std::string>& argv, const std::string& log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    if (posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&actions);
    if (pid > 0) pids_.push_back(pid);
    return pid;
  }
  // Waits up to `timeout` for `pid` to exit; its exit code, or -1 when it did not exit in time.
  int wait(pid_t pid, std::chrono::milliseconds timeout) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        forget(pid);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

 private:
  void forget(pid_t pid) {
    for (auto it = pids_.begin(); it != pids_.end(); ++it)
      if (*it == pid) {
        pids_.erase(it);
        return;
      }
  }
  std::vector<pid_t> pids_;
};

}  // namespace rfms::test
