// The report's passive compliant wrist (appendix A.1) in the emulated arm. The tool is a rigid body
// of its own, hung on the flange by six springs and dampers that act at its centre of mass, along
// and about T6's axes; six potentiometers measure how far it has moved from its rest.
//
//        flange (T6) ──┬── K, C along x y z ──┬── tool body (mass m, inertia I about its centre
//                      └── K_r, C_r about ────┘   of mass); contact acts on the body at the tool
//                                                   point, the springs' reaction on the flange
//
// The turn is measured by a = vee of the skew part of R_rel = R6ᵀ R_tool (the axis times the sine
// of the angle): its spring's potential K_r (3 − tr R_rel) / 2 makes the turning spring exactly
// conservative, so that the wrist alone neither gains nor loses energy; the dampers only take it.
// Past its travel each axis meets a stop 50 times stiffer.
//
// Pure and real-time safe: no allocation, no throw.
#pragma once

#include <cstdint>
#include <random>

#include "common/scene.hpp"

namespace rfms {

// The tool body's state: its centre of mass and velocity, its orientation (frame 6's axes when at
// rest on the flange) and angular velocity, all in base coordinates.
struct ToolBody {
  Vec3 x = Vec3::Zero(), v = Vec3::Zero();
  Eigen::Quaterniond r = Eigen::Quaterniond::Identity();
  Vec3 w = Vec3::Zero();
};

// What the springs and dampers do to the body, for the flange at `t6` moving at `twist` (J qd: the
// velocity of its origin, its angular velocity).
struct WristLoad {
  Vec3 force = Vec3::Zero(), moment = Vec3::Zero();  // on the body, base axes, about its centre of mass
  Vec6 deflection = Vec6::Zero();                    // d (T6 axes) and a: how far the springs are drawn
  Transform moved = Transform::Identity();           // the tool's displacement from its rest, T6's axes
  double energy = 0.0;                               // J: what the springs and stops hold
  // The reaction on the flange as a wrench at T6's origin, base axes (the form J^T takes).
  Vec6 onFlange(const Transform& t6, const ToolBody& body) const;
};

WristLoad wristLoad(const WristModel& wrist, const ToolModel& tool, const Transform& t6, const Vec6& twist,
                    const ToolBody& body);

// The body at rest on a flange held still at t6, its springs carrying its weight.
ToolBody toolBodyAtRest(const WristModel& wrist, const ToolModel& tool, const Transform& t6, const Vec3& gravity);

// The tool frame (T6 E as the body carries it) and the tool point's lever from the centre of mass.
Transform toolFrameOf(const ToolModel& tool, const ToolBody& body);

// The six potentiometers on the linkage between the plates, sampled once a period: the angles the
// tool's displacement gives the linkage's joints (found from last period's by Newton's method),
// plus Gaussian noise drawn from the scene's seed, quantised to the converters' resolution.
class WristPotentiometers {
 public:
  explicit WristPotentiometers(const WristModel& model) : model_(model), rng_(model.seed) {}
  void sample(const WristLoad& load);
  const Vec6& reading() const { return reading_; }     // rad, θ1 .. θ6 of Eq. 43
  std::uint32_t atStops() const { return at_stops_; }  // bit i: deflection axis i at its travel

 private:
  WristModel model_;
  Vec6 angles_ = Vec6::Zero();  // the linkage's, exact
  Vec6 reading_ = Vec6::Zero();
  std::uint32_t at_stops_ = 0;
  std::mt19937_64 rng_;
  std::normal_distribution<double> unit_{0.0, 1.0};
};

}  // namespace rfms
