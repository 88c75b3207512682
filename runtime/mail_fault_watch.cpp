#include "runtime/mail_fault_watch.hpp"

#include <chrono>
#include <sstream>

#include "common/mail_names.hpp"

namespace rfms {

namespace {

std::string countsText(const MailPort::Faults& f) {
  std::ostringstream o;
  const char* sep = "";
  auto add = [&](const char* what, std::uint64_t n) {
    if (n == 0) return;
    o << sep << what << " " << n;
    sep = ", ";
  };
  add("corrupt", f.corrupt);
  add("malformed", f.malformed);
  add("disordered", f.disordered);
  add("impossible", f.impossible);
  return o.str();
}

}  // namespace

MailFaultWatch::MailFaultWatch(const MailPort& port, spdlog::logger& log)
    : port_(port), log_(log), thread_([this] {
        std::unique_lock lock(mutex_);
        while (!wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; })) {
          lock.unlock();
          report();
          lock.lock();
        }
      }) {}

MailFaultWatch::~MailFaultWatch() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void MailFaultWatch::report() {
  const std::lock_guard lock(mutex_);
  for (int i = 0; i < kBoxCount; ++i) {
    const Box b = static_cast<Box>(i);
    const MailPort::Faults f = port_.faults(b);
    std::uint64_t& seen = seen_[static_cast<std::size_t>(i)];
    if (f.damaged() == seen) continue;
    seen = f.damaged();
    const char* why = port_.firstImpossible(b);
    log_.warn("mail damaged in {} (written by {}): {} so far, each dropped unread{}{}", boxName(b),
              nodeName(writerOf(b)), countsText(f), why != nullptr ? "; the first impossible one held " : "",
              why != nullptr ? why : "");
  }
}

proto::MailFaults mailFaultsOf(const MailPort& port) {
  proto::MailFaults out;
  auto fill = [](const MailPort::Faults& f, proto::MailFaults& m) {
    if (f.lost != 0) m.set_lost(f.lost);
    if (f.corrupt != 0) m.set_corrupt(f.corrupt);
    if (f.torn != 0) m.set_torn(f.torn);
    if (f.malformed != 0) m.set_malformed(f.malformed);
    if (f.disordered != 0) m.set_disordered(f.disordered);
    if (f.impossible != 0) m.set_impossible(f.impossible);
    if (f.too_large != 0) m.set_too_large(f.too_large);
  };
  fill(port.faults(), out);
  for (int i = 0; i < kBoxCount; ++i) {
    const Box b = static_cast<Box>(i);
    const MailPort::Faults f = port.faults(b);
    if (f.unused() == 0) continue;
    proto::MailFaults& box = *out.add_by_box();
    box.set_box(boxName(b));
    fill(f, box);
    if (const char* why = port.firstImpossible(b)) box.set_first_impossible(why);
  }
  return out;
}

std::string mailDamageLine(const MailPort& port) {
  std::ostringstream o;
  o << "mail damaged: ";
  const char* sep = "";
  for (int i = 0; i < kBoxCount; ++i) {
    const Box b = static_cast<Box>(i);
    const MailPort::Faults f = port.faults(b);
    if (f.damaged() == 0) continue;
    o << sep << boxName(b) << " (" << countsText(f) << ")";
    sep = "; ";
  }
  if (*sep == '\0') o << "none";
  return o.str();
}

}  // namespace rfms
