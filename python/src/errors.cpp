#include "python/src/errors.hpp"

#include "client/rfms_client.hpp"
#include "net_bridge/udp_link_client.hpp"

namespace rfms::python {

namespace py = pybind11;

namespace {

// The classes live in Python (subclasses of ValueError, ConnectionError, ... as fits each) so that
// their docstrings and `reason` attribute are ordinary Python; the module is imported when first
// needed, by which time the package has loaded it.
py::object errorClass(const char* name) { return py::module_::import("rfms.errors").attr(name); }

void setError(const char* name, py::tuple args) {
  py::object cls = errorClass(name);
  PyErr_SetObject(cls.ptr(), cls(*args).ptr());
}

}  // namespace

void raise(const char* name, const std::string& message) {
  setError(name, py::make_tuple(message));
  throw py::error_already_set();
}

void registerErrors() {
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const RequestRefused& e) {
      setError("RequestRefused", py::make_tuple(e.what(), e.reason()));
    } catch (const MoveFailed& e) {
      setError("MoveFailed", py::make_tuple(e.what()));
    } catch (const LinkError& e) {
      setError("LinkError", py::make_tuple(e.what()));
    } catch (const ConfigError& e) {
      setError("ConfigError", py::make_tuple(e.what()));
    }
  });
}

}  // namespace rfms::python
