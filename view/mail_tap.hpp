// The cluster's mail as rfms-view reads it: the run's shared-memory segment mapped read-only, a
// reader per box that no node knows of. Nothing here can delay or change a node: the readers take
// copies under the rings' sequence locks, and a reader that falls behind loses the oldest mail
// (counted), never the writer's time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/mail_box.hpp"
#include "runtime/mail_ring.hpp"
#include "runtime/mail_segment.hpp"

namespace rfms::view {

class MailTap {
 public:
  explicit MailTap(std::string segment_path);

  // Attaches once the run's segment is there; true when attached (now or before).
  bool attach();
  bool attached() const { return segment_.has_value(); }

  // Every mail of `b` written since the last call (or since attach(), or restart(b)), oldest
  // first, each given to `take(bytes, size, period)`; `most` bounds one call's work.
  template <class Take>
  void drain(Box b, Take take, int most = 4096) {
    if (!segment_) return;
    RingReader& r = readers_[index(b)];
    for (int n = 0; n < most; ++n) {
      const auto mail = r.next(buffer_.data());
      if (!mail) return;
      take(buffer_.data(), mail->size, mail->period);
    }
  }
  // From now on: the mail already there is passed over.
  void restart(Box b);

  std::uint64_t lost() const;     // over every box: mail overwritten before it was read
  std::uint64_t damaged() const;  // torn or corrupt, passed over

 private:
  static std::size_t index(Box b) { return static_cast<std::size_t>(b); }
  std::string path_;
  std::optional<MailSegmentReader> segment_;
  std::array<RingReader, kBoxCount> readers_{};
  std::vector<std::byte> buffer_;
};

}  // namespace rfms::view
