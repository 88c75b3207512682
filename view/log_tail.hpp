// The supervisor's log followed as it grows, for the view's Log channel: its lines are the run's
// events (states, moves, emergencies, refusals) as the operator reads them. Bounded: each look
// reads at most a budget of bytes, and a line longer than kMaxLine is cut there.
#pragma once

#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

#include "proto/foxglove.pb.h"

namespace rfms::view {

class LogTail {
 public:
  static constexpr std::size_t kMaxLine = 1024;

  explicit LogTail(std::string path) : path_(std::move(path)) {}

  // The whole lines written since the last look (the file is opened once it exists).
  std::vector<std::string> lines(std::size_t budget = 64u << 10);

 private:
  std::string path_;
  std::ifstream in_;
  std::string partial_;
};

// A line in the nodes' log format, "[12:00:00.000] [supervisor] warning: text", as a Foxglove log
// message; a line of another form is kept whole, as information.
void parseLogLine(const std::string& line, foxglove::Log& out);

}  // namespace rfms::view
