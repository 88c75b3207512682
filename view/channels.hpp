// The channels a view offers, live (view/live_view.hpp) or from a run log (rfms-replay view), in
// the order of their ids: the arm's frames and scene, log lines, and the mailboxes on the run
// log's own topics and schemas, so that one Foxglove layout serves a live run and a log alike.
#pragma once

#include <google/protobuf/descriptor.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "proto/cluster.pb.h"
#include "runtime/mail_box.hpp"
#include "view/foxglove_server.hpp"

namespace rfms::view {

// kDesk: what the view's page draws, one JSON message per display period (view/desk_message.hpp).
enum ChannelId : std::size_t { kFrames = 0, kScene = 1, kLog = 2, kDesk = 3, kFirstMail = 4 };

// A mailbox channel: the boxes whose mail it carries, and which kind of their mail (the boxes of
// J_MAILs and PARCELs also carry their writers' hellos, which are left out).
struct MailChannel {
  const char* topic;
  const google::protobuf::Descriptor* type;
  BoxSet boxes;
  proto::Envelope::BodyCase body;
};
inline constexpr std::size_t kMailChannels = 7;
const std::array<MailChannel, kMailChannels>& mailChannels();
// The channel id of the mailbox channel whose mail is of kind `body`.
std::size_t mailChannelOf(proto::Envelope::BodyCase body);

std::vector<Channel> viewChannels();

// The page's folder in this checkout (view/web), which a view serves unless told otherwise.
const char* defaultWebRoot();

// A view's server at `--view`'s ADDRESS:PORT (port 0: any free one), serving defaultWebRoot();
// ConfigError naming the option when it is not that.
ServerOptions serverAt(const std::string& address_port);

}  // namespace rfms::view
