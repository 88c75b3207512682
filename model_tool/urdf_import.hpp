// rfms-model import: a URDF's six-revolute-joint chain as a robot model file (the reverse of
// urdf.hpp). DH from the joint origins and axes at the zero pose (common/dh_from_axes), each link's
// mass properties carried into its DH frame, limits from the URDF; what a URDF has no field for
// (drives, encoders) written as assumed values, marked so. What the controller cannot run is
// refused naming the joint or link that breaks it.
#pragma once

#include <string>
#include <vector>

namespace rfms::tool {

struct ImportedModel {
  std::string text;                // the model file, protobuf text format
  std::vector<std::string> notes;  // what the importer assumed or left out, one line each
};

// `base` empty: the URDF's root link. Throws ConfigError naming the source and what is wrong.
ImportedModel importUrdf(const std::string& urdf_text, const std::string& source, const std::string& base,
                         const std::string& tip, const std::string& name);

}  // namespace rfms::tool
