// Compiles solutions/native-kernel/kernel.cc as part of this package. A source listed in binding.gyp as
// ../../solutions/... would put every rung's object file at the same path outside the target's own object
// folder (the rungs would overwrite each other's kernel.o and all run one build); including it from here
// keeps one object per rung.
#include "../../../solutions/native-kernel/kernel.cc"
