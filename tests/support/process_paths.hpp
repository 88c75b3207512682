// Where the process tests find deploy/rfms and the built binaries. RFMS_SOURCE_DIR and
// RFMS_BIN_DIR come from the test target's compile definitions (tests/*/CMakeLists.txt).
#pragma once

#include <string>

namespace rfms::test {

inline const std::string kRfms = std::string(RFMS_SOURCE_DIR) + "/deploy/rfms";
inline const std::string kBin = RFMS_BIN_DIR;

}  // namespace rfms::test
