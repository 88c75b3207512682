#include "runtime/mail_slot.hpp"

namespace rfms {

namespace {
google::protobuf::ArenaOptions withBlock(char* block, std::size_t bytes) {
  google::protobuf::ArenaOptions o;
  o.initial_block = block;
  o.initial_block_size = bytes;
  return o;
}
}  // namespace

MailSlot::MailSlot(std::size_t bytes)
    : block_(new char[bytes]),
      arena_(withBlock(block_.get(), bytes)),
      envelope_(google::protobuf::Arena::CreateMessage<proto::Envelope>(&arena_)) {}

bool MailSlot::parse(const void* data, std::size_t size) {
  arena_.Reset();
  envelope_ = google::protobuf::Arena::CreateMessage<proto::Envelope>(&arena_);
  if (envelope_->ParseFromArray(data, static_cast<int>(size))) return true;
  envelope_->Clear();
  return false;
}

}  // namespace rfms
