// How patient a client's link is; a plain header, so that the client library's own header
// includes no generated code.
#pragma once

namespace rfms {

struct LinkOptions {
  double timeout_s = 0.02;  // wait this long for an ACK before sending again
  int max_tries = 100;      // sends of one frame before the link gives up
};

}  // namespace rfms
