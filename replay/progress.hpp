// A progress bar on stderr for operations that take more than a second: nothing is drawn before
// the first second has passed, and the bar is wiped when done.
#pragma once

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>

namespace rfms {

class ProgressBar {
 public:
  explicit ProgressBar(std::string what) : what_(std::move(what)) {}
  ~ProgressBar() {
    if (drawn_) std::cerr << "\r" << std::string(what_.size() + 60, ' ') << "\r" << std::flush;
  }
  void operator()(std::uint64_t done, std::uint64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const int width = 40;
    const int filled =
        total == 0
            ? 0
            : static_cast<int>(static_cast<double>(width) * static_cast<double>(done) / static_cast<double>(total));
    std::cerr << "\r" << what_ << " [" << std::string(static_cast<std::size_t>(std::min(filled, width)), '#')
              << std::string(static_cast<std::size_t>(width - std::min(filled, width)), '.') << "] "
              << (total ? 100 * done / total : 0) << "%" << std::flush;
    drawn_ = true;
  }

 private:
  std::string what_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
  bool drawn_ = false;
};

}  // namespace rfms
