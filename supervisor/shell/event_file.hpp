// The supervisor's events as a file a program can follow: RUN_DIR/events.jsonl, one JSON object
// a line, written as each event is followed by the background thread. Each line is the run log's
// LogEvent (proto/runlog.proto) with its field names, every field written, enums by name:
//   {"period":"3021","kind":"EMERGENCY","move_id":"0","state":"RT_IDLE","reason":"ER_NODE_SILENT",
//    "node":"NODE_JOINT3",...}
// and the last line says the cluster was stopped: {"stopped":{"periods":5120,"why":"task finished"}}.
// Tests and scripts read it instead of the log's sentences (docs/cluster.md, "The run directory").
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

#include "proto/runlog.pb.h"
#include "supervisor/supervisor_core.hpp"

namespace rfms {

class EventFile {
 public:
  // Creates (or empties) `path`; a file that cannot be opened is reported by ok().
  explicit EventFile(const std::string& path);
  bool ok() const { return out_.good(); }
  void note(const SupervisorEvent& e);
  void stopped(std::uint64_t periods, const std::string& why);

 private:
  void line(const std::string& json);

  std::ofstream out_;
  proto::LogEvent event_;
};

}  // namespace rfms
