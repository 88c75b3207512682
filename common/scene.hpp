// A scene (proto/scene.proto) in SI units: the tool on the flange and the solids it can touch.
// Loading checks every field and throws ConfigError naming the file and field; after that the
// scene is constant data that the emulated arm reads in its period and the controller's model
// takes the tool's mass from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/robot_model.hpp"
#include "common/wrist_linkage.hpp"
#include "proto/scene.pb.h"

namespace rfms {

struct ToolModel {
  LinkInertia inertia;                      // in frame 6, about its origin (zero mass: no tool)
  Vec3 com = Vec3::Zero();                  // its centre of mass, frame 6
  Mat3 inertia_at_com = Mat3::Zero();       // about its centre of mass, frame 6 axes
  Transform frame = Transform::Identity();  // E: T6 E is the tool frame; its origin is the tool point
  double tip_radius = 0.005;                // m: the tool touches as a ball at the tool point
};

struct SurfaceModel {
  enum class Shape { kPlane, kBox };
  std::string name;
  Shape shape = Shape::kPlane;
  // Plane: the solid is behind `normal` through `pose`'s origin (normal = pose's z axis).
  // Box: `pose` is the box's centre and axes, half_size its half edge lengths.
  Transform pose = Transform::Identity();
  Vec3 half_size = Vec3::Zero();
  double stiffness = 0.0;        // N/m
  double damping = 0.0;          // N s/m
  double friction = 0.0;         // Coulomb coefficient
  Vec3 velocity = Vec3::Zero();  // m/s, constant from t = 0
};

struct ForceTorqueModel {
  double noise_force = 0.0, noise_moment = 0.0;  // standard deviations, N and N m
  Vec6 bias = Vec6::Zero();                      // fx fy fz mx my mz
  double bandwidth_hz = 0.0;                     // 0: no filter
  double range_force = 0.0, range_moment = 0.0;  // N, N m
  std::uint64_t seed = 1;
};

// The compliant wrist between flange and tool (proto CompliantWrist): its springs and dampers act
// at the tool's centre of mass, along and about T6's axes.
struct WristModel {
  double stiffness = 0.0, stiffness_turn = 0.0;  // N/m, N m/rad
  double damping = 0.0, damping_turn = 0.0;      // N s/m, N m s/rad
  double resolution = 0.0;                       // rad: one count of each potentiometer's converter
  double noise = 0.0;                            // rad: each potentiometer's, standard deviation
  double travel = 0.0, travel_turn = 0.0;        // m, rad
  std::uint64_t seed = 1;
  WristLinkage linkage;  // between the plates, one potentiometer on each joint
};

enum class SensorKind { kNone, kForceTorque, kCompliantWrist };

struct Scene {
  std::string name;
  std::string source;  // the file it came from ("" for the empty scene)
  ToolModel tool;
  std::vector<SurfaceModel> surfaces;
  double slip_velocity = 0.005;  // m/s
  SensorKind sensor = SensorKind::kNone;
  ForceTorqueModel force_torque;  // when sensor is kForceTorque
  WristModel wrist;               // when sensor is kCompliantWrist

  bool empty() const { return surfaces.empty() && tool.inertia.mass == 0.0; }
};

// Reads and checks a scene file.
Scene loadScene(const std::string& path);
// The same from a message already parsed; `source` names it in messages.
Scene sceneFromProto(const proto::Scene& p, const std::string& source);

// The wrench the world puts on the tool, from a force/torque sensor's reading (T6's axes, about
// T6's origin) at pose t6, less the tool's weight: base axes, the moment about the tool point.
Vec6 contactFromReading(const ToolModel& tool, const Vec3& gravity, const Transform& t6, const Vec6& reading);

// What a compliant wrist's deflection reading (dx dy dz rx ry rz, T6's axes) says the tool puts on
// the flange through its springs: the same wrench a force/torque sensor would read, in T6's axes
// about T6's origin. The dampers' share is not measured; at rest there is none.
Vec6 wrenchFromDeflection(const WristModel& wrist, const ToolModel& tool, const Vec6& deflection);

// The model with the tool's mass properties added to link 6's: what the arm is with it on, for
// the plant and for the controller alike.
RobotModel withTool(const RobotModel& model, const ToolModel& tool);
// The same taken off again: the arm alone, when the tool rides on a compliant wrist.
RobotModel withoutTool(const RobotModel& model, const ToolModel& tool);

}  // namespace rfms
