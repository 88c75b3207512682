#include "client/remote_task.hpp"

#include "client/task_link.hpp"
#include "common/refusal.hpp"

#include <chrono>
#include <thread>

namespace rfms {

RemoteTaskResult runRemoteTask(RfmsClient& client, const std::vector<TaskStatement>& task, const std::string& name,
                               const RemoteTaskOptions& options) {
  RemoteTaskResult r;
  const auto start = std::chrono::steady_clock::now();
  auto done = [&] {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  };
  try {
    client.beginTask(name);
    if (options.calibrate) client.calibrate();
    const auto statements_began = std::chrono::steady_clock::now();
    for (const TaskStatement& s : task) {
      if (s.kind == TaskStatement::kWait) {
        client.waitAll(options.move_timeout_s);
        continue;
      }
      if (s.kind == TaskStatement::kAt) {
        std::this_thread::sleep_until(
            statements_began +
            std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s.at_s)));
        continue;
      }
      ++r.requests;
      const proto::TaskReply reply = client.wire().send(s.request);
      if (!reply.accepted())
        r.refused.push_back("line " + std::to_string(s.line) + ": " + refusalText(reply));
      else if (reply.move_id() > 0)
        r.moves.push_back(reply.move_id());
      if (reply.accepted() && !reply.warning().empty())
        r.warnings.push_back("line " + std::to_string(s.line) + ": " + reply.warning());
    }
    if (!r.moves.empty()) client.wait(r.moves.back(), options.move_timeout_s);
    client.endTask();
  } catch (const std::exception& e) {
    r.failure = e.what();
  }
  return done();
}

}  // namespace rfms
