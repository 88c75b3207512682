// An MCAP writer (mcap.dev/spec, major version 0) for the subset the run logs need: schemas,
// channels, messages in chunks (zstd-compressed or plain) each followed by its message indexes,
// metadata, and a summary section (schemas, channels, statistics, chunk indexes, metadata indexes)
// with summary offsets, so that a reader can find every channel and seek by time without scanning
// the file. No C++ MCAP library is packaged for Debian; the files are checked in tests with the
// official TypeScript reader (@mcap/core) and its decompression handlers (@mcap/support).
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rfms::mcap {

using KeyValues = std::map<std::string, std::string>;

// How chunks are stored. zstd at its fast levels: a period's mail differs from the last one's in
// a few bytes, so a chunk of a thousand periods shrinks many times over for little CPU.
enum class Compression { kNone, kZstd };

class Writer {
 public:
  // Throws ConfigError when the file cannot be created.
  Writer(const std::string& path, const std::string& profile, const std::string& library,
         Compression compression = Compression::kZstd, std::size_t chunk_bytes = 512 * 1024);
  ~Writer();  // closes the file properly if close() was not called
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  std::uint16_t addSchema(const std::string& name, const std::string& encoding, const std::string& data);
  std::uint16_t addChannel(std::uint16_t schema, const std::string& topic, const std::string& message_encoding,
                           const KeyValues& metadata = {});
  void addMetadata(const std::string& name, const KeyValues& values);
  void write(std::uint16_t channel, std::uint64_t log_time_ns, std::uint64_t publish_time_ns, std::string_view data,
             std::uint32_t sequence = 0);
  // Flushes the last chunk and writes the summary and footer. Throws ConfigError on a write error.
  void close();

  std::uint64_t bytesWritten() const { return offset_; }
  std::uint64_t messageCount() const { return message_count_; }
  // The chunks' records before compression: bytesWritten() would be about this without it.
  std::uint64_t uncompressedChunkBytes() const { return uncompressed_bytes_; }

 private:
  struct ChunkIndex {
    std::uint64_t start_time = 0, end_time = 0, offset = 0, length = 0, index_length = 0, size = 0, stored = 0;
    std::map<std::uint16_t, std::uint64_t> index_offsets;
  };
  void put(std::string_view bytes);
  void record(std::uint8_t opcode, const std::string& content);  // straight to the file
  void flushChunk();

  std::FILE* file_ = nullptr;
  std::string path_;
  std::uint64_t offset_ = 0;
  Compression compression_;
  std::size_t chunk_bytes_;
  bool closed_ = false;
  std::string compressed_;        // reused for every chunk
  void* zstd_context_ = nullptr;  // ZSTD_CCtx, reused for every chunk
  std::uint64_t uncompressed_bytes_ = 0;

  std::vector<std::string> schema_records_, channel_records_;            // content, for the summary
  std::vector<std::pair<std::uint64_t, std::uint64_t>> metadata_index_;  // offset, length
  std::vector<std::string> metadata_names_;

  // The open chunk.
  std::string chunk_;
  std::uint64_t chunk_start_ = 0, chunk_end_ = 0;
  std::map<std::uint16_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> chunk_index_;  // time, offset

  std::vector<ChunkIndex> chunks_;
  std::map<std::uint16_t, std::uint64_t> channel_counts_;
  std::uint64_t message_count_ = 0, first_time_ = UINT64_MAX, last_time_ = 0;
};

}  // namespace rfms::mcap
