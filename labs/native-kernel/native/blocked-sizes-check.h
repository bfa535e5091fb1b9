// Included after a blocked.cc (blocked-exercise.cc, blocked-solution.cc): its block sizes must be at least 1, or
// its loops would never advance and the check would hang instead of failing. A build error is kinder.
#pragma once

static_assert(kernel::kKc >= 1 && kernel::kMc >= 1 && kernel::kNc >= 1,
              "blocked.cc: the block sizes kKc, kMc and kNc must each be at least 1 (doubles)");
