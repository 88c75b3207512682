// A pick-and-place loop: approach above the part by a joint motion, descend and rise along straight
// lines, carry it to the drop point the same way. The table is a named transform, so moving the
// table (one update) moves every position defined on it. (The emulated arm has no gripper: the
// grasp and release points are printed where a gripper command would go.)
#include <iostream>

#include <CLI/CLI.hpp>

#include "client/rfms_client.hpp"
#include "common/command_line.hpp"

int main(int argc, char** argv) {
  using rfms::RfmsClient;
  CLI::App app{"pick_place: a pick-and-place loop through rfms-bridge"};
  rfms::ClientOptions options;
  int cycles = 2;
  app.add_option("--bridge", options.bridge, "the bridge, host:port")->capture_default_str();
  app.add_option("--key", options.key_file, "this client's key file (deploy/rfms keys)")->envname("RFMS_KEY");
  app.add_option("--cycles", cycles, "how many parts to move")->capture_default_str()->check(CLI::Range(1, 1000));
  if (const auto code = rfms::parseCommandLine(app, argc, argv)) return *code;
  try {
    RfmsClient arm(options);
    arm.beginTask("pick-and-place");
    arm.calibrate();
    const double mm = 1e-3, deg = 3.141592653589793 / 180.0;
    // The table's frame, and on it the pick and drop points; the gripper points down.
    arm.transform("table", rfms::trans(220 * mm, -126.24 * mm, 0.0));
    arm.transform("pick", rfms::trans(0.0, 0.0, 0.0) * rfms::rpy(0, 90 * deg, 0));
    arm.transform("drop", rfms::trans(0.0, 60 * mm, 0.0) * rfms::rpy(0, 90 * deg, 0));
    arm.transform("lift", rfms::trans(-80 * mm, 0.0, 0.0));  // along the gripper's approach axis
    const rfms::ArmConfig config{.righty = true, .up = false, .flip = true};
    arm.position("above_pick", config, {"T6"}, {"table", "pick", "lift"});
    arm.position("at_pick", config, {"T6"}, {"table", "pick"});
    arm.position("above_drop", config, {"T6"}, {"table", "drop", "lift"});
    arm.position("at_drop", config, {"T6"}, {"table", "drop"});
    arm.motion("approach", rfms::Motion::joint(2.0, 0.3));
    arm.motion("straight", rfms::Motion::cartesian(1.0, 0.2));
    arm.wait(arm.move("above_pick", "approach"));
    for (int c = 1; c <= cycles; ++c) {
      arm.wait(arm.move("at_pick", "straight"));
      std::cout << "cycle " << c << ": grasp\n";
      arm.move("above_pick", "straight");
      arm.move("above_drop", "approach");
      arm.wait(arm.move("at_drop", "straight"));
      std::cout << "cycle " << c << ": release\n";
      arm.move("above_drop", "straight");
      arm.wait(arm.move("above_pick", "approach"));
    }
    arm.endTask();
    std::cout << "moved " << cycles << " part(s)\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "pick_place: " << e.what() << "\n";
    return 1;
  }
}
