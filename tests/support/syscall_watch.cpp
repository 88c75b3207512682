#include "tests/support/syscall_watch.hpp"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

namespace rfms::test {

namespace {

std::string nameOf(int nr) {
  switch (nr) {
    case SYS_read: return "read";
    case SYS_write: return "write";
    case SYS_readv: return "readv";
    case SYS_writev: return "writev";
    case SYS_pread64: return "pread64";
    case SYS_pwrite64: return "pwrite64";
    case SYS_futex: return "futex";
    case SYS_poll: return "poll";
    case SYS_ppoll: return "ppoll";
    case SYS_select: return "select";
    case SYS_pselect6: return "pselect6";
    case SYS_epoll_wait: return "epoll_wait";
    case SYS_epoll_pwait: return "epoll_pwait";
    case SYS_epoll_pwait2: return "epoll_pwait2";
    case SYS_clock_nanosleep: return "clock_nanosleep";
    case SYS_nanosleep: return "nanosleep";
    case SYS_clock_gettime: return "clock_gettime";
    case SYS_gettimeofday: return "gettimeofday";
    case SYS_sched_yield: return "sched_yield";
    case SYS_getpid: return "getpid";
    case SYS_gettid: return "gettid";
    case SYS_sendto: return "sendto";
    case SYS_recvfrom: return "recvfrom";
    case SYS_sendmsg: return "sendmsg";
    case SYS_recvmsg: return "recvmsg";
    case SYS_openat: return "openat";
    case SYS_close: return "close";
    case SYS_mmap: return "mmap";
    case SYS_munmap: return "munmap";
    case SYS_mprotect: return "mprotect";
    case SYS_madvise: return "madvise";
    case SYS_brk: return "brk";
    case SYS_ioctl: return "ioctl";
    case SYS_fstat: return "fstat";
    case SYS_newfstatat: return "newfstatat";
    case SYS_lseek: return "lseek";
    case SYS_fsync: return "fsync";
    case SYS_fdatasync: return "fdatasync";
    case SYS_rt_sigprocmask: return "rt_sigprocmask";
    case SYS_rt_sigaction: return "rt_sigaction";
    case SYS_getrusage: return "getrusage";
    case SYS_sched_setscheduler: return "sched_setscheduler";
    case SYS_clone: return "clone";
    case SYS_clone3: return "clone3";
    case SYS_exit: return "exit";
    default: return "syscall " + std::to_string(nr);
  }
}

// What a descriptor is, as /proc tells: "eventfd", "pipe", "socket", "tty", "file".
std::string kindOf(unsigned long long fd) {
  std::error_code ec;
  const std::string target = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(fd), ec).string();
  if (ec) return "closed";
  if (target.find("eventfd") != std::string::npos) return "eventfd";
  if (target.rfind("pipe:", 0) == 0) return "pipe";
  if (target.rfind("socket:", 0) == 0) return "socket";
  if (target.rfind("/dev/pts", 0) == 0 || target.rfind("/dev/tty", 0) == 0) return "tty";
  if (target.rfind("anon_inode:", 0) == 0) return target.substr(11);
  return "file";
}

}  // namespace

std::string SyscallWatch::describe(int nr, unsigned long long fd_arg) {
  std::string name = nameOf(nr);
  switch (nr) {
    case SYS_read:
    case SYS_write:
    case SYS_readv:
    case SYS_writev:
    case SYS_pread64:
    case SYS_pwrite64: return name + " " + kindOf(fd_arg);
    default: return name;
  }
}

int SyscallWatch::watchThisThread(const std::string& name, std::string* why) {
  // The slot and its listener come first: once the filter is on, this thread's next call waits
  // for the listener, so nothing between the filter and the return may make one.
  Slot* slot = nullptr;
  int number = 0;
  {
    std::lock_guard lock(mutex_);
    if (count_ == kMaxSlots) {
      if (why != nullptr) *why = "more threads than the watch has places for";
      return -1;
    }
    number = count_++;
    slots_[static_cast<std::size_t>(number)] = std::make_unique<Slot>();
    slot = slots_[static_cast<std::size_t>(number)].get();
  }
  slot->name = name;
  slot->tid = static_cast<int>(gettid());
  slot->listener = std::thread([this, slot] { listen(*slot); });
  // No new privileges is the price of a filter without CAP_SYS_ADMIN; it is this thread's alone.
  long fd = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ? -1 : 0;
  if (fd == 0) {
    sock_filter every[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF)};
    sock_fprog program{1, every};
    fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
  }
  const int error = errno;
  slot->fd.store(fd < 0 ? -2 : static_cast<int>(fd));  // the listener starts, or ends
  if (fd >= 0) return number;
  if (why != nullptr) *why = std::string("seccomp user notification refused: ") + std::strerror(error);
  return -1;
}

void SyscallWatch::listen(Slot& s) {
  int fd = -1;
  while ((fd = s.fd.load()) == -1) std::this_thread::sleep_for(std::chrono::microseconds(200));
  if (fd < 0) return;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, 100);
    if (ready == 0 && stopping_.load()) break;                  // the watched thread outlived the watch
    if (ready == 0 || (ready < 0 && errno == EINTR)) continue;  // a lockstep period may wait long
    if (ready < 0 || (p.revents & POLLIN) == 0) break;          // POLLHUP: no thread uses the filter
    seccomp_notif request;
    std::memset(&request, 0, sizeof request);
    if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) {
      if (errno == EINTR || errno == ENOENT) continue;  // ENOENT: the caller was interrupted
      break;
    }
    if (static_cast<int>(request.pid) == s.tid && s.on.load()) {
      const std::string what = describe(static_cast<int>(request.data.nr), request.data.args[0]);
      std::lock_guard lock(s.mutex);
      ++s.calls[what];
    }
    seccomp_notif_resp response;
    std::memset(&response, 0, sizeof response);
    response.id = request.id;
    response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &response);  // ENOENT: the caller went meanwhile
  }
  close(fd);
}

SyscallWatch::~SyscallWatch() {
  stopping_.store(true);
  for (auto& s : slots_)
    if (s != nullptr && s->listener.joinable()) s->listener.join();
}

std::map<std::string, long> SyscallWatch::calls(int slot) const {
  const Slot& s = *slots_[static_cast<std::size_t>(slot)];
  std::lock_guard lock(s.mutex);
  return s.calls;
}

int SyscallWatch::slots() const {
  std::lock_guard lock(mutex_);
  return count_;
}

}  // namespace rfms::test
