// A cluster node's run-log header and its fault recorder (runlog/fault_recorder.hpp): every node
// keeps its last periods of mail and writes them into its run directory when the supervisor
// declares an emergency (proto::FaultNotice on the control box), or when it goes safe on its own
// (the supervisor silent for the orphan timeout).
#pragma once

#include <memory>
#include <string>

#include "runlog/fault_recorder.hpp"
#include "runlog/run_logger.hpp"
#include "runtime/node_main.hpp"

namespace rfms {

// The header of a cluster's log, with every setting needed to run the same controller again.
RunLogHeader clusterLogHeader(const NodeContext& c, const std::string& task_text = "");

// The node's recorder, writing fault-`node`-p<period>.mcap files into the run directory.
std::unique_ptr<FaultRecorder> openFaultRecorder(const NodeContext& c, const std::string& node);

// A mail from the supervisor's control box: when it is a FaultNotice, `recorder` (may be null)
// writes the node's last periods out. Real-time safe.
void takeFaultNotice(FaultRecorder* recorder, const proto::Envelope& control);

}  // namespace rfms
