// The message the view's page draws from, one per display period on the /desk channel, as JSON:
//   period, time_s           the picture's period and its time on the cluster's clock
//   rtstate                  "SETP", ... (empty when the period's S_MAIL was not seen)
//   angles                   the six joint angles of the picture (rad): the pose drawn
//   frames, scene            the period's foxglove.FrameTransforms and SceneUpdate, in protobuf's
//                            JSON mapping (what /frames and /scene carry)
//   signals                  {name: value} of the signals the desk watches, from that period's mail
//   move                     the move running, from the supervisor's status: {id, position, motion,
//                            elapsed_s, duration_s}; null between moves or without the status
//   unended                  moves accepted and not yet ended, the running one included
//   lines                    the last log lines (up to kDeskLines), oldest first: [{n, level, name,
//                            text}], n counting every line the view has passed on, so that a page
//                            that came late sees the recent ones and one that was there skips
//                            those it has
// JSON rather than protobuf so that the page needs no protobuf decoder: a browser reads it as it
// comes.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "display/arm_picture.hpp"
#include "display/world_picture.hpp"
#include "proto/foxglove.pb.h"

namespace rfms::view {

inline constexpr std::size_t kDeskLines = 50;

struct DeskExtras {
  std::vector<std::pair<std::string, double>> signals;
  const display::WorldPicture* world = nullptr;
  std::deque<std::pair<std::uint64_t, foxglove::Log>> lines;  // (n, line)
};

std::string deskMessage(const display::ArmPicture& picture, double time_s, const foxglove::FrameTransforms& frames,
                        const foxglove::SceneUpdate& scene, const DeskExtras& extras);

}  // namespace rfms::view
