#include "runlog/mcap_reader.hpp"

#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "runlog/mcap_format.hpp"

namespace rfms::mcap {

namespace {

// Our writer's chunks are 512 KiB; other writers' are a few MiB. A larger claim is damage.
constexpr std::uint64_t kMaxChunkBytes = 256u << 20;

std::uint32_t crcOf(std::string_view bytes) {
  return static_cast<std::uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

KeyValues readMap(Cursor& c) {
  KeyValues kv;
  Cursor body(c.bytes(c.le<std::uint32_t>()));
  while (!body.done()) {
    std::string k = body.string();
    kv[k] = body.string();
  }
  return kv;
}

std::string hex(std::uint8_t op) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", op);
  return b;
}

// Schema, Channel and Message records, in the data section or inside a chunk.
bool dataRecord(std::uint8_t op, std::string_view content, Contents& out, const MessageSink& sink) {
  Cursor c(content);
  switch (op) {
    case kSchema: {
      Schema s;
      s.id = c.le<std::uint16_t>();
      s.name = c.string();
      s.encoding = c.string();
      s.data = c.string();
      out.schemas[s.id] = std::move(s);
      return true;
    }
    case kChannel: {
      Channel ch;
      ch.id = c.le<std::uint16_t>();
      ch.schema = c.le<std::uint16_t>();
      ch.topic = c.string();
      ch.encoding = c.string();
      ch.metadata = readMap(c);
      out.channels[ch.id] = std::move(ch);
      return true;
    }
    case kMessage: {
      Message m;
      m.channel = c.le<std::uint16_t>();
      m.sequence = c.le<std::uint32_t>();
      m.log_time = c.le<std::uint64_t>();
      m.publish_time = c.le<std::uint64_t>();
      if (sink) {
        const auto ch = out.channels.find(m.channel);
        sink(ch != out.channels.end() ? &ch->second : nullptr, m.log_time, c.rest());
        return true;
      }
      m.data = std::string(c.rest());
      out.messages.push_back(std::move(m));
      return true;
    }
    default: return false;
  }
}

}  // namespace

const Channel* Contents::channel(const std::string& topic) const {
  for (const auto& [id, ch] : channels)
    if (ch.topic == topic) return &ch;
  return nullptr;
}

Contents readFile(const std::string& path, const std::function<void(std::uint64_t, std::uint64_t)>& progress,
                  const MessageSink& sink) {
  Contents out;
  // A directory opens as a stream on Linux and says its size is -1: refused by name first.
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    out.error = std::filesystem::is_directory(path, ec) ? "a directory, not a run log" : "not a regular file";
    return out;
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff file_bytes = in ? static_cast<std::streamoff>(in.tellg()) : -1;
  if (!in || file_bytes < 0) {
    out.error = "cannot open " + path;
    return out;
  }
  // One copy of the file in memory, read in one go.
  std::string file(static_cast<std::size_t>(file_bytes), '\0');
  in.seekg(0);
  in.read(file.data(), static_cast<std::streamsize>(file.size()));
  if (!in) {
    out.error = "cannot read " + path;
    return out;
  }
  out.file_size = file.size();
  auto fail = [&](std::uint64_t at, const std::string& what) {
    out.error = what;
    out.error_offset = at;
    out.cut_short = what.rfind("truncated: ", 0) == 0;
    return out;
  };
  if (file.size() < 8 || std::memcmp(file.data(), kMagic, 8) != 0)
    return fail(0, "not an MCAP file (no magic at the start)");
  std::uint64_t at = 8;
  bool data_ended = false, footer = false;
  std::string unpacked;  // the chunk in hand, decompressed
  const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  std::uint64_t last_progress = 0;
  while (at < file.size()) {
    if (footer) {
      const std::size_t left = file.size() - at;
      if (left == 8 && std::memcmp(file.data() + at, kMagic, 8) == 0) return out;
      if (left < 8 && std::memcmp(file.data() + at, kMagic, left) == 0)
        return fail(at, "truncated: the closing magic is cut off");
      return fail(at, "bytes after the footer are not the closing magic");
    }
    if (file.size() - at < 9) return fail(at, "truncated: a record header is cut off");
    const auto op = static_cast<std::uint8_t>(file[at]);
    Cursor head(std::string_view(file).substr(at + 1, 8));
    const auto length = head.le<std::uint64_t>();
    if (length > file.size() - at - 9)
      return fail(at, "truncated: record " + hex(op) + " of " + std::to_string(length) +
                          " bytes runs past the end of the file");
    const std::string_view content(file.data() + at + 9, length);
    try {
      if (op == kHeader) {
        Cursor c(content);
        out.profile = c.string();
        out.library = c.string();
      } else if (op == kChunk) {
        Cursor c(content);
        c.le<std::uint64_t>();  // start time
        c.le<std::uint64_t>();  // end time
        const auto size = c.le<std::uint64_t>();
        const auto crc = c.le<std::uint32_t>();
        const std::string compression = c.string();
        std::string_view records = c.bytes(c.le<std::uint64_t>());
        if (compression == "zstd") {
          // The declared size is the file's word, not a fact: it is checked against the frame's own
          // and bounded before anything is allocated for it.
          const unsigned long long frame = ZSTD_getFrameContentSize(records.data(), records.size());
          if (frame == ZSTD_CONTENTSIZE_ERROR || frame == ZSTD_CONTENTSIZE_UNKNOWN || frame != size)
            return fail(at, "chunk: its zstd frame does not declare the chunk's size");
          if (size > kMaxChunkBytes)
            return fail(at, "chunk: " + std::to_string(size) + " bytes uncompressed, too large");
          unpacked.resize(size);
          const std::size_t n =
              ZSTD_decompressDCtx(dctx.get(), unpacked.data(), unpacked.size(), records.data(), records.size());
          if (ZSTD_isError(n) || n != size)
            return fail(at, std::string("chunk: zstd cannot decompress it (the data is damaged): ") +
                                (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short"));
          records = unpacked;
        } else if (!compression.empty()) {
          return fail(at, "chunk compressed with '" + compression + "', which this reader does not read");
        }
        if (records.size() != size) return fail(at, "chunk: its size does not match its records");
        if (crc != 0 && crc != crcOf(records)) return fail(at, "chunk: CRC mismatch (the data is damaged)");
        std::uint64_t in_chunk = 0;
        while (in_chunk < records.size()) {
          if (records.size() - in_chunk < 9) return fail(at, "chunk: a record inside is cut off");
          const auto inner_op = static_cast<std::uint8_t>(records[in_chunk]);
          Cursor ih(records.substr(in_chunk + 1, 8));
          const auto inner_length = ih.le<std::uint64_t>();
          if (inner_length > records.size() - in_chunk - 9) return fail(at, "chunk: a record inside runs past its end");
          dataRecord(inner_op, records.substr(in_chunk + 9, inner_length), out, sink);
          in_chunk += 9 + inner_length;
        }
      } else if (op == kMetadata) {
        Cursor c(content);
        std::string name = c.string();
        out.metadata.emplace_back(std::move(name), readMap(c));
      } else if (op == kDataEnd) {
        data_ended = true;
      } else if (op == kStatistics) {
        out.has_summary = true;
        Cursor c(content);
        out.summary_message_count = c.le<std::uint64_t>();
      } else if (op == kFooter) {
        footer = true;
      } else if (!data_ended) {
        dataRecord(op, content, out, sink);  // others (message indexes, attachments) are not needed here
      }
    } catch (const std::out_of_range&) {
      return fail(at, "record " + hex(op) + " is malformed (its fields run past its length)");
    }
    at += 9 + length;
    if (progress && at - last_progress > (8u << 20)) {
      last_progress = at;
      progress(at, file.size());
    }
  }
  if (!footer) return fail(at, "truncated: the file ends before its footer");
  return fail(at, "truncated: the closing magic is missing");
}

}  // namespace rfms::mcap
