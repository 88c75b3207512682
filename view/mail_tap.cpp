#include "view/mail_tap.hpp"

namespace rfms::view {

MailTap::MailTap(std::string segment_path) : path_(std::move(segment_path)), buffer_(kMaxMailBytes) {}

bool MailTap::attach() {
  if (segment_) return true;
  auto found = MailSegmentReader::attach(path_);
  if (!found) return false;
  segment_.emplace(std::move(*found));
  for (int i = 0; i < kBoxCount; ++i) restart(static_cast<Box>(i));
  return true;
}

void MailTap::restart(Box b) {
  if (segment_) readers_[index(b)] = RingReader(segment_->ring(b), depthOf(b), capacityOf(b));
}

std::uint64_t MailTap::lost() const {
  std::uint64_t n = 0;
  for (const RingReader& r : readers_) n += r.lost();
  return n;
}

std::uint64_t MailTap::damaged() const {
  std::uint64_t n = 0;
  for (const RingReader& r : readers_) n += r.corrupt() + r.torn();
  return n;
}

}  // namespace rfms::view
