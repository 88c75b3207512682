// A received mail that costs no allocation: each slot parses into an envelope on an arena of its
// own whose first block is preallocated, and resets the arena (keeping that block) before each
// parse. A plain proto3 envelope would free and allocate its sub-messages on every parse, and
// protobuf's Swap between messages on different arenas copies; so slots change hands by pointer
// (std::swap of MailSlot*), never by Swap.
#pragma once

#include <google/protobuf/arena.h>

#include <cstddef>
#include <memory>

#include "proto/cluster.pb.h"

namespace rfms {

class MailSlot {
 public:
  // 256 kB holds the largest tree any mail a box admits can build (MailPort refuses the rest
  // before parsing): a box's capacity of empty repeated messages, each an object of its own, is
  // the worst (tests/runtime/test_hostile_mail_parse.cpp). Larger mail still parses; the arena
  // then takes more from the heap.
  explicit MailSlot(std::size_t bytes = 256 * 1024);
  MailSlot(const MailSlot&) = delete;
  MailSlot& operator=(const MailSlot&) = delete;

  // The mail in `data`, replacing the previous one; false (and an empty envelope) when it does
  // not parse.
  bool parse(const void* data, std::size_t size);
  const proto::Envelope& mail() const { return *envelope_; }
  proto::Envelope& mail() { return *envelope_; }

 private:
  std::unique_ptr<char[]> block_;
  google::protobuf::Arena arena_;
  proto::Envelope* envelope_;
};

}  // namespace rfms
