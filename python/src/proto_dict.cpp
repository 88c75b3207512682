#include "python/src/proto_dict.hpp"

#include "common/mail_codec.hpp"
#include "common/mail_names.hpp"
#include "python/src/arrays.hpp"

namespace rfms::python {

namespace gp = google::protobuf;

namespace {

py::object fieldValue(const gp::Message& m, const gp::FieldDescriptor* f);

}  // namespace

// An enum value's name without its type's prefix: RT_HOLD -> HOLD, ER_FORCE_RUNAWAY -> FORCE_RUNAWAY.
std::string enumName(const gp::EnumValueDescriptor* v) { return withoutPrefix(v->name()); }

py::dict toDict(const gp::Message& m) {
  py::dict d;
  const gp::Descriptor* type = m.GetDescriptor();
  for (int i = 0; i < type->field_count(); ++i) {
    const gp::FieldDescriptor* f = type->field(i);
    d[py::str(f->name())] = fieldValue(m, f);
  }
  return d;
}

namespace {

py::object fieldValue(const gp::Message& m, const gp::FieldDescriptor* f) {
  const gp::Reflection* r = m.GetReflection();
  using T = gp::FieldDescriptor;
  if (f->is_repeated()) {
    const int n = r->FieldSize(m, f);
    if (f->cpp_type() == T::CPPTYPE_DOUBLE) {
      std::vector<double> v(static_cast<std::size_t>(n));
      for (int k = 0; k < n; ++k) v[static_cast<std::size_t>(k)] = r->GetRepeatedDouble(m, f, k);
      return toArray(v.data(), v.size());
    }
    py::list l;
    for (int k = 0; k < n; ++k) {
      if (f->cpp_type() == T::CPPTYPE_MESSAGE)
        l.append(toDict(r->GetRepeatedMessage(m, f, k)));
      else if (f->cpp_type() == T::CPPTYPE_STRING)
        l.append(r->GetRepeatedString(m, f, k));
      else if (f->cpp_type() == T::CPPTYPE_ENUM)
        l.append(enumName(r->GetRepeatedEnum(m, f, k)));
      else
        l.append(py::none());
    }
    return l;
  }
  switch (f->cpp_type()) {
    case T::CPPTYPE_DOUBLE: return py::float_(r->GetDouble(m, f));
    case T::CPPTYPE_FLOAT: return py::float_(r->GetFloat(m, f));
    case T::CPPTYPE_BOOL: return py::bool_(r->GetBool(m, f));
    case T::CPPTYPE_INT32: return py::int_(r->GetInt32(m, f));
    case T::CPPTYPE_INT64: return py::int_(r->GetInt64(m, f));
    case T::CPPTYPE_UINT32: return py::int_(r->GetUInt32(m, f));
    case T::CPPTYPE_UINT64: return py::int_(r->GetUInt64(m, f));
    case T::CPPTYPE_STRING: return py::str(r->GetString(m, f));
    case T::CPPTYPE_ENUM: return py::str(enumName(r->GetEnum(m, f)));
    case T::CPPTYPE_MESSAGE: {
      if (!r->HasField(m, f)) return py::none();
      const gp::Message& sub = r->GetMessage(m, f);
      if (const auto* t = dynamic_cast<const proto::Transform3x4*>(&sub)) {
        Transform x;
        return decode(*t, x) ? py::object(toArray(x)) : py::object(py::none());
      }
      return toDict(sub);
    }
  }
  return py::none();
}

}  // namespace

}  // namespace rfms::python
