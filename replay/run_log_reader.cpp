#include "replay/run_log_reader.hpp"

#include "runlog/run_logger.hpp"

namespace rfms {

double RunLog::dtMs() const {
  const auto it = header.find("dt_ms");
  return it == header.end() ? 1.0 : std::stod(it->second);
}

RunLog readRunLog(const std::string& path, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  const mcap::Contents c = mcap::readFile(path, progress);
  RunLog log;
  log.error = c.error;
  log.error_offset = c.error_offset;
  log.file_size = c.file_size;
  for (const auto& [name, values] : c.metadata)
    if (name == "rfms") log.header = values;
  std::map<std::uint16_t, std::string> topics;
  for (const auto& [id, ch] : c.channels) topics[id] = ch.topic;
  for (const mcap::Message& m : c.messages) {
    ++log.messages;
    const std::string& t = topics[m.channel];
    auto add = [&](auto& into) {
      typename std::decay_t<decltype(into)>::value_type v;
      if (v.ParseFromString(m.data)) into.push_back(std::move(v));
      else ++log.undecodable;
    };
    if (t == topic::kSMail) add(log.smail);
    else if (t == topic::kJMail) add(log.jmail);
    else if (t == topic::kMMail) add(log.mmail);
    else if (t == topic::kParcel) add(log.parcel);
    else if (t == topic::kSensors) add(log.sensors);
    else if (t == topic::kTorque) add(log.torque);
    else if (t == topic::kRequest) add(log.requests);
    else if (t == topic::kEvent) add(log.events);
    else if (t == topic::kTiming) add(log.timing);
    else if (t == topic::kApplied) add(log.applied);
    else if (t == topic::kDrops) log.have_drops = log.drops.ParseFromString(m.data);
  }
  return log;
}

}  // namespace rfms
