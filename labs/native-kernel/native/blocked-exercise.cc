// Compiles exercises/native-kernel/blocked.cc (the learner's blocked kernel) as part of this package; see
// kernel-solution.cc for why it is included rather than listed in binding.gyp directly.
#include "../../../exercises/native-kernel/blocked.cc"

#include "blocked-sizes-check.h"
