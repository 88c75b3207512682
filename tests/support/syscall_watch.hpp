// Counts, by name, the system calls that chosen threads make, with the kernel's seccomp user
// notification: a thread that calls watchThisThread() installs a filter on itself that stops each
// of its system calls until the watch's listener has counted it and let it go on
// (SECCOMP_USER_NOTIF_FLAG_CONTINUE: the call itself is the kernel's, unchanged). It measures
// which calls a period thread makes, what `strace -f -c` tells of a whole process, per thread.
//
// The filter stays with the thread (and the threads it starts afterwards, whose calls are let
// through uncounted) until it ends, and every call costs the thread a round trip to the listener:
// watch threads of a test, not of a program. The watch must outlive the threads it watches.
#pragma once

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace rfms::test {

class SyscallWatch {
 public:
  SyscallWatch() = default;
  SyscallWatch(const SyscallWatch&) = delete;
  SyscallWatch& operator=(const SyscallWatch&) = delete;
  // Waits for the watched threads to end; a thread still running then has its later calls fail
  // (ENOSYS) once its listener has gone.
  ~SyscallWatch();

  // On the thread to watch: from now on its calls are counted while counting(slot) is on. The
  // slot's number, or -1 with the reason in `why` when the kernel refuses (no seccomp).
  int watchThisThread(const std::string& name, std::string* why = nullptr);
  // Counting on or off for a slot: a store, no system call, so the watched thread may flip it.
  void counting(int slot, bool on) { slots_[static_cast<std::size_t>(slot)]->on.store(on); }

  // What the slot's thread called while counting: "futex", "write eventfd", "openat", ...
  // (reads and writes carry what their descriptor is: eventfd, pipe, socket, file, tty).
  std::map<std::string, long> calls(int slot) const;
  const std::string& name(int slot) const { return slots_[static_cast<std::size_t>(slot)]->name; }
  int slots() const;

 private:
  struct Slot {
    std::string name;
    int tid = 0;
    std::atomic<int> fd{-1};  // -1: not yet filtered; -2: refused
    std::atomic<bool> on{false};
    mutable std::mutex mutex;  // the listener's, not the watched thread's
    std::map<std::string, long> calls;
    std::thread listener;
  };
  void listen(Slot& s);
  static std::string describe(int nr, unsigned long long fd_arg);

  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  // Fixed places: a slot's thread reads its own while others are being added.
  static constexpr int kMaxSlots = 64;
  std::array<std::unique_ptr<Slot>, kMaxSlots> slots_;
  int count_ = 0;
};

}  // namespace rfms::test
