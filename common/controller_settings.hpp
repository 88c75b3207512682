// The controller's settings (proto/controller.proto): the one check of their ranges, setting a
// field by its path (rerun --set, rfms-sim --set), the settings with every default written out
// (for run logs), and where two nodes' settings differ. Configuration time only: throws
// ConfigError naming the field.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/ik_opw.hpp"
#include "common/types.hpp"
#include "proto/controller.pb.h"

namespace rfms {

// Throws ConfigError "<where>.<field>: <why>" for the first field out of its range. The only
// place the ranges of proto/controller.proto are written.
void checkControllerSettings(const proto::ControllerSettings& s, const std::string& where = "controller");

// Sets the field at `path` ("pik", "servo.bandwidth_hz", "park_rad" = six comma-separated values)
// from its text: numbers, true/false, an enum value's name in any case ("voltage"). Throws
// ConfigError naming the path when there is no such field or the text is not of its type; the
// range is for checkControllerSettings.
void setControllerField(proto::ControllerSettings& s, const std::string& path, const std::string& value);

// Each "FIELD=VALUE" in order, as the command lines' --set gives them; a ConfigError starts with
// "--set ". The ranges are still for checkControllerSettings.
void applySettingAssignments(proto::ControllerSettings& s, const std::vector<std::string>& assignments);

// The same settings with every field present, defaults written out: what a run log stores, so
// that it re-runs the same controller even after a default changes.
proto::ControllerSettings withDefaultsWritten(const proto::ControllerSettings& s);

// The first field in which `theirs` differs from `mine`, as "dt_ms 2 differs from <whose> 1", or "".
std::string settingsDifference(const proto::ControllerSettings& mine, const proto::ControllerSettings& theirs,
                               const std::string& whose);

// Text format (the cluster file's `controller` block, the run log's header), and back.
std::string settingsText(const proto::ControllerSettings& s);
proto::ControllerSettings parseSettingsText(const std::string& text, const std::string& where);

// What the cores read, in the units they use.
inline double sampleSeconds(const proto::ControllerSettings& s) { return s.dt_ms() * 1e-3; }
JointVec parkPose(const proto::ControllerSettings& s);
PikScheme pikScheme(const proto::ControllerSettings& s);
// Where settings text of an older build gives `pik` as a string ("paper-extrapolated"): the
// enumeration's name it now is (PAPER_EXTRAPOLATED), with the string it was; nullopt otherwise.
// Run logs are upgraded with it (their header is history); a cluster file is refused naming it.
struct RetiredPik {
  std::string was, now;
};
std::optional<RetiredPik> retiredPikSpelling(const std::string& text);
std::string withPikUpgraded(const std::string& text);

}  // namespace rfms
