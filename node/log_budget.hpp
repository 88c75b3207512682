// A budget of log lines per second for what others can cause: refused requests from clients, bad
// datagrams. Within the budget a line is written (its text cut to a bound); beyond it, lines are
// only counted, and the count is said once the next second's budget opens. A flood then costs a
// few short lines a second, not a log that fills the disk.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace rfms {

class LogBudget {
 public:
  using Clock = std::chrono::steady_clock;
  explicit LogBudget(int lines_per_second, std::size_t max_chars = 200)
      : per_second_(lines_per_second), max_chars_(max_chars) {}

  // Whether a line may be written at `now`. When a new second opens with lines held back,
  // `held_back` says how many (to be said first), else 0.
  bool take(Clock::time_point now, std::uint64_t& held_back) {
    held_back = 0;
    if (now - window_ >= std::chrono::seconds(1)) {
      window_ = now;
      used_ = 0;
      held_back = dropped_;
      dropped_ = 0;
    }
    if (used_ < per_second_) {
      ++used_;
      return true;
    }
    ++dropped_;
    ++total_dropped_;
    return false;
  }
  // `text` cut to the bound, saying how much was left out.
  std::string cut(std::string_view text) const {
    if (text.size() <= max_chars_) return std::string(text);
    return std::string(text.substr(0, max_chars_)) + "... (" + std::to_string(text.size() - max_chars_) +
           " more characters)";
  }
  std::uint64_t totalDropped() const { return total_dropped_; }

 private:
  int per_second_;
  std::size_t max_chars_;
  Clock::time_point window_{};
  int used_ = 0;
  std::uint64_t dropped_ = 0, total_dropped_ = 0;
};

}  // namespace rfms
