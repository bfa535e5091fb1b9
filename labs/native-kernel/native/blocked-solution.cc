// Compiles solutions/native-kernel/blocked.cc as part of this package; see kernel-solution.cc for why it is
// included rather than listed in binding.gyp directly.
#include "../../../solutions/native-kernel/blocked.cc"

#include "blocked-sizes-check.h"
