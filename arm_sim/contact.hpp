// Contact between the tool and the scene's solids (common/scene.hpp), as the emulated arm computes
// it inside every stage of its integrator.
//
// The tool touches as a ball. Against each solid it penetrates by depth d along the solid's outward
// normal n, the normal force is a spring and a damper that never pulls,
//     N = max(0, k d + c d'),
// and friction opposes the sliding of the contact point over the (possibly moving) surface,
//     F_t = -mu N tanh(|v_t| / v_slip) v_t / |v_t|.
// Both take energy out or give back at most what the spring stored: a contact injects none (the
// clamp only drops the pull a fast separation would have; friction only dissipates). tanh keeps
// the force smooth for the integrator; v_slip is the scene's slip velocity.
//
// Pure and real-time safe: no allocation, no throw.
#pragma once

#include "common/scene.hpp"

namespace rfms {

struct ContactWrench {
  Vec3 force = Vec3::Zero();   // N, on the tool, base frame
  Vec3 moment = Vec3::Zero();  // N m, about the ball's centre (the tool point), base frame
  double depth = 0.0;          // m: the deepest penetration, 0 when nothing touches
  int surface = -1;            // the index of the deepest surface touched, -1 for none
  double energy = 0.0;         // J: what the contact springs hold now (for energy balances)
};

// The solid's outward normal at the ball and how deep the ball is in it (<= 0: not touching).
struct Penetration {
  Vec3 normal = Vec3::UnitZ();
  double depth = 0.0;
};
Penetration penetration(const SurfaceModel& s, const Vec3& centre, double radius, double t);

// What every surface of `scene` exerts on the tool ball whose centre is at `centre`, moving at
// `velocity` and turning at `omega` (base frame), at time t (s from the start of the run).
ContactWrench contactWrench(const Scene& scene, const Vec3& centre, const Vec3& velocity, const Vec3& omega, double t);

}  // namespace rfms
