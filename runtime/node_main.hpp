// The part every node process's main() shares: command line, logger, stop signals, the cluster
// configuration and robot model, real-time settings, and one clear line with exit code 2 when any
// of it is wrong. A node's main adds its own options and passes its loop as `body`; it builds its
// core from `controller()` through the core's own configuration function.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/robot_model.hpp"
#include "common/scene.hpp"
#include "proto/cluster.pb.h"
#include "runtime/mail_fault_watch.hpp"
#include "runtime/mail_limits.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/node_shell.hpp"

namespace rfms {

struct NodeContext;

// A node's mailboxes with their watch: the watch stops before the port closes, and the node's
// last word stops reading the port's counts when it does.
class NodePort {
 public:
  NodePort(NodeContext& c, std::unique_ptr<MailPort> port);
  ~NodePort();
  NodePort(const NodePort&) = delete;
  NodePort& operator=(const NodePort&) = delete;
  MailPort& operator*() const { return *port_; }
  MailPort* operator->() const { return port_.get(); }

 private:
  NodeContext& c_;
  std::unique_ptr<MailPort> port_;
  std::unique_ptr<MailFaultWatch> watch_;
};

struct NodeContext {
  ClusterSettings settings;
  RobotModel model;  // with the scene's tool on link 6
  Scene scene;
  spdlog::logger& log;
  const NodeOptions& options;
  std::string name;                  // "arm", "math", "joint3", "supervisor": its log's and its files' name
  std::optional<MailLimits> limits;  // what this robot's mail can say (runtime/mail_limits.hpp)
  const proto::ControllerSettings& controller() const { return settings.config.controller(); }
  // The node's mailboxes (openMailPort), checking every mail against `limits`; its faults are
  // logged as they grow (runtime/mail_fault_watch.hpp) and go into the node's last word.
  NodePort openPort(proto::Node node, Transport& transport);
  // Leaves the node's last word in the run directory (runtime/node_end.hpp), and returns `code`,
  // the process's exit code.
  int ended(proto::Node node, proto::NodeEnd::Cause cause, std::uint64_t period, const std::string& detail,
            int code) const;
  // The same with the whole record (the arm adds where it left the arm).
  int ended(const proto::NodeEnd& end, int code) const;

  // Set by the NodePort while it lives: what ended() reports.
  const MailPort* port = nullptr;
  MailFaultWatch* watch = nullptr;
};

// `name()` is asked after parsing (a joint's name depends on --joint). The supervisor runs with
// priority_offset 1: it is the clock the others answer to.
int runNode(int argc, char** argv, CLI::App& app, const std::function<std::string()>& name, int priority_offset,
            const std::function<int(NodeContext&)>& body);

}  // namespace rfms
