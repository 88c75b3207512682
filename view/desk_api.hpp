// The view's API for its page (POST under /api/), through the RoboNet link like any client's:
//   stop                     anyone: the arm stops, as `rfms-client stop` (the run's observer key)
//   calibrate, jog, task     the operator's, and only with the token rfms-view printed at start
//                            (header X-RFMS-Token); without it, or when rfms-view was given no
//                            operator key, 403
//   watch {"signals": [...]} the signals the desk plots (the names `rfms-client watch` takes),
//                            read from the mail the view already has; a bad name is 400
//   GET info                 what this view allows
// Each command runs on a worker thread of its own kind (stop never waits behind a task), and at
// most a few wait for their worker: more are refused with 503. Answers are JSON:
// {"ok": true, ...} or {"error": "..."}.
#pragma once

#include <spdlog/spdlog.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/mail_signal.hpp"
#include "view/foxglove_server.hpp"

namespace rfms {
class RfmsClient;
}

namespace rfms::view {

struct DeskApiOptions {
  std::string bridge;        // the run's bridge, host:port; empty: no link, commands answer 503
  std::string observer_key;  // for stop
  std::string operator_key;  // for calibrate, jog and task; empty: they answer 403
  std::string token;         // what an operator's request must carry
};

class DeskApi {
 public:
  // `watch` is given the parsed signals on the server's thread.
  DeskApi(DeskApiOptions options, std::shared_ptr<spdlog::logger> log,
          std::function<void(std::vector<MailSignal>)> watch);
  ~DeskApi();
  DeskApi(const DeskApi&) = delete;
  DeskApi& operator=(const DeskApi&) = delete;

  // On the server's thread; the answer may come later, from a worker.
  void handle(const HttpRequest& request, const HttpAnswer& answer);

 private:
  struct Worker;
  void operatorCommand(const HttpRequest& request, const HttpAnswer& answer);

  DeskApiOptions options_;
  std::shared_ptr<spdlog::logger> log_;
  std::function<void(std::vector<MailSignal>)> watch_;
  std::unique_ptr<Worker> stopper_, operator_;
};

// A link client of the run's bridge with `key`, as the view's workers and its status poll use.
std::unique_ptr<RfmsClient> bridgeClient(const std::string& bridge, const std::string& key);

// A fresh token: 32 hexadecimal digits from the system's random source.
std::string makeToken();

}  // namespace rfms::view
