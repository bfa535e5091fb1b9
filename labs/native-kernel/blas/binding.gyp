# The library rung (native-blas): the -O3 -march=native module plus matmulBlas, linked against the system BLAS.
# A build of its own (blas/build/Release/blas.node), so a machine without a BLAS still builds every other rung.
# scripts/build-addon.mjs finds the library (pkg-config openblas, else the usual paths) and passes its flags in
# NATIVE_KERNEL_BLAS_CFLAGS and NATIVE_KERNEL_BLAS_LIBS; run that script, not node-gyp directly.
{
  'targets': [
    {
      'target_name': 'blas',
      'sources': ['../native/addon.cc', '../native/binding.cc', '../native/threads.cc', '../native/probe.cc',
                  '../native/stream.cc', '../native/blocked-parts.cc', '../native/blas.cc',
                  '../native/kernel-solution.cc', '../native/blocked-solution.cc'],
      'include_dirs': ['../native'],
      'dependencies': ["<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except"],
      'defines': ['NAPI_VERSION=8', 'NATIVE_KERNEL_LOOP=1', 'NATIVE_KERNEL_BLOCKED=1', 'NATIVE_KERNEL_BLAS=1'],
      'cflags': ['-fvisibility=hidden', '-O3', '-march=native', '<!@(node -p "process.env.NATIVE_KERNEL_BLAS_CFLAGS || \'\'")'],
      'cflags_cc': ['-O3', '-march=native'],
      'libraries': ['<!@(node -p "process.env.NATIVE_KERNEL_BLAS_LIBS || \'\'")'],
      'xcode_settings': {'GCC_SYMBOLS_PRIVATE_EXTERN': 'YES', 'OTHER_CPLUSPLUSFLAGS': ['-O3', '-march=native']},
    },
  ],
}
