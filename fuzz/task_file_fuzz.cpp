// A task file, as rfms-sim, the supervisor (--task) and rfms-client read it: parsed, and every
// statement that parses handed to the supervisor as a request. Only ConfigError is an answer.
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "common/task_file.hpp"
#include "fuzz/fuzz_input.hpp"
#include "supervisor/supervisor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const rfms::RobotModel model = rfms::loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/puma260.textproto");
  std::vector<rfms::TaskStatement> task;
  try {
    task = rfms::parseTaskFile(rfms::fuzz::text(data, size), "fuzz.task");
  } catch (const rfms::ConfigError&) {
    return 0;
  }
  rfms::Supervisor core(model, rfms::SupervisorConfig{});
  for (const rfms::TaskStatement& s : task)
    if (s.kind == rfms::TaskStatement::kRequest) core.handle(s.request);
  return 0;
}
