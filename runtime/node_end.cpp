#include "runtime/node_end.hpp"

#include <google/protobuf/util/json_util.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

namespace rfms {

std::filesystem::path nodeEndPath(const std::string& run_dir, const std::string& node) {
  return std::filesystem::path(run_dir) / (node + ".end.json");
}

std::string writeNodeEnd(const std::string& run_dir, const std::string& node, const proto::NodeEnd& end) {
  google::protobuf::util::JsonPrintOptions options;
  // proto2: what was set is written, the cause's zero (STOPPED) included; what a node does not
  // know (a joint, the arm's power) is left out.
  options.preserve_proto_field_names = true;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(end, &json, options).ok()) return "cannot write it as JSON";
  const std::filesystem::path path = nodeEndPath(run_dir, node), part = path.string() + ".part";
  {
    std::ofstream out(part, std::ios::trunc);
    out << json << '\n';
    if (!out.flush()) return part.string() + ": " + std::strerror(errno);
  }
  std::error_code ec;
  std::filesystem::rename(part, path, ec);
  return ec ? path.string() + ": " + ec.message() : "";
}

}  // namespace rfms
