#include "net_bridge/fault_injector.hpp"

namespace rfms {

void FaultInjector::apply(const std::string& datagram, std::vector<std::string>& wire) {
  ++counts_.datagrams;
  std::optional<std::string> previous = std::move(held_);
  held_.reset();
  std::vector<std::string> now;
  if (draw(rates_.loss)) {
    ++counts_.lost;
  } else {
    std::string d = datagram;
    if (draw(rates_.corrupt) && !d.empty()) {
      ++counts_.corrupted;
      const auto at = std::uniform_int_distribution<std::size_t>(0, d.size() - 1)(rng_);
      d[at] = static_cast<char>(d[at] ^ static_cast<char>(1 + std::uniform_int_distribution<int>(0, 254)(rng_)));
    }
    now.push_back(d);
    if (draw(rates_.duplicate)) {
      ++counts_.duplicated;
      now.push_back(d);
    }
  }
  // Reordering: this datagram is held back and goes out after the next one that goes out.
  if (!previous && !now.empty() && draw(rates_.reorder)) {
    ++counts_.reordered;
    held_ = now.front();
    now.erase(now.begin());
  }
  for (auto& d : now) wire.push_back(std::move(d));
  if (previous) {
    if (now.empty())
      held_ = std::move(previous);  // nothing went out yet: keep holding it
    else
      wire.push_back(std::move(*previous));
  }
}

std::optional<std::string> FaultInjector::release() {
  auto d = std::move(held_);
  held_.reset();
  return d;
}

}  // namespace rfms
