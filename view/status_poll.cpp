#include "view/status_poll.hpp"

#include <utility>

#include "client/rfms_client.hpp"
#include "client/task_link.hpp"
#include "common/error.hpp"
#include "common/thread_role.hpp"
#include "view/desk_api.hpp"

namespace rfms::view {

StatusPoll::StatusPoll(std::string bridge, std::string key, std::shared_ptr<spdlog::logger> log,
                       std::chrono::milliseconds every)
    : bridge_(std::move(bridge)), key_(std::move(key)), log_(std::move(log)), every_(every) {
  thread_ = std::thread([this] {
    nameThisThread("rfms-status-pol");
    run();
  });
}

StatusPoll::~StatusPoll() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

std::optional<display::WorldPicture> StatusPoll::newest() const {
  std::lock_guard lock(mutex_);
  return newest_;
}

void StatusPoll::run() {
  std::unique_ptr<RfmsClient> client;
  bool failing = false;  // said once per outage, not once per try
  for (;;) {
    std::chrono::milliseconds pause = every_;
    try {
      if (!client) client = bridgeClient(bridge_, key_);
      display::WorldPicture picture = display::worldPictureOf(client->wire().status());
      std::lock_guard lock(mutex_);
      newest_ = std::move(picture);
      if (failing) log_->info("the supervisor's status comes again: the world model's frames are back");
      failing = false;
    } catch (const Error& e) {
      client.reset();  // a link that failed is made again
      {
        std::lock_guard lock(mutex_);
        newest_.reset();
      }
      if (!failing) log_->warn("no status from the bridge ({}): the world model's frames wait for it", e.what());
      failing = true;
      pause = std::chrono::seconds(1);
    }
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, pause, [&] { return stopping_; })) return;
  }
}

}  // namespace rfms::view
