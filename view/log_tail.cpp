#include "view/log_tail.hpp"

#include <regex>

namespace rfms::view {

std::vector<std::string> LogTail::lines(std::size_t budget) {
  std::vector<std::string> out;
  if (!in_.is_open()) {
    in_.open(path_, std::ios::binary);
    if (!in_.is_open()) return out;
  }
  in_.clear();  // past the end last time: look again
  char c = 0;
  for (std::size_t n = 0; n < budget && in_.get(c); ++n) {
    if (c == '\n') {
      out.push_back(std::move(partial_));
      partial_.clear();
    } else if (partial_.size() < kMaxLine) {
      partial_.push_back(c);
    }
  }
  return out;
}

void parseLogLine(const std::string& line, foxglove::Log& out) {
  static const std::regex kForm(R"(^\[[0-9:.]+\] \[([A-Za-z0-9_ -]{1,32})\] ([a-z]+): (.*)$)");
  out.Clear();
  std::smatch m;
  if (!std::regex_match(line, m, kForm)) {
    out.set_level(foxglove::Log::INFO);
    out.set_message(line);
    return;
  }
  const std::string level = m[2];
  out.set_name(m[1]);
  out.set_message(m[3]);
  if (level == "trace" || level == "debug")
    out.set_level(foxglove::Log::DEBUG);
  else if (level == "info")
    out.set_level(foxglove::Log::INFO);
  else if (level == "warning")
    out.set_level(foxglove::Log::WARNING);
  else if (level == "error")
    out.set_level(foxglove::Log::ERROR);
  else if (level == "critical")
    out.set_level(foxglove::Log::FATAL);
  else
    out.set_level(foxglove::Log::UNKNOWN);
}

}  // namespace rfms::view
