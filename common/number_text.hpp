// Numbers as people read them in messages: "1e+07", "0.5", "-10", not "10000000.000000".
#pragma once

#include <cstdio>
#include <string>

namespace rfms {

inline std::string numberText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace rfms
