# The native rungs of the ladder, each a separate real build of the same sources:
#   <impl>_O0       -O0                   (no optimisation: what the C++ compiler adds, by contrast)
#   <impl>_O3       -O3                   (optimised for any CPU of this architecture: SSE2 on x86-64)
#   <impl>_march    -O3 -march=native     (optimised for THIS CPU: AVX2/AVX-512 here; rebuild on every new machine)
#   <impl>_blocked  -O3 -march=native     the impl's blocked kernel: native-blocked and native-blocked-threads
# for <impl> = solution (solutions/native-kernel/{kernel,blocked}.cc) and exercise (exercises/native-kernel/...).
# The first three hold kernel.cc's loop (NATIVE_KERNEL_LOOP); <impl>_blocked holds only the optional blocked.cc, over
# the given parts in native/blocked-parts.cc (NATIVE_KERNEL_BLOCKED), so a compile error in a learner's blocked.cc
# leaves the kernel.cc rungs built, and one in kernel.cc leaves the blocked rungs built. scripts/build-addon.mjs
# builds each group in its own node-gyp run and records each module's outcome.
# The BLAS rung is a separate build, blas/binding.gyp, so a missing BLAS never breaks these.
# The flags apply to the whole module (binding included); later flags win, so -O0 overrides node-gyp's default -O3.
# Build with `npm run build -w labs/native-kernel` (scripts/build-addon.mjs), which also records failures.
{
  'variables': {
    'common_sources': ['native/addon.cc', 'native/binding.cc', 'native/threads.cc', 'native/probe.cc', 'native/stream.cc'],
  },
  'target_defaults': {
    'include_dirs': ['native'],
    'dependencies': ["<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except"],
    'defines': ['NAPI_VERSION=8'],
    # Hidden symbols: each module's calls to kernel::matmul_rows bind to its own copy, even if a host process
    # loaded several rungs with RTLD_GLOBAL (Node-API's registration symbol stays exported).
    'cflags': ['-fvisibility=hidden'],
    'xcode_settings': {'GCC_SYMBOLS_PRIVATE_EXTERN': 'YES'},
  },
  'targets': [
    {'target_name': 'solution_O0', 'sources': ['<@(common_sources)', 'native/kernel-solution.cc'], 'defines': ['NATIVE_KERNEL_LOOP=1'],
     'cflags': ['-O0'], 'cflags_cc': ['-O0'],
     'xcode_settings': {'OTHER_CPLUSPLUSFLAGS': ['-O0']}},
    {'target_name': 'solution_O3', 'sources': ['<@(common_sources)', 'native/kernel-solution.cc'], 'defines': ['NATIVE_KERNEL_LOOP=1'],
     'cflags': ['-O3'], 'cflags_cc': ['-O3'],
     'xcode_settings': {'OTHER_CPLUSPLUSFLAGS': ['-O3']}},
    {'target_name': 'solution_march', 'sources': ['<@(common_sources)', 'native/kernel-solution.cc'], 'defines': ['NATIVE_KERNEL_LOOP=1'],
     'cflags': ['-O3', '-march=native'], 'cflags_cc': ['-O3', '-march=native'],
     'xcode_settings': {'OTHER_CPLUSPLUSFLAGS': ['-O3', '-march=native']}},
    {'target_name': 'solution_blocked', 'sources': ['<@(common_sources)', 'native/blocked-parts.cc', 'native/blocked-solution.cc'],
     'defines': ['NATIVE_KERNEL_BLOCKED=1'],
     'cflags': ['-O3', '-march=native'], 'cflags_cc': ['-O3', '-march=native'],
     'xcode_settings': {'OTHER_CPLUSPLUSFLAGS': ['-O3', '-march=native']}},
    {'target_name': 'exercise_O0', 'sources': ['<@(common_sources)', 'native/kernel-exercise.cc'], 'defines': ['NATIVE_KERNEL_LOOP=1'],
     'cflags': ['-O0'], 'cflags_cc': ['-O0'],
     'xcode_settings': {'OTHER_CPLUSPLUSFLAGS': ['-O0']}},
    {'target_name': 'exercise_O3', 'sources': ['<@(common_sources)', 'native/kernel-exercise.cc'], 'defines': ['NATIVE_KERNEL_LOOP=1'],
     'cflags': ['-O3'], 'cflags_cc': ['-O3'],
     'xcode_settings': {'OTHER_CPLUSPLUSFLAGS': ['-O3']}},
    {'target_name': 'exercise_march', 'sources': ['<@(common_sources)', 'native/kernel-exercise.cc'], 'defines': ['NATIVE_KERNEL_LOOP=1'],
     'cflags': ['-O3', '-march=native'], 'cflags_cc': ['-O3', '-march=native'],
     'xcode_settings': {'OTHER_CPLUSPLUSFLAGS': ['-O3', '-march=native']}},
    {'target_name': 'exercise_blocked', 'sources': ['<@(common_sources)', 'native/blocked-parts.cc', 'native/blocked-exercise.cc'],
     'defines': ['NATIVE_KERNEL_BLOCKED=1'],
     'cflags': ['-O3', '-march=native'], 'cflags_cc': ['-O3', '-march=native'],
     'xcode_settings': {'OTHER_CPLUSPLUSFLAGS': ['-O3', '-march=native']}},
  ],
}
