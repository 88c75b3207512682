// The user's world model (RFMS manual §2, §4.1.1): symbol tables of named
// transforms, position equations and motion records. Definitions arrive from a task (the
// supervisor's background side) and are validated there: a refused definition changes nothing and
// says why. The real-time side only evaluates: solve() multiplies stored transforms by index.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/ik_puma.hpp"
#include "common/types.hpp"
#include "proto/task.pb.h"
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
  std::string name;
  std::vector<Atom> t6;
  int tool = -1;  // the tool transform (written right after T6, named by TL), -1 without one
  ArmConfig config;
};

// A motion record holds numbers only (its name is the world model's index): the trajectory copies
// the current move's record in the period, and a name longer than a std::string's inner buffer
// would make that copy allocate.
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
  double compensation = 0.0;  // K1 of A.1's Eq. 15: how much of the wrist's deflection the servo takes back
};
bool operator==(const MotionRecord& a, const MotionRecord& b);

// How moving frames are carried on (FrameHistory): the fit's window, how far past the newest
// update a frame may be carried, and the controller's own delay from a setpoint to the arm, which
// is added so that the arm is where the frame will be when the setpoint takes effect.
struct FrameTracking {
  double history = 0.1;    // s
  double max_lead = 0.05;  // s (0: frames are not carried on)
  double delay = 0.0;      // s
};

class WorldModel {
 public:
  // At most `max_names` transforms, as many positions and as many motions.
  explicit WorldModel(std::size_t max_names = 1024, const FrameTracking& tracking = {})
      : max_names_(max_names), tracking_(tracking) {}

  // The supervisor's clock (s): definitions are stamped with it, and moving frames are carried on
  // to it. Real-time safe.
  void setClock(double now) { now_ = now; }
  double clock() const { return now_; }

  // Each returns "" when the definition is accepted, otherwise the reason it was refused.
  std::string defineTransform(const proto::DefineTransform& d);
  std::string definePosition(const proto::DefinePosition& d);
  std::string defineMotion(const proto::DefineMotion& d);

  // Forgets a name (proto::Forget), so that it and its place can be used again: "" when
  // forgotten, else why not (it is not defined; a transform a position's equation uses). Whether a
  // position or motion is in use by a move is the caller's to check (the trajectory knows).
  std::string forget(const proto::Forget& f);
  // Names defined now, each kind.
  std::size_t transformNames() const { return transform_index_.size(); }
  std::size_t positionNames() const { return position_index_.size(); }
  std::size_t motionNames() const { return motion_index_.size(); }

  int findTransform(const std::string& name) const { return find(transform_index_, name); }
  int findPosition(const std::string& name) const { return find(position_index_, name); }
  int findMotion(const std::string& name) const { return find(motion_index_, name); }

  // T6 of position equation `i` with the transforms' current values: as last defined, or, for a
  // frame that moves (FrameHistory), where it will be when a setpoint sent now takes effect.
  // Real-time safe.
  Transform solve(int i) const;
  // Its tool transform's current value; the identity when it has none. Real-time safe.
  Transform tool(int i) const;
  // Transform `i` now, as solve() uses it.
  Transform current(int i) const;
  const FrameHistory& history(int i) const { return histories_[static_cast<std::size_t>(i)]; }

  const PositionEquation& position(int i) const { return positions_[static_cast<std::size_t>(i)]; }
  const MotionRecord& motion(int i) const { return motions_[static_cast<std::size_t>(i)]; }
  const Transform& transform(int i) const { return transforms_[static_cast<std::size_t>(i)]; }
  int transformCount() const { return static_cast<int>(transforms_.size()); }

 private:
  static int find(const std::map<std::string, int>& index, const std::string& name);
  // The place for a new name: a forgotten one's, else a new one at the end (`size`).
  static int placeFor(std::vector<int>& free, std::size_t size);

  std::size_t max_names_;
  FrameTracking tracking_;
  double now_ = 0.0;
  std::vector<Transform> transforms_;
  std::vector<FrameHistory> histories_;
  std::vector<std::string> transform_names_;
  std::vector<PositionEquation> positions_;
  std::vector<MotionRecord> motions_;
  std::map<std::string, int> transform_index_, position_index_, motion_index_;
  // Places of forgotten names, each kind, taken again before the vectors grow (indices stay
  // stable: positions hold transforms' indices, queued moves positions' and motions').
  std::vector<int> free_transforms_, free_positions_, free_motions_;
};

}  // namespace rfms
