// A budget of log lines for what others can cause: refused requests from clients, bad datagrams.
// Within the budget a line is written (its text cut to a bound); beyond it, lines are only
// counted, and the count is said once the next window opens. Two budgets hold: lines a second
// (a flood costs a few short lines a second) and lines an hour (a flood that lasts days does not
// fill the disk either); once the hour's lines are spent, the count is said once a minute until
// the hour is over. At the defaults a log a remote party feeds grows by at most about 700 lines,
// some 180 kB, an hour.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace rfms {

class LogBudget {
 public:
  using Clock = std::chrono::steady_clock;
  explicit LogBudget(int lines_per_second, std::size_t max_chars = 200, int lines_per_hour = 600)
      : per_second_(lines_per_second), per_hour_(lines_per_hour), max_chars_(max_chars) {}

  // Whether a line may be written at `now`. When a new window opens with lines held back,
  // `held_back` says how many (to be said first), else 0.
  bool take(Clock::time_point now, std::uint64_t& held_back) {
    held_back = 0;
    if (now - hour_ >= std::chrono::hours(1)) {
      hour_ = now;
      hour_used_ = 0;
    }
    // The window the held-back count is said in: a second, or a minute once the hour is spent.
    const auto window = hour_used_ < per_hour_ ? std::chrono::seconds(1) : std::chrono::seconds(60);
    if (now - window_ >= window) {
      window_ = now;
      used_ = 0;
      held_back = dropped_;
      dropped_ = 0;
    }
    if (used_ < per_second_ && hour_used_ < per_hour_) {
      ++used_;
      ++hour_used_;
      return true;
    }
    ++dropped_;
    ++total_dropped_;
    return false;
  }
  // Lines held back in a window that has ended, for a caller that says so on a timer rather than
  // waiting for the next line (which may never come): the count, once, and then 0 until more are
  // held back; 0 while the window lasts.
  std::uint64_t heldBack(Clock::time_point now) {
    const auto window = hour_used_ < per_hour_ ? std::chrono::seconds(1) : std::chrono::seconds(60);
    if (dropped_ == 0 || now - window_ < window) return 0;
    window_ = now;
    used_ = 0;
    const std::uint64_t n = dropped_;
    dropped_ = 0;
    return n;
  }
  // `text` cut to the bound, saying how much was left out.
  std::string cut(std::string_view text) const {
    if (text.size() <= max_chars_) return std::string(text);
    return std::string(text.substr(0, max_chars_)) + "... (" + std::to_string(text.size() - max_chars_) +
           " more characters)";
  }
  std::uint64_t totalDropped() const { return total_dropped_; }

 private:
  int per_second_, per_hour_;
  std::size_t max_chars_;
  Clock::time_point window_{}, hour_{};
  int used_ = 0, hour_used_ = 0;
  std::uint64_t dropped_ = 0, total_dropped_ = 0;
};

}  // namespace rfms
