#include "replay/run_log_reader.hpp"

#include <cstdlib>

#include "common/error.hpp"
#include "runlog/log_files.hpp"
#include "runlog/run_logger.hpp"

namespace rfms {

const proto::ControllerSettings& RunLog::requireSettings() const {
  if (!settings) throw ConfigError(settings_error);
  return *settings;
}

double RunLog::dtMs() const {
  if (settings) return settings->dt_ms();
  const auto it = header.find("dt_ms");
  if (it == header.end()) return 1.0;
  char* end = nullptr;
  const double dt = std::strtod(it->second.c_str(), &end);
  return end != it->second.c_str() && dt >= 0.5 && dt <= 10.0 ? dt : 1.0;
}

RunLog readRunLog(const std::string& path, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  RunLog log;
  // Decoded as read, so that no message's bytes are held beside its decoded form.
  const std::string none;
  auto sink = [&](const mcap::Channel* ch, std::uint64_t, std::string_view data) {
    ++log.messages;
    const std::string& t = ch != nullptr ? ch->topic : none;
    auto add = [&](auto& into) {
      typename std::decay_t<decltype(into)>::value_type v;
      if (v.ParseFromArray(data.data(), static_cast<int>(data.size())))
        into.push_back(std::move(v));
      else
        ++log.undecodable;
    };
    if (t == topic::kSMail)
      add(log.smail);
    else if (t == topic::kJMail)
      add(log.jmail);
    else if (t == topic::kMMail)
      add(log.mmail);
    else if (t == topic::kParcel)
      add(log.parcel);
    else if (t == topic::kSensors)
      add(log.sensors);
    else if (t == topic::kTorque)
      add(log.torque);
    else if (t == topic::kRequest)
      add(log.requests);
    else if (t == topic::kEvent)
      add(log.events);
    else if (t == topic::kTiming)
      add(log.timing);
    else if (t == topic::kApplied)
      add(log.applied);
    else if (t == topic::kDrops)
      log.have_drops = log.drops.ParseFromArray(data.data(), static_cast<int>(data.size()));
  };
  std::vector<LogFile> files = logFilesOf(path);
  if (files.empty()) files.push_back({0, path});  // for readFile to say why it cannot be opened
  log.first_file = files.front().number;
  for (const LogFile& f : files) {
    if (f.number != files.front().number + log.files.size()) {
      log.error = logFilePath(path, files.front().number + static_cast<unsigned>(log.files.size())) +
                  " is missing: the run's later files are not read";
      break;
    }
    const mcap::Contents c = mcap::readFile(f.path, progress, sink);
    log.files.push_back(f.path);
    log.file_size += c.file_size;
    if (log.header.empty())
      for (const auto& [name, values] : c.metadata)
        if (name == "rfms") log.header = values;
    if (!c.error.empty()) {  // the files after a damaged one would leave a hole: not read
      log.error = files.size() > 1 ? f.path + ": " + c.error : c.error;
      log.error_offset = c.error_offset;
      break;
    }
  }
  log.header.erase("file");  // which file the header came from, not a property of the run
  try {
    log.settings = settingsOfHeader(log.header);
  } catch (const ConfigError& e) {
    log.settings_error = e.what();
  }
  return log;
}

}  // namespace rfms
