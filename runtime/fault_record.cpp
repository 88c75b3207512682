#include "runtime/fault_record.hpp"

#include <google/protobuf/text_format.h>

#include "common/mail_names.hpp"
#include "common/text_file.hpp"

namespace rfms {

RunLogHeader clusterLogHeader(const NodeContext& c, const std::string& task_text) {
  const ClusterSettings& s = c.settings;
  RunLogHeader header;
  header.source = "cluster";
  header.robot_name = c.model.name;
  header.robot_model_text = readTextFile(s.config.robot());
  if (!s.config.scene().empty()) header.scene_text = readTextFile(s.config.scene());
  google::protobuf::TextFormat::PrintToString(s.config, &header.cluster_config_text);
  header.task_text = task_text;
  header.clock = clockName(s.config.clock());
  header.settings = c.controller();
  return header;
}

std::unique_ptr<FaultRecorder> openFaultRecorder(const NodeContext& c, const std::string& node) {
  RunLogHeader header = clusterLogHeader(c);
  header.source = "cluster fault record of " + node;
  return std::make_unique<FaultRecorder>(c.options.run_dir, node, std::move(header), c.log);
}

void takeFaultNotice(FaultRecorder* recorder, const proto::Envelope& control) {
  if (recorder == nullptr || !control.has_fault()) return;
  recorder->fault(control.fault().period(), describe(control.fault().reason()), nodeName(control.fault().node()));
}

}  // namespace rfms
