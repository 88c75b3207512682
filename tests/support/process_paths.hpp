// Where the process tests find deploy/rfms and the built binaries (tests/support/build_paths.hpp).
#pragma once

#include <string>

#include "tests/support/build_paths.hpp"

namespace rfms::test {

inline const std::string kRfms = std::string(RFMS_SOURCE_DIR) + "/deploy/rfms";
inline const std::string kBin = RFMS_BIN_DIR;

}  // namespace rfms::test
