// The user's world model (RFMS manual §2, §4.1.1): symbol tables of named transforms, position
// equations and motion records over their values (WorldValues). Definitions arrive from a task on
// the supervisor's background side and are checked here: a refused definition changes nothing and
// says why; an accepted one fills its place in values(), which the background then hands to the
// period's own copy.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/refusal.hpp"
#include "proto/task.pb.h"
#include "supervisor/world_values.hpp"

namespace rfms {

// A motion's position compensator as the supervisor runs it: K1 from `compensation`, the rest from
// `compensator`, the lag kDefaultCompensatorLagS when it names none.
CompensatorGains compensatorOf(const proto::DefineMotion& d);

class WorldModel {
 public:
  // At most `max_names` transforms, as many positions and as many motions.
  explicit WorldModel(std::size_t max_names = 1024, const FrameTracking& tracking = {})
      : max_names_(max_names), values_(max_names, tracking) {}

  // The supervisor's clock (s): definitions are stamped with it, and moving frames are carried on
  // to it.
  void setClock(double now) { values_.setClock(now); }

  // Each returns no refusal when the definition is accepted, otherwise why it was refused.
  Refusal defineTransform(const proto::DefineTransform& d);
  Refusal definePosition(const proto::DefinePosition& d);
  Refusal defineMotion(const proto::DefineMotion& d);
  // The record a motion's definition would make, checked as defineMotion checks it, without
  // defining it: no refusal when it is sound.
  Refusal motionRecordOf(const proto::DefineMotion& d, MotionRecord& m) const;

  // Forgets a name (proto::Forget), so that it and its place can be used again: no refusal when
  // forgotten, else why not (it is not defined; a transform a position's equation uses). Whether a
  // position or motion is in use by a move is the caller's to check (the trajectory knows).
  Refusal forget(const proto::Forget& f);
  // Names defined now, each kind.
  std::size_t transformNames() const { return transform_index_.size(); }
  std::size_t positionNames() const { return position_index_.size(); }
  std::size_t motionNames() const { return motion_index_.size(); }

  // Every name of a kind with its place, in name order.
  const std::map<std::string, int>& transformIndex() const { return transform_index_; }
  const std::map<std::string, int>& positionIndex() const { return position_index_; }
  const std::map<std::string, int>& motionIndex() const { return motion_index_; }

  int findTransform(const std::string& name) const { return find(transform_index_, name); }
  int findPosition(const std::string& name) const { return find(position_index_, name); }
  int findMotion(const std::string& name) const { return find(motion_index_, name); }

  // The values of every name, in the places find*() give.
  const WorldValues& values() const { return values_; }
  Transform solve(int i) const { return values_.solve(i); }
  Transform tool(int i) const { return values_.tool(i); }
  const PositionEquation& position(int i) const { return values_.position(i); }
  const MotionRecord& motion(int i) const { return values_.motion(i); }

 private:
  static int find(const std::map<std::string, int>& index, const std::string& name);
  // The place for a new name: a forgotten one's, else a new one at the end (`size`).
  static int placeFor(std::vector<int>& free, std::size_t& used);

  std::size_t max_names_;
  WorldValues values_;
  // Places ever used, each kind: the next new name takes the next one.
  std::size_t transforms_used_ = 0, positions_used_ = 0, motions_used_ = 0;
  std::map<std::string, int> transform_index_, position_index_, motion_index_;
  // Places of forgotten names, each kind, taken again before new ones (indices stay
  // stable: positions hold transforms' indices, queued moves positions' and motions').
  std::vector<int> free_transforms_, free_positions_, free_motions_;
};

}  // namespace rfms
