#include "view/desk_api.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "client/remote_task.hpp"
#include "client/rfms_client.hpp"
#include "client/task_link.hpp"
#include "common/error.hpp"
#include "common/refusal.hpp"
#include "common/task_file.hpp"
#include "common/thread_role.hpp"

namespace rfms::view {

namespace {

using Json = nlohmann::json;
constexpr std::size_t kMostWaiting = 4;  // commands waiting for one worker
constexpr std::size_t kMostSignals = 16;
// The page jogs by steps only (a page that loses its connection must not leave a jog running), each
// at most this large.
constexpr double kMostJogRad = 10.0 * M_PI / 180.0, kMostJogM = 0.010;
constexpr int kMostJogCounts = 1000;

HttpReply error(int status, const std::string& why) {
  return {status, Json{{"error", why}}.dump(-1, ' ', false, Json::error_handler_t::replace)};
}
HttpReply ok(Json more = Json::object()) {
  more["ok"] = true;
  return {200, more.dump(-1, ' ', false, Json::error_handler_t::replace)};
}

}  // namespace

std::unique_ptr<RfmsClient> bridgeClient(const std::string& bridge, const std::string& key) {
  ClientOptions o;
  o.bridge = bridge;
  o.key_file = key;
  return std::make_unique<RfmsClient>(o);
}

// One link client and the thread that uses it: commands run in order, one at a time.
struct DeskApi::Worker {
  using Job = std::function<HttpReply(RfmsClient&)>;
  Worker(std::string bridge, std::string key) : bridge_(std::move(bridge)), key_(std::move(key)) {
    thread_ = std::thread([this] {
      nameThisThread("rfms-desk-work");
      run();
    });
  }
  ~Worker() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  // False when too many are waiting already.
  bool post(Job job, HttpAnswer answer) {
    std::lock_guard lock(mutex_);
    if (jobs_.size() >= kMostWaiting) return false;
    jobs_.emplace_back(std::move(job), std::move(answer));
    wake_.notify_one();
    return true;
  }

 private:
  void run() {
    std::unique_ptr<RfmsClient> client;
    for (;;) {
      std::pair<Job, HttpAnswer> next;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
        if (stopping_) break;
        next = std::move(jobs_.front());
        jobs_.pop_front();
      }
      try {
        if (!client) client = bridgeClient(bridge_, key_);
        next.second(next.first(*client));
      } catch (const RequestRefused& e) {
        next.second(error(409, e.what()));
      } catch (const Error& e) {
        client.reset();  // a link that failed is made again for the next command
        next.second(error(502, e.what()));
      }
    }
    // Commands still waiting are answered, not left hanging.
    for (auto& [job, answer] : jobs_) answer(error(503, "rfms-view is stopping"));
  }

  std::string bridge_, key_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::pair<Job, HttpAnswer>> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

DeskApi::DeskApi(DeskApiOptions options, std::shared_ptr<spdlog::logger> log,
                 std::function<void(std::vector<MailSignal>)> watch)
    : options_(std::move(options)), log_(std::move(log)), watch_(std::move(watch)) {
  if (options_.bridge.empty()) return;
  if (!options_.observer_key.empty()) stopper_ = std::make_unique<Worker>(options_.bridge, options_.observer_key);
  if (!options_.operator_key.empty()) operator_ = std::make_unique<Worker>(options_.bridge, options_.operator_key);
}

DeskApi::~DeskApi() = default;

void DeskApi::handle(const HttpRequest& r, const HttpAnswer& answer) {
  if (r.path == "/api/info") {
    if (r.method != "GET") return answer(error(405, "info: GET"));
    return answer(ok({{"stop", stopper_ != nullptr}, {"operator", operator_ != nullptr}}));
  }
  if (r.method != "POST") return answer(error(405, r.path + ": POST"));
  if (r.path == "/api/stop") {
    if (!stopper_) return answer(error(503, "rfms-view has no link to the cluster's bridge (no bridge, or no key)"));
    if (!stopper_->post([](RfmsClient& c) { return c.stop(), ok(); }, answer))
      answer(error(503, "too many commands waiting"));
    return;
  }
  if (r.path == "/api/watch") {
    const Json j = Json::parse(r.body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("signals") || !j["signals"].is_array() ||
        j["signals"].size() > kMostSignals)
      return answer(error(400, "watch: {\"signals\": [up to 16 names]}"));
    std::vector<MailSignal> signals;
    for (const Json& n : j["signals"]) {
      if (!n.is_string()) return answer(error(400, "watch: signal names are strings"));
      try {
        signals.push_back(parseMailSignal(n.get<std::string>()));
      } catch (const ConfigError& e) {
        return answer(error(400, e.what()));
      }
    }
    watch_(std::move(signals));
    return answer(ok());
  }
  if (r.path == "/api/calibrate" || r.path == "/api/jog" || r.path == "/api/task") return operatorCommand(r, answer);
  answer(error(404, r.path + ": no such command"));
}

void DeskApi::operatorCommand(const HttpRequest& r, const HttpAnswer& answer) {
  if (!operator_) return answer(error(403, "rfms-view was started without an operator key (--operator-key)"));
  if (!sameToken(r.token, options_.token))
    return answer(error(403, "this command needs the token rfms-view printed when it started"));
  Worker::Job job;
  if (r.path == "/api/calibrate") {
    job = [](RfmsClient& c) {
      c.beginTask("rfms-view");
      c.calibrate();
      c.endTask();
      return ok();
    };
  } else if (r.path == "/api/jog") {
    // The task file's jog statement, e.g. "jog 2 + angle 1": one grammar wherever a user jogs.
    proto::TaskRequest jog;
    try {
      jog = parseTaskLine(r.body);
    } catch (const ConfigError& e) {
      return answer(error(400, e.what()));
    }
    const proto::Control& c = jog.control();
    const bool step = (c.counts() > 0 && c.counts() <= kMostJogCounts) ||
                      (c.angle() > 0.0 && c.angle() <= kMostJogRad) ||
                      (c.distance() > 0.0 && c.distance() <= kMostJogM);
    if (!jog.has_control() || c.command() != proto::CC_JOG || !step)
      return answer(error(400, "jog: one step, e.g. 'jog 2 + angle 1': up to 1000 counts, 10 deg or 10 mm"));
    job = [jog](RfmsClient& client) {
      client.beginTask("rfms-view");
      const proto::TaskReply reply = client.wire().send(jog);
      client.endTask();
      return reply.accepted() ? ok() : error(409, "refused: " + refusalText(reply));
    };
  } else {
    std::vector<TaskStatement> task;
    try {
      task = parseTaskFile(r.body, "the page's task");
    } catch (const ConfigError& e) {
      return answer(error(400, e.what()));
    }
    job = [task = std::move(task)](RfmsClient& c) {
      const RemoteTaskResult result = runRemoteTask(c, task, "rfms-view");
      if (!result.ok())
        return error(409, !result.failure.empty() ? result.failure : "refused: " + result.refused.front());
      return ok({{"requests", result.requests}, {"moves", result.moves}, {"seconds", result.seconds}});
    };
  }
  log_->info("operator command from the page: {}", r.path);
  if (!operator_->post(std::move(job), answer)) answer(error(503, "too many commands waiting"));
}

std::string makeToken() {
  std::random_device random;
  std::string t;
  for (int i = 0; i < 8; ++i) {
    char b[9];
    std::snprintf(b, sizeof b, "%08x", random());
    t += b;
  }
  return t;
}

}  // namespace rfms::view
