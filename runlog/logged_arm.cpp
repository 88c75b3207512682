#include "runlog/logged_arm.hpp"

#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "common/text_proto.hpp"
#include "proto/scene.pb.h"

namespace rfms {

LoggedArm armOfHeader(const mcap::KeyValues& header) {
  const auto model_text = header.find("robot_model");
  if (model_text == header.end() || model_text->second.empty())
    throw ConfigError(
        "the log does not carry its robot model: the arm it drove cannot be rebuilt, to re-run or to show");
  LoggedArm arm{parseRobotModel(model_text->second, "the log's robot model"), Scene{}};
  if (const auto scene = header.find("scene"); scene != header.end() && !scene->second.empty()) {
    proto::Scene p;
    parseTextProto(scene->second, p, "the log's scene");
    arm.scene = sceneFromProto(p, "the log's scene");
  }
  return arm;
}

}  // namespace rfms
