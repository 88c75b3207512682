// A node's last word, in the run directory: RUN_DIR/NODE.end.json holds one NodeEnd
// (proto/cluster.proto) as protobuf's JSON, field names as in the schema. Written after the
// node's period loop has ended, never from it; a tool or a test reads why each node stopped
// without parsing its log's sentences.
#pragma once

#include <filesystem>
#include <string>

#include "proto/cluster.pb.h"

namespace rfms {

std::filesystem::path nodeEndPath(const std::string& run_dir, const std::string& node);
// Writes it whole or not at all (a temporary file renamed into place); the reason on failure,
// "" on success.
std::string writeNodeEnd(const std::string& run_dir, const std::string& node, const proto::NodeEnd& end);

}  // namespace rfms
