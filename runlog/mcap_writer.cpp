#include "runlog/mcap_writer.hpp"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <tuple>

#include "common/error.hpp"
#include "runlog/mcap_format.hpp"

namespace rfms::mcap {

namespace {

std::uint32_t crcOf(std::string_view bytes) {
  return static_cast<std::uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

std::string recordBytes(std::uint8_t opcode, const std::string& content) {
  std::string r;
  r.reserve(9 + content.size());
  r.push_back(static_cast<char>(opcode));
  putLe<std::uint64_t>(r, content.size());
  r.append(content);
  return r;
}

void putMap(std::string& out, const KeyValues& kv) {
  std::string body;
  for (const auto& [k, v] : kv) {
    putString(body, k);
    putString(body, v);
  }
  putLe<std::uint32_t>(out, static_cast<std::uint32_t>(body.size()));
  out.append(body);
}

}  // namespace

namespace {
const char* compressionName(Compression c) { return c == Compression::kZstd ? "zstd" : ""; }
}  // namespace

Writer::Writer(const std::string& path, const std::string& profile, const std::string& library, Compression compression,
               std::size_t chunk_bytes)
    : path_(path), compression_(compression), chunk_bytes_(chunk_bytes) {
  if (compression_ == Compression::kZstd && (zstd_context_ = ZSTD_createCCtx()) == nullptr)
    throw ConfigError("cannot create log " + path + ": zstd could not allocate its context");
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr) throw ConfigError("cannot create log " + path + ": " + std::strerror(errno));
  put(std::string_view(kMagic, sizeof kMagic));
  std::string header;
  putString(header, profile);
  putString(header, library);
  record(kHeader, header);
}

Writer::~Writer() {
  if (!closed_) {
    try {
      close();
    } catch (...) {  // a destructor must not throw; the file is as complete as it could be made
    }
  }
  ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(zstd_context_));
}

void Writer::put(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    throw ConfigError("cannot write log " + path_ + ": " + std::strerror(errno));
  offset_ += bytes.size();
}

void Writer::record(std::uint8_t opcode, const std::string& content) { put(recordBytes(opcode, content)); }

std::uint16_t Writer::addSchema(const std::string& name, const std::string& encoding, const std::string& data) {
  flushChunk();  // schemas and channels go before the messages that use them
  const auto id = static_cast<std::uint16_t>(schema_records_.size() + 1);
  std::string c;
  putLe<std::uint16_t>(c, id);
  putString(c, name);
  putString(c, encoding);
  putString(c, data);  // uint32 length prefix, as for strings
  record(kSchema, c);
  schema_records_.push_back(c);
  return id;
}

std::uint16_t Writer::addChannel(std::uint16_t schema, const std::string& topic, const std::string& message_encoding,
                                 const KeyValues& metadata) {
  flushChunk();
  const auto id = static_cast<std::uint16_t>(channel_records_.size() + 1);
  std::string c;
  putLe<std::uint16_t>(c, id);
  putLe<std::uint16_t>(c, schema);
  putString(c, topic);
  putString(c, message_encoding);
  putMap(c, metadata);
  record(kChannel, c);
  channel_records_.push_back(c);
  return id;
}

void Writer::addMetadata(const std::string& name, const KeyValues& values) {
  flushChunk();
  std::string c;
  putString(c, name);
  putMap(c, values);
  const std::uint64_t at = offset_;
  record(kMetadata, c);
  metadata_index_.emplace_back(at, offset_ - at);
  metadata_names_.push_back(name);
}

void Writer::write(std::uint16_t channel, std::uint64_t log_time_ns, std::uint64_t publish_time_ns,
                   std::string_view data, std::uint32_t sequence) {
  if (chunk_.empty()) chunk_start_ = log_time_ns, chunk_end_ = log_time_ns;
  chunk_start_ = std::min(chunk_start_, log_time_ns);
  chunk_end_ = std::max(chunk_end_, log_time_ns);
  chunk_index_[channel].emplace_back(log_time_ns, chunk_.size());
  std::string c;
  c.reserve(22 + data.size());
  putLe<std::uint16_t>(c, channel);
  putLe<std::uint32_t>(c, sequence);
  putLe<std::uint64_t>(c, log_time_ns);
  putLe<std::uint64_t>(c, publish_time_ns);
  c.append(data);
  chunk_ += recordBytes(kMessage, c);
  ++message_count_;
  ++channel_counts_[channel];
  first_time_ = std::min(first_time_, log_time_ns);
  last_time_ = std::max(last_time_, log_time_ns);
  if (chunk_.size() >= chunk_bytes_) flushChunk();
}

void Writer::flushChunk() {
  if (chunk_.empty()) return;
  ChunkIndex ci;
  ci.start_time = chunk_start_;
  ci.end_time = chunk_end_;
  ci.offset = offset_;
  ci.size = chunk_.size();
  std::string c;
  putLe<std::uint64_t>(c, chunk_start_);
  putLe<std::uint64_t>(c, chunk_end_);
  putLe<std::uint64_t>(c, chunk_.size());  // uncompressed size
  putLe<std::uint32_t>(c, crcOf(chunk_));  // of the uncompressed records, as the spec says
  std::string_view stored = chunk_;
  if (compression_ == Compression::kZstd) {
    compressed_.resize(ZSTD_compressBound(chunk_.size()));
    // Level 3, zstd's default: measured on a run's mail, higher levels buy a few percent for
    // several times the writer's CPU (BENCHMARKS.md).
    const std::size_t n = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(zstd_context_), compressed_.data(),
                                            compressed_.size(), chunk_.data(), chunk_.size(), 3);
    if (ZSTD_isError(n)) throw ConfigError("cannot compress a chunk of log " + path_ + ": " + ZSTD_getErrorName(n));
    stored = std::string_view(compressed_.data(), n);
  }
  putString(c, compressionName(compression_));
  putLe<std::uint64_t>(c, stored.size());  // the records as stored, length-prefixed
  c.append(stored);
  ci.stored = stored.size();
  uncompressed_bytes_ += chunk_.size();
  record(kChunk, c);
  ci.length = offset_ - ci.offset;
  const std::uint64_t index_start = offset_;
  for (const auto& [channel, entries] : chunk_index_) {
    std::string m;
    putLe<std::uint16_t>(m, channel);
    putLe<std::uint32_t>(m, static_cast<std::uint32_t>(entries.size() * 16));
    for (const auto& [time, at] : entries) {
      putLe<std::uint64_t>(m, time);
      putLe<std::uint64_t>(m, at);
    }
    ci.index_offsets[channel] = offset_;
    record(kMessageIndex, m);
  }
  ci.index_length = offset_ - index_start;
  chunks_.push_back(std::move(ci));
  chunk_.clear();
  chunk_index_.clear();
}

void Writer::close() {
  if (closed_) return;
  closed_ = true;
  flushChunk();
  std::string data_end;
  putLe<std::uint32_t>(data_end, 0);  // no CRC of the data section
  record(kDataEnd, data_end);

  // The summary, one group per record type, each group's place kept for the summary offsets.
  const std::uint64_t summary_start = offset_;
  std::vector<std::tuple<std::uint8_t, std::uint64_t, std::uint64_t>> groups;
  auto group = [&](std::uint8_t opcode, const std::vector<std::string>& contents) {
    if (contents.empty()) return;
    const std::uint64_t start = offset_;
    for (const auto& c : contents) record(opcode, c);
    groups.emplace_back(opcode, start, offset_ - start);
  };
  group(kSchema, schema_records_);
  group(kChannel, channel_records_);
  std::string stats;
  putLe<std::uint64_t>(stats, message_count_);
  putLe<std::uint16_t>(stats, static_cast<std::uint16_t>(schema_records_.size()));
  putLe<std::uint32_t>(stats, static_cast<std::uint32_t>(channel_records_.size()));
  putLe<std::uint32_t>(stats, 0);  // attachments
  putLe<std::uint32_t>(stats, static_cast<std::uint32_t>(metadata_index_.size()));
  putLe<std::uint32_t>(stats, static_cast<std::uint32_t>(chunks_.size()));
  putLe<std::uint64_t>(stats, message_count_ > 0 ? first_time_ : 0);
  putLe<std::uint64_t>(stats, last_time_);
  std::string counts;
  for (const auto& [channel, n] : channel_counts_) {
    putLe<std::uint16_t>(counts, channel);
    putLe<std::uint64_t>(counts, n);
  }
  putLe<std::uint32_t>(stats, static_cast<std::uint32_t>(counts.size()));
  stats.append(counts);
  group(kStatistics, {stats});
  std::vector<std::string> chunk_indexes;
  for (const ChunkIndex& ci : chunks_) {
    std::string c;
    putLe<std::uint64_t>(c, ci.start_time);
    putLe<std::uint64_t>(c, ci.end_time);
    putLe<std::uint64_t>(c, ci.offset);
    putLe<std::uint64_t>(c, ci.length);
    std::string offsets;
    for (const auto& [channel, at] : ci.index_offsets) {
      putLe<std::uint16_t>(offsets, channel);
      putLe<std::uint64_t>(offsets, at);
    }
    putLe<std::uint32_t>(c, static_cast<std::uint32_t>(offsets.size()));
    c.append(offsets);
    putLe<std::uint64_t>(c, ci.index_length);
    putString(c, compressionName(compression_));
    putLe<std::uint64_t>(c, ci.stored);  // compressed size
    putLe<std::uint64_t>(c, ci.size);    // uncompressed size
    chunk_indexes.push_back(std::move(c));
  }
  group(kChunkIndex, chunk_indexes);
  std::vector<std::string> metadata_indexes;
  for (std::size_t i = 0; i < metadata_index_.size(); ++i) {
    std::string c;
    putLe<std::uint64_t>(c, metadata_index_[i].first);
    putLe<std::uint64_t>(c, metadata_index_[i].second);
    putString(c, metadata_names_[i]);
    metadata_indexes.push_back(std::move(c));
  }
  group(kMetadataIndex, metadata_indexes);

  const std::uint64_t summary_offset_start = offset_;
  for (const auto& [opcode, start, length] : groups) {
    std::string c;
    putLe<std::uint8_t>(c, opcode);
    putLe<std::uint64_t>(c, start);
    putLe<std::uint64_t>(c, length);
    record(kSummaryOffset, c);
  }
  std::string footer;
  putLe<std::uint64_t>(footer, summary_start);
  putLe<std::uint64_t>(footer, summary_offset_start);
  putLe<std::uint32_t>(footer, 0);  // no CRC of the summary
  record(kFooter, footer);
  put(std::string_view(kMagic, sizeof kMagic));
  if (std::fclose(file_) != 0) {
    file_ = nullptr;
    throw ConfigError("cannot finish log " + path_ + ": " + std::strerror(errno));
  }
  file_ = nullptr;
}

}  // namespace rfms::mcap
