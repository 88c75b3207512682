// rfms.open_log: a run log read once by the project's own reader (replay/run_log_reader.hpp), its
// signals as numpy columns by the names `rfms-replay export` takes, its events as dicts.
#include <pybind11/stl.h>

#include "common/error.hpp"
#include "python/src/arrays.hpp"
#include "python/src/module.hpp"
#include "python/src/proto_dict.hpp"
#include "replay/signals.hpp"

namespace rfms::python {

namespace {

class Log {
 public:
  explicit Log(RunLog log) : log_(std::move(log)) {}
  const RunLog& log() const { return log_; }

  // (time_s, values): one row per period, one column per signal, NaN where a period lacks it.
  py::tuple signals(const std::vector<std::string>& names) const {
    const SignalTable t = extractSignals(log_, names.empty() ? defaultSignals() : names);
    const std::size_t rows = t.time_s.size(), cols = t.columns.size();
    Array values({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(cols)});
    double* v = values.mutable_data();
    for (std::size_t c = 0; c < cols; ++c)
      for (std::size_t r = 0; r < rows; ++r) v[r * cols + c] = t.columns[c][r];
    return py::make_tuple(toArray(t.time_s.data(), rows), values, t.names);
  }
  py::list events() const {
    py::list l;
    for (const proto::LogEvent& e : log_.events) l.append(toDict(e));
    return l;
  }

 private:
  RunLog log_;
};

}  // namespace

void bindRunLog(py::module_& m) {
  py::class_<Log>(m, "Log", "A run log (run.mcap) read back.")
      .def(py::init([](const std::string& path) {
             RunLog log;
             {
               py::gil_scoped_release release;
               log = readRunLog(path);
             }
             // Nothing read: the file is missing or is no run log. A log damaged further on is
             // still read up to the damage (error says where), as rfms-replay reads it.
             if (log.messages == 0 && !log.error.empty())
               throw ConfigError(path + ": " + log.error +
                                 (log.file_size > 0 ? " at byte " + std::to_string(log.error_offset) : ""));
             return Log(std::move(log));
           }),
           py::arg("path"))
      .def("signals", &Log::signals, py::arg("names"))
      .def("events", &Log::events)
      .def_property_readonly("header", [](const Log& l) { return l.log().header; })
      .def_property_readonly("dt_ms", [](const Log& l) { return l.log().dtMs(); })
      .def_property_readonly("periods", [](const Log& l) { return l.log().periods(); })
      .def_property_readonly("files", [](const Log& l) { return l.log().files; })
      .def_property_readonly("error", [](const Log& l) { return l.log().error; })
      .def_property_readonly("cut_short", [](const Log& l) { return l.log().cut_short; });
}

}  // namespace rfms::python
