#include "common/thread_role.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace rfms {

void nameThisThread(const char* name) {
  char kept[16] = {};
  std::strncpy(kept, name, sizeof kept - 1);
  pthread_setname_np(pthread_self(), kept);
}

void belowThePeriod(const char* name, int nice) {
  nameThisThread(name);
  sched_param normal{};
  pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
  // Per thread on Linux: setpriority with a thread id changes that thread alone.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice);
}

}  // namespace rfms
