#include "runlog/header_prediction.hpp"

#include <algorithm>

#include "proto/runlog.pb.h"
#include "runlog/protobuf_wire.hpp"

namespace rfms {

namespace {

using wire::readVarint;
constexpr auto kHeaderTag = static_cast<unsigned char>(wire::tag(1, wire::kLengthDelimited));
constexpr auto kJointTag = static_cast<unsigned char>(wire::tag(2, wire::kVarint));

std::size_t varintSize(std::uint64_t v) {
  std::size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

// Whether a header whose fields parsed as `period` and `sequence` is written exactly as protobuf
// writes {period, sequence} with no send time: the only form a restored header takes, so the
// only one that may be left out.
bool isCanonical(std::string_view contents, std::uint64_t period, std::uint64_t sequence) {
  const std::size_t p = varintSize(period);
  return period != 0 && sequence != 0 && contents.size() == 2 + p + varintSize(sequence) &&
         static_cast<unsigned char>(contents[0]) == wire::tag(1, wire::kVarint) &&
         static_cast<unsigned char>(contents[1 + p]) == wire::tag(2, wire::kVarint);
}

}  // namespace

bool HeaderPrediction::hasHeader(int field) {
  static const std::array<bool, kFields> table = [] {
    std::array<bool, kFields> t{};
    for (int f = 0; f < kFields; ++f) {
      const auto* fd = proto::PeriodRecord::descriptor()->FindFieldByNumber(f);
      const auto* first =
          fd != nullptr && fd->message_type() != nullptr ? fd->message_type()->FindFieldByNumber(1) : nullptr;
      t[f] = first != nullptr && first->message_type() == proto::Header::descriptor();
    }
    return t;
  }();
  return field >= 0 && field < kFields && table[field];
}

int HeaderPrediction::slotOf(int field, std::uint32_t joint) {
  // The joints' mail comes from six senders; every other mailbox topic has one.
  const bool per_joint =
      field == proto::PeriodRecord::kJmailFieldNumber || field == proto::PeriodRecord::kTorqueFieldNumber;
  const auto j = per_joint ? static_cast<int>(std::min<std::uint32_t>(joint, kJointSlots - 1)) : 0;
  return field * kJointSlots + j;
}

std::size_t HeaderPrediction::predictedHeaderBytes(int field, std::string_view mailbox) {
  if (!hasHeader(field)) return 0;
  // The header, when the mailbox starts with one (protobuf writes fields in number order).
  std::size_t at = 0, header_bytes = 0;
  bool parsed = false;
  std::uint64_t period = 0, sequence = 0, send_time = 0;
  std::string_view contents;
  if (!mailbox.empty() && static_cast<unsigned char>(mailbox[0]) == kHeaderTag) {
    std::uint64_t length = 0;
    at = 1;
    if (!readVarint(mailbox, at, length) || length > mailbox.size() - at) return 0;
    contents = mailbox.substr(at, length);
    at += length;
    header_bytes = at;
    parsed = true;
    for (std::size_t h = 0; h < contents.size() && parsed;) {
      std::uint64_t tag = 0, value = 0;
      parsed = readVarint(contents, h, tag) && (tag & 7u) == 0 && readVarint(contents, h, value);
      if (tag >> 3 == 1)
        period = value;
      else if (tag >> 3 == 2)
        sequence = value;
      else if (tag >> 3 == 3)
        send_time = value;
      else
        parsed = false;
    }
  }
  std::uint64_t joint = 0;
  if (at < mailbox.size() && static_cast<unsigned char>(mailbox[at]) == kJointTag) {
    ++at;
    if (!readVarint(mailbox, at, joint)) joint = 0;
  }
  Stream& s = streams_[slotOf(field, static_cast<std::uint32_t>(joint))];
  const bool predicted = parsed && s.known && send_time == 0 && period == s.period + 1 && sequence == s.sequence + 1 &&
                         isCanonical(contents, period, sequence);
  s = parsed ? Stream{true, period, sequence} : Stream{};
  return predicted ? header_bytes : 0;
}

void HeaderPrediction::forget(int field) {
  if (field < 0 || field >= kFields) return;
  for (int j = 0; j < kJointSlots; ++j) streams_[field * kJointSlots + j] = Stream{};
}

bool HeaderPrediction::restore(int field, std::uint32_t joint, bool has_header, proto::Header& header, bool predicted) {
  if (!hasHeader(field)) return !predicted;
  Stream& s = streams_[slotOf(field, joint)];
  if (predicted) {
    if (has_header || !s.known) {
      s = Stream{};
      return false;
    }
    ++s.period, ++s.sequence;
    header.set_period(s.period);
    header.set_sequence(s.sequence);
    return true;
  }
  s = has_header ? Stream{true, header.period(), header.sequence()} : Stream{};
  return true;
}

}  // namespace rfms
