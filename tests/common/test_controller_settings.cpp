#include <gtest/gtest.h>

#include <functional>

#include "common/controller_settings.hpp"
#include "common/error.hpp"

namespace rfms {
namespace {

// The ConfigError `f` throws, or a failure when it throws none.
std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

proto::ControllerSettings with(const std::string& path, const std::string& value) {
  proto::ControllerSettings s;
  setControllerField(s, path, value);
  return s;
}

TEST(ControllerSettings, TheDefaultsAreValidAndWrittenOutInFull) {
  const proto::ControllerSettings none;
  EXPECT_NO_THROW(checkControllerSettings(none));
  EXPECT_EQ(none.dt_ms(), 1.0);
  EXPECT_EQ(pikScheme(none), PikScheme::kDecoupledExtrapolated);
  const proto::ControllerSettings full = withDefaultsWritten(none);
  EXPECT_TRUE(full.has_dt_ms() && full.has_pik() && full.has_seed() && full.servo().has_bandwidth_hz());
  // Text written and read again is the same message, doubles to the last bit.
  proto::ControllerSettings odd = full;
  odd.set_dt_ms(0.1 + 0.2 + 0.6);
  const proto::ControllerSettings back = parseSettingsText(settingsText(odd), "test");
  EXPECT_EQ(back.SerializeAsString(), odd.SerializeAsString());
  EXPECT_EQ(settingsDifference(none, full, "mine"), "");
}

TEST(ControllerSettings, EachRangeIsCheckedAndTheFieldNamed) {
  const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases = {
      {{"dt_ms", "0.2"}, "controller.dt_ms: must be within 0.25 .. 10 ms"},
      {{"dt_ms", "11"}, "controller.dt_ms: must be within 0.25 .. 10 ms"},
      {{"update_periods", "0"}, "controller.update_periods: must be 1 .. 100"},
      {{"watchdog_periods", "1000000000"}, "controller.watchdog_periods: must be 2 .. 1000"},
      {{"watchdog_periods", "1"}, "controller.watchdog_periods: must be 2 .. 1000"},
      {{"servo.bandwidth_hz", "0"}, "controller.servo.bandwidth_hz: must be within 0 .. 50 Hz"},
      {{"park_rad", "0,0.1,0.2"}, "controller.park_rad: must hold six angles"},
      {{"park_rad", "0,0,0,0,0,100"}, "controller.park_rad: angles must be within"},
      {{"power_up_error_rad", "1"}, "controller.power_up_error_rad: must be within 0 .. 0.2 rad"},
  };
  for (const auto& [set, why] : cases) {
    const proto::ControllerSettings s = with(set.first, set.second);
    const std::string e = errorOf([&] { checkControllerSettings(s); });
    EXPECT_EQ(e.rfind(why, 0), 0u) << set.first << "=" << set.second << ": " << e;
  }
  // The caller says where the settings came from.
  EXPECT_EQ(errorOf([] {
              checkControllerSettings(with("dt_ms", "20"), "cluster.textproto: controller");
            }).rfind("cluster.textproto: controller.dt_ms: ", 0),
            0u);
}

TEST(ControllerSettings, AFieldIsSetByItsPathFromText) {
  EXPECT_EQ(with("pik", "paper").pik(), proto::ControllerSettings::PAPER);
  EXPECT_EQ(with("pik", "paper-extrapolated").pik(), proto::ControllerSettings::PAPER_EXTRAPOLATED);
  EXPECT_EQ(pikScheme(with("pik", "decoupled")), PikScheme::kDecoupled);
  EXPECT_EQ(with("servo.bandwidth_hz", "12").servo().bandwidth_hz(), 12.0);
  EXPECT_EQ(with("amplifier", "voltage").amplifier(), proto::ControllerSettings::VOLTAGE);
  EXPECT_EQ(with("amplifier", "CURRENT").amplifier(), proto::ControllerSettings::CURRENT);
  EXPECT_TRUE(with("serial_ik", "true").serial_ik());
  EXPECT_EQ(with("update_periods", "6").update_periods(), 6u);
  const proto::ControllerSettings park = with("park_rad", "0,0.5,-0.5,0,0.25,0");
  ASSERT_EQ(park.park_rad_size(), 6);
  EXPECT_EQ(parkPose(park)[1], 0.5);
  EXPECT_EQ(parkPose(park)[2], -0.5);
}

TEST(ControllerSettings, ABadPathOrValueIsRefusedNamingIt) {
  EXPECT_NE(errorOf([] { with("warp", "9"); }).find("warp: no such setting (here: dt_ms, update_periods"),
            std::string::npos);
  EXPECT_NE(errorOf([] { with("servo.gain", "9"); }).find("servo.gain: no such setting (here: bandwidth_hz)"),
            std::string::npos);
  EXPECT_NE(errorOf([] { with("servo", "9"); }).find("servo: a group of settings"), std::string::npos);
  EXPECT_NE(errorOf([] { with("dt_ms.x", "9"); }).find("dt_ms has no fields"), std::string::npos);
  EXPECT_NE(errorOf([] { with("dt_ms", "1ms"); }).find("dt_ms=1ms: not a number"), std::string::npos);
  EXPECT_NE(errorOf([] { with("dt_ms", "nan"); }).find("not a number"), std::string::npos);
  EXPECT_NE(errorOf([] { with("update_periods", "1e9999"); }).find("not a number"), std::string::npos);
  EXPECT_NE(errorOf([] { with("update_periods", "-1"); }).find("not a whole number"), std::string::npos);
  EXPECT_NE(errorOf([] { with("update_periods", "2.5"); }).find("not a whole number"), std::string::npos);
  EXPECT_NE(errorOf([] { with("update_periods", "1e10"); }).find("not a whole number"), std::string::npos);
  EXPECT_NE(errorOf([] { with("serial_ik", "yes"); }).find("not true or false"), std::string::npos);
  EXPECT_NE(errorOf([] { with("amplifier", "pneumatic"); }).find("not one of current, voltage"), std::string::npos);
  EXPECT_NE(errorOf([] {
              with("pik", "fast");
            }).find("pik=fast: not one of paper, paper-extrapolated, decoupled, decoupled-extrapolated"),
            std::string::npos);
}

// `pik` was a string until it became an enumeration: a run log's header of then is read in the
// new spelling, a cluster file with the old one is refused naming the new (runtime tests).
TEST(ControllerSettings, AnOldLogsPikStringIsReadAsItsName) {
  const std::string old = "dt_ms: 1\npik: \"paper-extrapolated\"\nserial_ik: false\n";
  const auto retired = retiredPikSpelling(old);
  ASSERT_TRUE(retired);
  EXPECT_EQ(retired->was, "paper-extrapolated");
  EXPECT_EQ(retired->now, "PAPER_EXTRAPOLATED");
  EXPECT_EQ(parseSettingsText(withPikUpgraded(old), "test").pik(), proto::ControllerSettings::PAPER_EXTRAPOLATED);
  EXPECT_EQ(parseSettingsText(withPikUpgraded("servo {\n  bandwidth_hz: 8\n}\npik: \"paper\""), "test").pik(),
            proto::ControllerSettings::PAPER);
  EXPECT_FALSE(retiredPikSpelling("pik: DECOUPLED\n"));
  EXPECT_FALSE(retiredPikSpelling("log { dir: \"pik: \" }"));  // not a field of its own
}

TEST(ControllerSettings, CommandLineAssignmentsApplyInOrderAndSayWhichFailed) {
  proto::ControllerSettings s;
  applySettingAssignments(s, {"pik=paper", "servo.bandwidth_hz=12", "pik=decoupled"});
  EXPECT_EQ(s.pik(), proto::ControllerSettings::DECOUPLED);
  EXPECT_EQ(s.servo().bandwidth_hz(), 12.0);
  EXPECT_EQ(errorOf([&] { applySettingAssignments(s, {"dt_ms"}); }), "--set dt_ms: write FIELD=VALUE");
  EXPECT_EQ(errorOf([&] { applySettingAssignments(s, {"warp=1"}); }).rfind("--set warp: no such setting", 0), 0u);
  EXPECT_EQ(errorOf([&] { applySettingAssignments(s, {"seed=-3"}); }).rfind("--set seed=-3: not a whole number", 0),
            0u);
}

TEST(ControllerSettings, TheFirstDifferenceIsNamedWithBothValues) {
  const proto::ControllerSettings mine;
  EXPECT_EQ(settingsDifference(mine, with("dt_ms", "2"), "the supervisor's"),
            "dt_ms 2 differs from the supervisor's 1");
  EXPECT_EQ(settingsDifference(mine, with("servo.bandwidth_hz", "12"), "x"), "servo.bandwidth_hz 12 differs from x 8");
  EXPECT_EQ(settingsDifference(mine, with("pik", "paper"), "x"), "pik PAPER differs from x DECOUPLED_EXTRAPOLATED");
  EXPECT_EQ(settingsDifference(mine, with("park_rad", "0,0,0,0,0,0"), "x"),
            "park_rad 0,0,0,0,0,0 differs from x (none)");
}

}  // namespace
}  // namespace rfms
