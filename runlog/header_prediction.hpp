// Mail headers in a run log, stored only where they could not be predicted.
//
// Nearly every mailbox continues its sender's stream: its period and its sequence number are one
// more than the same sender's last mailbox's, and it carries no send time. Those numbers change
// every period and a compressor cannot count, so in an idle cluster's log the seventeen headers
// of a period are over a third of the compressed bytes. A PeriodRecord therefore leaves out every
// header that the prediction gives exactly, and marks the mailbox in its `predicted_headers`
// bits; the reader restores the header from the same prediction, so every mailbox reads back
// bit for bit as it was logged.
//
// Writer and reader walk the same mailboxes in the same order — records in file order, each
// record's mailboxes in the order stored — and both start afresh at the beginning of every file
// and every kResyncRecords-th record of a file, so both always predict the same. A mailbox that
// was dropped, came late or came twice breaks its sender's stream, and the next one is stored
// whole. A damaged record costs the mailboxes after it no more than the records up to the next
// fresh start: a marked mailbox whose stream the reader lost is reported, never given a header.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "proto/mailboxes.pb.h"

namespace rfms {

class HeaderPrediction {
 public:
  // Every this many records of a file, prediction starts afresh (a second of a 1 kHz run).
  static constexpr std::uint64_t kResyncRecords = 1000;

  // Forgets every stream: the start of a file, and every kResyncRecords-th record of it.
  void reset() { streams_.fill(Stream{}); }

  // The writer's side. `mailbox` is one stored mailbox of PeriodRecord field `field`, in wire
  // format. Returns how many of its leading bytes are its header (the field's tag, length and
  // contents) when that header is exactly the predicted one and may be left out; 0 when it must
  // be stored. Follows the sender's stream either way.
  std::size_t predictedHeaderBytes(int field, std::string_view mailbox);

  // The reader's side, for each mailbox read, in order. `joint` is the mailbox's joint field (0
  // for mailboxes without one); `predicted` its bit. Restores a predicted header into `header`
  // and follows the stream. False when the mailbox is marked but its stream is unknown (a
  // damaged log): it has no trustworthy header and is to be counted undecodable.
  bool restore(int field, std::uint32_t joint, bool has_header, proto::Header& header, bool predicted);

  // The reader's side, for a mailbox of `field` that could not be decoded: its sender is unknown,
  // so every stream of the field is forgotten until the next fresh start.
  void forget(int field);

  // Whether PeriodRecord field `field` holds mailboxes with a Header (its field 1).
  static bool hasHeader(int field);

 private:
  struct Stream {
    bool known = false;
    std::uint64_t period = 0, sequence = 0;
  };
  // A stream per sender: a slot per PeriodRecord field, and per joint for the joints' mail.
  static constexpr int kJointSlots = 8;
  static constexpr int kFields = 16;
  static int slotOf(int field, std::uint32_t joint);
  std::array<Stream, kFields * kJointSlots> streams_{};
};

}  // namespace rfms
