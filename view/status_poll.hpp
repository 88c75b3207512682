// The supervisor's status as the view reads it: a thread of its own asks the run's bridge for it
// (the observer key, like `rfms-client status`) a few times a second and keeps the world model
// and the running move it describes (display/world_picture.hpp) for the next picture. The link
// is the only way to them: they live in the supervisor's background, not in any mail. A bridge
// that does not answer costs only the frames it would have given; the poll goes on trying.
#pragma once

#include <spdlog/spdlog.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "display/world_picture.hpp"

namespace rfms::view {

class StatusPoll {
 public:
  StatusPoll(std::string bridge, std::string key, std::shared_ptr<spdlog::logger> log,
             std::chrono::milliseconds every = std::chrono::milliseconds(200));
  ~StatusPoll();
  StatusPoll(const StatusPoll&) = delete;
  StatusPoll& operator=(const StatusPoll&) = delete;

  // The newest status's picture, or nullopt until one came (or while the link is down).
  std::optional<display::WorldPicture> newest() const;

 private:
  void run();

  std::string bridge_, key_;
  std::shared_ptr<spdlog::logger> log_;
  std::chrono::milliseconds every_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::optional<display::WorldPicture> newest_;
  std::thread thread_;
};

}  // namespace rfms::view
