// A status file kept fresh by a thread of its own, so that the period's thread never formats text
// or touches the file system: every `every`, and once more when destroyed, `text()` is written to
// `path` through a temporary file and a rename (a reader never sees half a file). `text()` runs on
// the writer's thread and must read only what is safe to read from there (atomics, snapshots).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace rfms {

class StatusWriter {
 public:
  StatusWriter(std::string path, std::function<std::string()> text,
               std::chrono::milliseconds every = std::chrono::seconds(1));
  ~StatusWriter();
  StatusWriter(const StatusWriter&) = delete;
  StatusWriter& operator=(const StatusWriter&) = delete;

 private:
  void write() const;

  std::string path_;
  std::function<std::string()> text_;
  std::chrono::milliseconds every_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace rfms
