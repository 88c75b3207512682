// A viewer's text message to rfms-view, as any party on the view's port can send it: any bytes must
// give a subscription, an unsubscription or a mistake, and the status message that says the
// mistake must be writable whatever bytes it quotes.
#include <cstdint>
#include <string_view>

#include "view/foxglove_server.hpp"
#include "view/viewer_request.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rfms::view;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ViewerRequest r = parseViewerRequest(text, 256);
  if (r.kind == ViewerRequest::Kind::kMistake) (void)statusText(r.mistake);
  if (r.subscribe.size() > 256 || r.unsubscribe.size() > 256) __builtin_trap();
  return 0;
}
