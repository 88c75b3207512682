// A task request as the supervisor receives it from the bridge (any bytes that parse as one, with
// an operator's role): the remote desk and the supervisor core must answer, never crash, and a
// refusal's reason stays bounded.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/robot_model_loader.hpp"
#include "supervisor/remote_desk.hpp"
#include "supervisor/supervisor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const rfms::RobotModel model = rfms::loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/puma260.textproto");
  rfms::Supervisor core(model, rfms::SupervisorConfig{});
  rfms::RemoteDesk desk(model, rfms::SupervisorConfig{});
  // The input is a sequence of requests, each preceded by its length (one byte).
  std::uint64_t k = 1;
  for (std::size_t at = 0; at < size;) {
    const std::size_t n = std::min<std::size_t>(data[at], size - at - 1);
    ++at;
    rfms::proto::TaskRequest r;
    if (r.ParseFromArray(data + at, static_cast<int>(n))) {
      if (r.role() == rfms::proto::CR_NONE) r.set_role(rfms::proto::CR_OPERATOR);
      const rfms::proto::TaskReply reply = desk.accept(r, core.background(), k++);
      if (reply.reason().size() > 4096) std::abort();
      // Every refusal says its kind, and nothing accepted carries one.
      if (reply.accepted() != (reply.code() == rfms::proto::RC_NONE)) std::abort();
      rfms::SupervisorInbox in;
      in.period = k;
      rfms::SupervisorOutbox out;
      core.step(in, out);
      desk.observe(k, in, out);
      rfms::proto::ArmStatus status;
      desk.watchStatus(r.session(), k, status);
    }
    at += n;
  }
  return 0;
}
