// Compiles exercises/native-kernel/kernel.cc (the learner's loop) as part of this package; see kernel-solution.cc
// for why it is included rather than listed in binding.gyp directly.
#include "../../../exercises/native-kernel/kernel.cc"
