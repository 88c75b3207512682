// What a viewer asks of the server, read from its text message: the Foxglove protocol's
// subscribe and unsubscribe, or a mistake said in one line. A pure function of hostile text
// (fuzz/viewer_request_fuzz.cpp): any bytes give one of the three, and nothing else happens.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rfms::view {

struct ViewerRequest {
  enum class Kind { kSubscribe, kUnsubscribe, kMistake };
  Kind kind = Kind::kMistake;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> subscribe;  // (subscription id, channel id)
  std::vector<std::uint64_t> unsubscribe;                          // subscription ids
  std::string mistake;                                             // what is wrong, for the viewer
};

// At most `most` subscriptions or ids are taken from one request; more is a mistake.
ViewerRequest parseViewerRequest(std::string_view text, std::size_t most);

}  // namespace rfms::view
