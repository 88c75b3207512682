// Reads an MCAP file written by mcap::Writer (and any MCAP file whose chunks are plain or zstd):
// schemas, channels, metadata and every message in file order. A damaged file is read as far as it
// is sound: the contents up to the damage are kept, and `error` says what is wrong at which byte.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runlog/mcap_writer.hpp"

namespace rfms::mcap {

struct Schema {
  std::uint16_t id = 0;
  std::string name, encoding, data;
};
struct Channel {
  std::uint16_t id = 0, schema = 0;
  std::string topic, encoding;
  KeyValues metadata;
};
struct Message {
  std::uint16_t channel = 0;
  std::uint32_t sequence = 0;
  std::uint64_t log_time = 0, publish_time = 0;
  std::string data;
};

struct Contents {
  std::string profile, library;
  std::map<std::uint16_t, Schema> schemas;
  std::map<std::uint16_t, Channel> channels;
  std::vector<Message> messages;
  std::vector<std::pair<std::string, KeyValues>> metadata;
  bool has_summary = false;
  std::uint64_t summary_message_count = 0;  // the summary's statistics
  std::uint64_t file_size = 0;
  std::string error;               // empty when the whole file is sound
  std::uint64_t error_offset = 0;  // where the damage was found
  // The file ends early: everything before error_offset is sound, and nothing after it was
  // written (a writer that was killed, or lost its disk, before closing the file).
  bool cut_short = false;
  bool complete() const { return error.empty(); }
  const Channel* channel(const std::string& topic) const;
};

// Each message as it is read, instead of into Contents::messages: a reader that decodes as it
// goes need not hold every message's bytes twice. `channel` is null for a message on a channel
// the file has not declared; `data` lives only for the call.
using MessageSink = std::function<void(const Channel* channel, std::uint64_t log_time, std::string_view data)>;

// `progress(bytes read, file size)` is called now and then.
Contents readFile(const std::string& path, const std::function<void(std::uint64_t, std::uint64_t)>& progress = {},
                  const MessageSink& sink = {});

}  // namespace rfms::mcap
