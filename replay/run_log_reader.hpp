// A run log read back: its header, and its messages decoded by topic, in period order. A log split
// into several files (runlog/log_files.hpp) is read as one, from whichever of its files are
// left. Built on mcap::readFile, so a damaged log still yields everything before the damage (and
// says where).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/robot_model.hpp"
#include "common/scene.hpp"
#include "proto/cluster.pb.h"
#include "proto/runlog.pb.h"
#include "runlog/logged_arm.hpp"
#include "runlog/mcap_reader.hpp"

namespace rfms {

struct RunLog {
  mcap::KeyValues header;  // the "rfms" metadata
  std::vector<proto::SMail> smail;
  std::vector<proto::JMail> jmail;
  std::vector<proto::MMail> mmail;
  std::vector<proto::Parcel> parcel;
  std::vector<proto::ArmSensors> sensors;
  std::vector<proto::TorqueCommand> torque;
  std::vector<proto::LogRequest> requests;
  std::vector<proto::LogEvent> events;
  std::vector<proto::PeriodTiming> timing;     // realtime runs only
  std::vector<proto::AppliedTorques> applied;  // cluster runs only
  bool have_drops = false;
  proto::LogDrops drops;
  std::uint64_t messages = 0;
  std::uint64_t undecodable = 0;  // messages that do not parse, or are on no topic a run writes
  // Messages on the display channels (/frames, /scene): pictures the writer drew from the mail
  // above, for Foxglove; nothing here reads them back.
  std::uint64_t display_messages = 0;
  std::uint64_t file_size = 0;     // all its files together
  std::vector<std::string> files;  // the files read, in order
  unsigned first_file = 0;         // > 0: the run's older files were removed (retention)
  std::string error;               // empty when the file is sound; names the file when the run has several
  std::uint64_t error_offset = 0;
  // The run's last file ends early (its writer was killed or lost its disk before closing it):
  // what was read is sound and is the run up to there, so it can still be verified that far.
  bool cut_short = false;
  // The controller settings of the header, when it has them (settings_error says why not).
  std::optional<proto::ControllerSettings> settings;
  std::string settings_error;
  // The settings, or a ConfigError saying why the log has none: for what re-runs the controller.
  const proto::ControllerSettings& requireSettings() const;
  // The sample period: the settings', or what an older log's header said. A log that says
  // neither is refused (ConfigError): its times cannot be known, and are not guessed.
  double dtMs() const;
  // The periods the log spans: one more than its last S_MAIL's period (0: none). A log holds an
  // S_MAIL for every period but those its logger dropped, so one that claims a later period, or
  // more drops than it could mean, is damage: this throws ConfigError saying so, before anything
  // sized by it is allocated or run.
  std::uint64_t periods() const;
  // The first period the log holds: 0 for a run's log, later for a fault record (the last periods
  // before an emergency, runlog/fault_recorder.hpp). ConfigError when the header's is not a period.
  std::uint64_t firstPeriod() const;
  // What the fault record was written for ("" in a run's own log).
  std::string fault() const;
};

// The arm a log's run drove, from its header (runlog/logged_arm.hpp).
LoggedArm loggedArm(const RunLog& log);

// `path`: the run's first file (run.mcap), which need not exist any more when later ones do.
RunLog readRunLog(const std::string& path, const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

}  // namespace rfms
