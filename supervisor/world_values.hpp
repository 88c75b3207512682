// What the period reads of the user's world model (RFMS manual §2, §4.1.1): the transforms' values
// with their motion, the position equations and the motion records, each in the place its name
// was given (supervisor/world_model.hpp keeps the names and checks definitions). Everything here
// is a value of fixed size in storage taken when the model is built: the background builds a
// definition in its own copy and hands the period the finished place (supervisor/period_command.hpp),
// which the period copies into its copy without allocating.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "common/force_law.hpp"
#include "common/ik_opw.hpp"
#include "common/types.hpp"
#include "supervisor/force_control.hpp"
#include "supervisor/frame_history.hpp"

namespace rfms {

// One factor of a product of transforms: a stored transform or its inverse.
struct Atom {
  int transform = -1;
  bool inverse = false;
};

// A position equation as the manual stores it (A.5 §2.1, after RCCL): a ring. Both sides of
// L1 .. Lm = R1 .. Rn are the same frame, so going round the loop, L1 .. Lm Rn^-1 .. R1^-1, is the
// identity, and so is every rotation of it. Rotating the ring until T6 stands first and moving the
// rest to the other side gives T6 as one product, wherever T6 was written:
//   Z T6 TOOL = CONV OBJ   =>  T6 = Z^-1 CONV OBJ TOOL^-1
//   CONV OBJ = Z T6 TOOL   =>  the same ring, read the other way round.
// `t6` holds that product's atoms, in order, built once when the equation is defined.
struct PositionEquation {
  static constexpr int kMaxAtoms = 16;  // transforms besides T6 in one equation
  std::array<Atom, kMaxAtoms> t6{};
  int atoms = 0;
  int tool = -1;  // the tool transform (written right after T6, named by TL), -1 without one
  ArmConfig config;
  std::span<const Atom> product() const { return {t6.data(), static_cast<std::size_t>(atoms)}; }
};
bool operator==(const PositionEquation& a, const PositionEquation& b);

// A motion record holds numbers only (its name is the world model's): the trajectory copies the
// current move's record in the period.
struct MotionRecord {
  double segment = 0.0;  // s
  double accel = 0.0;    // s
  bool cartesian = false;
  std::uint32_t compliance = 0;  // bits 0..5: x y z rx ry rz
  // Once its target is reached, keep servoing to it as its transforms change, until a stop or
  // the next move.
  bool track = false;
  double guard = 0.0;  // N: a guarded motion ends where the contact force reaches this (0: none)
  // Force or impedance control along the compliant axes (proto ForceControl); without it each
  // compliant axis of the base frame is free at T6's origin, as the manual's compliance was.
  bool has_force = false;
  ForceSpec force;
  // A.1's position compensator on the wrist's deflection (k1 0: none); k1 is Eq. 15's K1, how much
  // of a steady deflection the servo takes back.
  CompensatorGains compensator;
};
// The compensator's lag when a motion names none: a 5 Hz low pass.
inline constexpr double kDefaultCompensatorLagS = 0.0318309886183791;  // 1 / (2 pi 5)
// Whether a compensator moves the setpoint at all.
inline bool compensates(const CompensatorGains& g) { return g.k1 > 0.0 || g.k2 > 0.0 || g.k3 > 0.0; }
bool operator==(const MotionRecord& a, const MotionRecord& b);

// How moving frames are carried on (FrameHistory): the fit's window, how far past the newest
// update a frame may be carried, and the controller's own delay from a setpoint to the arm, which
// is added so that the arm is where the frame will be when the setpoint takes effect.
struct FrameTracking {
  double history = 0.1;    // s
  double max_lead = 0.05;  // s (0: frames are not carried on)
  double delay = 0.0;      // s
};

class WorldValues {
 public:
  // Room for `places` transforms, as many positions and as many motions.
  explicit WorldValues(std::size_t places = 1024, const FrameTracking& tracking = {});

  // The supervisor's clock (s): moving frames are carried on to it. Real-time safe.
  void setClock(double now) { now_ = now; }
  double clock() const { return now_; }
  const FrameTracking& tracking() const { return tracking_; }
  std::size_t places() const { return transforms_.size(); }

  // A place's new value. Real-time safe: the storage exists; `i` is below places().
  void setTransform(int i, const Transform& value, const FrameHistory& history);
  void setPosition(int i, const PositionEquation& p) { positions_[static_cast<std::size_t>(i)] = p; }
  void setMotion(int i, const MotionRecord& m) { motions_[static_cast<std::size_t>(i)] = m; }

  // T6 of position equation `i` with the transforms' current values: as last defined, or, for a
  // frame that moves (FrameHistory), where it will be when a setpoint sent now takes effect.
  // Real-time safe.
  Transform solve(int i) const;
  // Its tool transform's current value; the identity when it has none. Real-time safe.
  Transform tool(int i) const;
  // Transform `i` now, as solve() uses it.
  Transform current(int i) const;

  const Transform& transform(int i) const { return transforms_[static_cast<std::size_t>(i)]; }
  const FrameHistory& history(int i) const { return histories_[static_cast<std::size_t>(i)]; }
  const PositionEquation& position(int i) const { return positions_[static_cast<std::size_t>(i)]; }
  const MotionRecord& motion(int i) const { return motions_[static_cast<std::size_t>(i)]; }

 private:
  FrameTracking tracking_;
  double now_ = 0.0;
  std::vector<Transform> transforms_;
  std::vector<FrameHistory> histories_;
  std::vector<PositionEquation> positions_;
  std::vector<MotionRecord> motions_;
};

}  // namespace rfms
