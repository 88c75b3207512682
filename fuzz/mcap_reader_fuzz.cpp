// A run log, as rfms-replay reads it: any bytes. The reader must say what is wrong with a damaged
// file (Contents::error), never crash, hang or allocate without bound.
#include <cstdint>

#include "common/error.hpp"
#include "fuzz/fuzz_input.hpp"
#include "runlog/mcap_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const rfms::fuzz::MemoryFile file(data, size);
  try {
    std::uint64_t seen = 0;
    rfms::mcap::readFile(file.path(), {},
                         [&](const rfms::mcap::Channel*, std::uint64_t, std::string_view d) { seen += d.size(); });
  } catch (const rfms::Error&) {
  }
  return 0;
}
