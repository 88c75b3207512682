// rfms-bench-mailbox's pieces: the mail it moves, the peers it forks (the arm, the math server and
// the six joints, each answering as its node does), and the same over iceoryx.
#pragma once

#include <sys/types.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "common/mail_names.hpp"
#include "common/types.hpp"
#include "proto/cluster.pb.h"
#include "runtime/cluster_config.hpp"

namespace rfms::bench {

struct Payloads {
  proto::Envelope smail, mmail, parcel, sensors;
  std::array<proto::Envelope, kJoints> jmail;
};

struct Figures {
  std::vector<double> ping_us, fan_us;  // each round trip, microseconds
};

// A fresh directory only this user can open.
std::filesystem::path privateTempDir();
// A lockstep cluster whose ipc endpoints are in `dir`, its mail over `transport` on this host.
ClusterSettings clusterIn(const std::filesystem::path& dir, proto::MailTransport transport);
// A peer's life in a forked process: the start handshake, then an answer to each M_MAIL (the math
// server) or S_MAIL (a joint, the arm) until the supervisor's stop. Its exit code.
int runPeer(const ClusterSettings& s, proto::Node node, const std::string& run_dir, const Payloads& mail);
// Waits for the peers to end (five seconds at most; then they are killed).
void reap(const std::vector<pid_t>& peers);
std::string cpuModel();

// The same two round trips over iceoryx; `why` says why they could not be measured.
Figures runIceoryx(int rounds, const Payloads& mail, std::string& why);

}  // namespace rfms::bench
