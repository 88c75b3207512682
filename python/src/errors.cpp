#include "python/src/errors.hpp"

#include "client/rfms_client.hpp"
#include "common/refusal.hpp"
#include "net_bridge/udp_link_client.hpp"

namespace rfms::python {

namespace py = pybind11;

namespace {

// The classes live in Python (subclasses of ValueError, ConnectionError, ... as fits each) so that
// their docstrings and `reason` attribute are ordinary Python; the module is imported when first
// needed, by which time the package has loaded it.
py::object errorClass(const char* name) { return py::module_::import("rfms.errors").attr(name); }

// A message can quote what the user's file held (a key file's line, say), which need not be
// UTF-8: the bytes that are not become U+FFFD rather than a UnicodeDecodeError in place of the error.
py::str messageText(const std::string& message) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace"));
}

void setError(const char* name, py::tuple args) {
  py::object cls = errorClass(name);
  PyErr_SetObject(cls.ptr(), cls(*args).ptr());
}

}  // namespace

void raise(const char* name, const std::string& message) {
  setError(name, py::make_tuple(messageText(message)));
  throw py::error_already_set();
}

void registerErrors() {
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const RequestRefused& e) {
      setError("RequestRefused", py::make_tuple(messageText(e.what()), e.reason(), refusalName(e.code())));
    } catch (const MoveFailed& e) {
      setError("MoveFailed", py::make_tuple(messageText(e.what())));
    } catch (const LinkError& e) {
      setError("LinkError", py::make_tuple(messageText(e.what())));
    } catch (const ConfigError& e) {
      setError("ConfigError", py::make_tuple(messageText(e.what())));
    }
  });
}

void bindRefusalNames(py::module_& m) {
  m.def("refusal_names", [] {
    py::list names;
    for (int i = 1; i < kRefusalCodes; ++i) names.append(refusalName(static_cast<RefusalCode>(i)));
    return names;
  });
}

}  // namespace rfms::python
