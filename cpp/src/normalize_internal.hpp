// What the sources of math normalization share (private to cpp/src): normalize.cpp runs the
// rules in order; normalize_units.cpp holds rule 4, which rule 13 runs on each part too.
#pragma once

#include <string>

namespace rapidgrade::normalize::internal {

/// Rule 4 (normalize.hpp): trailing unit words after a number (or a closing brace, "\frac{1}{2}
/// inch", or \pi), bare or in braces of their own ("69{degrees}"), removed from `s`; `percent` and
/// `degrees` are set when a percent or a degree word was among them.
void strip_units(std::string& s, bool& percent, bool& degrees);

}  // namespace rapidgrade::normalize::internal
