// rfms-bench-fault-record: what keeping the last periods for a fault record (runlog/fault_recorder)
// costs a node's period: ns to record one period's mail of the supervisor (the arm's sensors, six
// J_MAILs, the PARCEL, S_MAIL and M_MAIL) and of a joint (S_MAIL, sensors, J_MAIL, torque), on a
// calibrated arm's real mail; beside it, the peer measured in the same run: the run logger's log() of
// the same supervisor mail (what a logged run already pays each period).
//   build/bin/rfms-bench-fault-record [any Google Benchmark flag]
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>

#include "bench/benchmark_main.hpp"

#include "common/kinematics.hpp"
#include "common/robot_model_loader.hpp"
#include "harness/harness.hpp"
#include "runlog/fault_recorder.hpp"
#include "runlog/run_logger.hpp"

namespace {

using namespace rfms;

// One period's mail of a calibrated arm (every mailbox at its full size), and a scratch directory.
struct Mail {
  Harness h;
  PeriodMail m;
  std::filesystem::path dir;
  Mail() : h(loadRobotModel(RFMS_DEFAULT_ROBOT), proto::ControllerSettings{}) {
    h.on_period = [&](const PeriodMail& p) { m = p; };
    h.runUntil([] { return false; }, 10);
    proto::TaskRequest calibrate;
    calibrate.mutable_control()->set_command(proto::CC_CALIBRATE);
    h.request(calibrate);
    h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_HOLD; }, 60000);
    dir = std::filesystem::temp_directory_path() / ("rfms-bench-fault-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
  }
  ~Mail() { std::filesystem::remove_all(dir); }
};

Mail& mail() {
  static Mail m;
  return m;
}

void recordSupervisor(FaultRecorder& r, const PeriodMail& m, std::uint64_t k) {
  r.record(LogTopic::kSensors, k, *m.sensors);
  for (const proto::JMail* j : m.jmail) r.record(LogTopic::kJMail, k, *j);
  r.record(LogTopic::kParcel, k, *m.parcel);
  r.record(LogTopic::kSMail, k, *m.smail);
  r.record(LogTopic::kMMail, k, *m.mmail);
}

void faultRecordSupervisor(benchmark::State& state) {
  Mail& m = mail();
  FaultRecorder r(m.dir.string(), "supervisor", RunLogHeader{}, *spdlog::default_logger());
  std::uint64_t k = 0;
  for (auto _ : state) recordSupervisor(r, m.m, ++k);
  if (r.notKept() > 0) state.SkipWithError("mail not kept");
}
BENCHMARK(faultRecordSupervisor)->Unit(benchmark::kNanosecond);

void faultRecordJoint(benchmark::State& state) {
  Mail& m = mail();
  FaultRecorder r(m.dir.string(), "joint3", RunLogHeader{}, *spdlog::default_logger());
  std::uint64_t k = 0;
  for (auto _ : state) {
    ++k;
    r.record(LogTopic::kSMail, k, *m.m.smail);
    r.record(LogTopic::kSensors, k, *m.m.sensors);
    r.record(LogTopic::kJMail, k, *m.m.jmail[2]);
    r.record(LogTopic::kTorque, k, *m.m.torque[2]);
  }
}
BENCHMARK(faultRecordJoint)->Unit(benchmark::kNanosecond);

// The peer: the run logger taking the same supervisor mail into its ring (dropping when full, as
// a realtime run does, so that the writer's pace does not enter the figure).
void runLogSupervisor(benchmark::State& state) {
  Mail& m = mail();
  RunLogHeader header;
  header.source = "bench";
  RunLogger log((m.dir / "run.mcap").string(), header, RunLogger::WhenFull::kDrop);
  std::uint64_t k = 0;
  for (auto _ : state) {
    ++k;
    log.log(LogTopic::kSensors, k, *m.m.sensors);
    for (const proto::JMail* j : m.m.jmail) log.log(LogTopic::kJMail, k, *j);
    log.log(LogTopic::kParcel, k, *m.m.parcel);
    log.log(LogTopic::kSMail, k, *m.m.smail);
    log.log(LogTopic::kMMail, k, *m.m.mmail);
  }
  log.finish();
}
BENCHMARK(runLogSupervisor)->Unit(benchmark::kNanosecond);

}  // namespace

RFMS_BENCHMARK_MAIN()
