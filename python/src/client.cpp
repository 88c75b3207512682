// The link client as the Python package's Client: RfmsClient (client/rfms_client.hpp) behind a
// mutex, with the GIL released while a call waits on the link, answers converted to plain Python
// values (dicts of floats, strings and numpy arrays; rfms/client.py gives them their classes), and
// a watch's samples kept from every status answer, wait()'s included, until taken.
#include <pybind11/stl.h>

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <variant>

#include "client/rfms_client.hpp"
#include "client/task_link.hpp"
#include "common/mail_codec.hpp"
#include "common/number_text.hpp"
#include "python/src/arrays.hpp"
#include "python/src/module.hpp"
#include "python/src/proto_dict.hpp"
#include "python/src/timing.hpp"

namespace rfms::python {

namespace {

// The longest a wait may be asked for: a week, longer than any task; beyond it a wait is for ever.
constexpr double kLongestWaitS = 7 * 24 * 3600.0;

std::uint32_t axisBit(const std::string& axis) {
  static const char* const kNames[] = {"x", "y", "z", "rx", "ry", "rz"};
  for (int d = 0; d < 6; ++d)
    if (axis == kNames[d]) return 1u << d;
  throw py::value_error("'" + axis + "' is not an axis: x, y, z, rx, ry or rz");
}

CartesianAxis axisOf(const std::string& axis) { return static_cast<CartesianAxis>(axisBit(axis)); }

Motion::Mode modeOf(const std::string& mode) {
  if (mode == "joint") return Motion::kJoint;
  if (mode == "cartesian") return Motion::kCartesian;
  throw py::value_error("a motion's mode is 'joint' or 'cartesian', not '" + mode + "'");
}

ForceLaw lawOf(const std::string& law) {
  if (law == "p") return ForceLaw::kP;
  if (law == "pd") return ForceLaw::kPD;
  if (law == "pi") return ForceLaw::kPI;
  throw py::value_error("a force law is 'p', 'pd' or 'pi', not '" + law + "'");
}

// The samples a watch has delivered and nobody has taken yet: bounded, so that a program that
// watches and never reads cannot grow without end (the overflow is counted).
struct SampleStore {
  static constexpr std::size_t kMaxSamples = 1 << 20;
  std::deque<proto::SignalSample> samples;
  std::vector<std::string> watched;
  double dt_ms = 0.0, rate_hz = 0.0;
  std::uint64_t dropped_here = 0, dropped_there = 0;

  void keep(const proto::ArmStatus& s) {
    watched.assign(s.watched().begin(), s.watched().end());
    dt_ms = s.dt_ms();
    rate_hz = s.watch_rate_hz();
    dropped_there = s.samples_dropped();
    for (const proto::SignalSample& x : s.samples()) {
      if (samples.size() == kMaxSamples) {
        samples.pop_front();
        ++dropped_here;
      }
      samples.push_back(x);
    }
  }
};

class Client {
 public:
  explicit Client(const ClientOptions& o) : client_(o) {
    client_.wire().onStatus([this](const proto::ArmStatus& s) { store_.keep(s); });
  }

  // Runs fn on the client with the GIL released (another Python thread may run meanwhile) and
  // the client's lock held (RfmsClient is one link session: one request at a time).
  template <typename Fn>
  auto call(Fn fn) {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    return fn(client_);
  }

  py::dict status() {
    proto::ArmStatus s = call([](RfmsClient& c) { return c.wire().status(); });
    s.clear_samples();
    return toDict(s);
  }
  // RfmsClient::wait, in steps that let Python deliver a signal in between: Ctrl-C interrupts a
  // wait in a notebook rather than waiting out a long move.
  py::dict wait(std::uint64_t move, double timeout_s) {
    using Clock = std::chrono::steady_clock;
    const auto deadline =
        Clock::now() + std::chrono::duration<double>(finiteIn(timeout_s, "timeout_s", 0.0, kLongestWaitS));
    for (;;) {
      if (call([&](RfmsClient& c) { return c.wire().status().ended_through() >= move; }))
        return toDict(call([&](RfmsClient& c) { return c.wire().wait(move, 0.0); }));  // ended: its outcome
      if (Clock::now() > deadline)
        throw MoveFailed("move " + std::to_string(move) + " has not ended after " + numberText(timeout_s) + " s");
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      py::gil_scoped_release release;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  // (periods, values, signals, dt_ms, dropped): every sample kept so far, oldest first.
  py::tuple takeSamples() {
    std::deque<proto::SignalSample> taken;
    std::vector<std::string> watched;
    double dt_ms = 0.0;
    std::uint64_t dropped = 0;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      taken.swap(store_.samples);
      watched = store_.watched;
      dt_ms = store_.dt_ms;
      dropped = store_.dropped_here + store_.dropped_there;
    }
    const std::size_t n = taken.size(), k = watched.size();
    py::array_t<std::uint64_t> periods(static_cast<py::ssize_t>(n));
    Array values({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(k)});
    double* v = values.mutable_data();
    for (std::size_t i = 0; i < n; ++i) {
      periods.mutable_data()[i] = taken[i].period();
      for (std::size_t j = 0; j < k; ++j)
        v[i * k + j] = j < static_cast<std::size_t>(taken[i].values_size()) ? taken[i].values(static_cast<int>(j))
                                                                            : std::numeric_limits<double>::quiet_NaN();
    }
    return py::make_tuple(periods, values, watched, dt_ms, dropped);
  }
  void clearSamples() {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    store_.samples.clear();
  }

 private:
  std::mutex mutex_;
  RfmsClient client_;
  SampleStore store_;
};

ClientOptions optionsOf(const std::string& bridge, const std::string& key, double link_timeout_s, int tries) {
  ClientOptions o;
  o.bridge = bridge;
  o.key_file = key;
  // A wait per try of up to a minute, and up to a million tries: beyond either a client waits for
  // ever in all but name.
  o.link.timeout_s = finiteIn(link_timeout_s, "link_timeout_s", 1e-4, 60.0);
  if (tries < 1 || tries > 1'000'000)
    throw py::value_error("tries: " + std::to_string(tries) + " is not in 1 .. 1000000");
  o.link.max_tries = tries;
  return o;
}

void bindForce(py::module_& m) {
  py::class_<Force>(m, "Force",
                    "Force and impedance control for a motion (docs/force.md), e.g. Force().press('z', -10.0).")
      .def(py::init<>())
      .def(
          "press",
          [](Force& f, const std::string& axis, double setpoint) -> Force& {
            return f.press(axisOf(axis), finite(setpoint, "setpoint"));
          },
          py::arg("axis"), py::arg("setpoint"), py::return_value_policy::reference_internal,
          "The tool applies this force (N) or moment (N m) along the axis, by the force law.")
      .def(
          "spring",
          [](Force& f, const std::string& axis, double stiffness, double damping) -> Force& {
            return f.spring(axisOf(axis), finite(stiffness, "stiffness"), finite(damping, "damping"));
          },
          py::arg("axis"), py::arg("stiffness"), py::arg("damping") = 0.0, py::return_value_policy::reference_internal,
          "A stiffness (N/m or N m/rad) to the path along the axis, and a damper.")
      .def(
          "damp",
          [](Force& f, const std::string& axis, double damping) -> Force& {
            return f.damp(axisOf(axis), finite(damping, "damping"));
          },
          py::arg("axis"), py::arg("damping"), py::return_value_policy::reference_internal)
      .def("in_tool_frame", &Force::inToolFrame, py::return_value_policy::reference_internal,
           "The axes are the tool frame's, not the base frame's.")
      .def(
          "law",
          [](Force& f, const std::string& law, double kp, double k2) -> Force& {
            return f.law(lawOf(law), finite(kp, "kp"), finite(k2, "k2"));
          },
          py::arg("law"), py::arg("kp"), py::arg("k2") = 0.0, py::return_value_policy::reference_internal,
          "The force law: 'p', 'pd' (k2 = kv) or 'pi' (k2 = ki).");
}

void bindControls(py::class_<Client>& c) {
  c.def("calibrate", [](Client& x) { x.call([](RfmsClient& r) { r.calibrate(); }); })
      .def("hold", [](Client& x) { x.call([](RfmsClient& r) { r.hold(); }); })
      .def("free", [](Client& x) { x.call([](RfmsClient& r) { r.free(); }); })
      .def("stop", [](Client& x) { x.call([](RfmsClient& r) { r.stop(); }); })
      .def("reset", [](Client& x) { x.call([](RfmsClient& r) { r.reset(); }); })
      .def("power_off", [](Client& x) { x.call([](RfmsClient& r) { r.powerOff(); }); })
      .def("emergency_stop", [](Client& x) { x.call([](RfmsClient& r) { r.emergencyStop(); }); })
      .def(
          "jog",
          [](Client& x, const std::variant<int, std::string>& target, int direction, int counts, double angle,
             double distance, bool tool_frame) {
            Jog j = std::holds_alternative<int>(target) ? Jog::ofJoint(std::get<int>(target), direction)
                                                        : Jog::along(axisOf(std::get<std::string>(target)), direction);
            j.counts(counts).angle(finite(angle, "angle")).distance(finite(distance, "distance"));
            if (tool_frame) j.inToolFrame();
            x.call([&](RfmsClient& r) { r.jog(j); });
          },
          py::arg("target"), py::arg("direction"), py::arg("counts") = 0, py::arg("angle") = 0.0,
          py::arg("distance") = 0.0, py::arg("tool_frame") = false);
}

}  // namespace

void bindClient(py::module_& m) {
  bindForce(m);
  py::class_<Client> c(m, "Client", "One link session with the bridge (rfms.connect opens one).");
  c.def(py::init([](const std::string& bridge, const std::string& key, double link_timeout_s, int tries) {
          const ClientOptions o = optionsOf(bridge, key, link_timeout_s, tries);
          py::gil_scoped_release release;  // loading a key reads a file; nothing here needs Python
          return std::make_unique<Client>(o);
        }),
        py::arg("bridge"), py::arg("key") = "", py::arg("link_timeout_s") = LinkOptions{}.timeout_s,
        py::arg("tries") = LinkOptions{}.max_tries)
      .def("begin_task", [](Client& x, const std::string& n) { x.call([&](RfmsClient& r) { r.beginTask(n); }); })
      .def("end_task", [](Client& x) { x.call([](RfmsClient& r) { r.endTask(); }); })
      .def("transform",
           [](Client& x, const std::string& name, const Array& t) {
             const Transform value = toTransform(t, "transform '" + name + "'");
             x.call([&](RfmsClient& r) { r.transform(name, value); });
           })
      .def("position",
           [](Client& x, const std::string& name, const std::string& config, const std::vector<std::string>& lhs,
              const std::vector<std::string>& rhs, const std::string& tool) {
             const std::optional<ArmConfig> flags = ArmConfig::parse(config);
             if (!flags) throw py::value_error("'" + config + "' is not an arm configuration: e.g. 'righty,down,flip'");
             x.call([&](RfmsClient& r) { r.position(name, *flags, lhs, rhs, tool); });
           })
      .def("motion",
           [](Client& x, const std::string& name, double segment_s, double accel_s, const std::string& mode,
              const std::vector<std::string>& compliance, bool track, double guard_n, double compensation,
              const std::map<std::string, double>& compensator, std::optional<Force> force) {
             Motion motion{.mode = modeOf(mode),
                           .segment_s = finite(segment_s, "segment_s"),
                           .accel_s = finite(accel_s, "accel_s"),
                           .track = track,
                           .guard_n = finite(guard_n, "guard_n"),
                           .compensation = finite(compensation, "compensation"),
                           .force = std::move(force)};
             for (const auto& [term, given] : compensator) {
               const double value = finite(given, "compensator " + term);
               if (term == "rate_s")
                 motion.compensator.rate_s = value;
               else if (term == "acceleration_s2")
                 motion.compensator.acceleration_s2 = value;
               else if (term == "lead_s")
                 motion.compensator.lead_s = value;
               else if (term == "lag_s")
                 motion.compensator.lag_s = value;
               else
                 throw py::value_error("compensator: '" + term +
                                       "' is not a term: rate_s, acceleration_s2, lead_s or lag_s");
             }
             for (const std::string& a : compliance) motion.compliance |= axisBit(a);
             x.call([&](RfmsClient& r) { r.motion(name, motion); });
           })
      .def("forget",
           [](Client& x, const std::string& kind, const std::string& name) {
             const RfmsClient::NameKind k = kind == "transform"  ? RfmsClient::kTransformName
                                            : kind == "position" ? RfmsClient::kPositionName
                                            : kind == "motion"   ? RfmsClient::kMotionName
                                                                 : throw py::value_error(
                                                                       "forget: kind is 'transform', 'position' or "
                                                                         "'motion'");
             x.call([&](RfmsClient& r) { r.forget(k, name); });
           })
      .def("move",
           [](Client& x, const std::string& position, const std::string& motion) {
             return x.call([&](RfmsClient& r) { return r.move(position, motion); });
           })
      .def("wait", &Client::wait)
      .def("wait_all",
           [](Client& x, double timeout_s) {
             finiteIn(timeout_s, "timeout_s", 0.0, kLongestWaitS);
             x.call([&](RfmsClient& r) { r.waitAll(timeout_s); });
           })
      .def("status", &Client::status)
      .def("watch",
           [](Client& x, const std::vector<std::string>& signals, double rate_hz) {
             finite(rate_hz, "rate_hz");
             x.clearSamples();
             x.call([&](RfmsClient& r) { r.watch(signals, rate_hz); });
           })
      .def("take_samples", &Client::takeSamples)
      .def(
          "_cpp_status_seconds",
          [](Client& x, int n) {
            // The benchmark's peer (bench/rfms-bench-python): n status round trips from C++.
            return x.call([&](RfmsClient& r) {
              return secondsPerCall(n, [&] { return static_cast<double>(r.wire().status().period()); });
            });
          },
          py::arg("n"))
      .def_property_readonly("session", [](Client& x) { return x.call([](RfmsClient& r) { return r.session(); }); })
      .def_property_readonly("requests_sent",
                             [](Client& x) { return x.call([](RfmsClient& r) { return r.requestsSent(); }); });
  bindControls(c);
}

}  // namespace rfms::python
