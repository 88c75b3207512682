// The RFMS manual's example task, pumatask() (A.5 §2.2), written with the client library: define
// the home transform and position, four motion records, then comply along z on the spot for 20 s
// and return home by a joint motion.
#include <iostream>

#include <CLI/CLI.hpp>

#include "client/rfms_client.hpp"
#include "common/command_line.hpp"

int main(int argc, char** argv) {
  using rfms::RfmsClient;
  CLI::App app{"pumatask: the RFMS manual's example task, through rfms-bridge"};
  rfms::ClientOptions options;
  app.add_option("--bridge", options.bridge, "the bridge, host:port")->capture_default_str();
  app.add_option("--key", options.key_file, "this client's key file (deploy/rfms keys)")->envname("RFMS_KEY");
  if (const auto code = rfms::parseCommandLine(app, argc, argv)) return *code;
  try {
    RfmsClient arm(options);
    arm.beginTask("pumatask");
    arm.calibrate();
    arm.transform("t2", rfms::trans(0.2032, -0.12623, 0.2032));  // home
    arm.position("home", rfms::ArmConfig{.righty = true, .up = false, .flip = true}, {"T6"}, {"t2"});
    arm.motion("mjnt", rfms::Motion::joint(2.0, 0.2));
    arm.motion("mcart", rfms::Motion::cartesian(4.0, 0.3));
    arm.motion("mcartcz", rfms::Motion::cartesian(20.0, 0.5).complying(rfms::kZ));
    arm.motion("mcartcx", rfms::Motion::cartesian(15.0, 0.5).complying(rfms::kX));
    arm.move("home", "mcartcz");
    arm.wait(arm.move("home", "mjnt"));
    arm.endTask();
    std::cout << "pumatask done\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "pumatask: " << e.what() << "\n";
    return 1;
  }
}
