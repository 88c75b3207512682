#include "runtime/status_writer.hpp"

#include <cstdio>
#include <fstream>

#include "common/thread_role.hpp"

namespace rfms {

StatusWriter::StatusWriter(std::string path, std::function<std::string()> text, std::chrono::milliseconds every)
    : path_(std::move(path)), text_(std::move(text)), every_(every) {
  thread_ = std::thread([this] {
    belowThePeriod("rfms-status", 10);  // it writes a file
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, every_, [this] { return stopping_; })) write();
  });
}

StatusWriter::~StatusWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
  write();
}

void StatusWriter::write() const {
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream out(tmp);
    out << text_();
    if (!out) return;  // a full disk must not stop the controller; the old status stays
  }
  std::rename(tmp.c_str(), path_.c_str());
}

}  // namespace rfms
