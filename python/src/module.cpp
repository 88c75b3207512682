// _rfms: the C++ half of the Python package rfms (python/rfms/ holds the other half).
#include "python/src/module.hpp"
#include "python/src/errors.hpp"

PYBIND11_MODULE(_rfms, m) {
  m.doc() = "The C++ core of the rfms package: use `import rfms`, not this module.";
  rfms::python::registerErrors();
  rfms::python::bindRefusalNames(m);
  rfms::python::bindMaths(m);
  rfms::python::bindClient(m);
  rfms::python::bindRunLog(m);
}
