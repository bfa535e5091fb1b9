// The JavaScript face of the kernel: validates and converts arguments, then calls plain C++ (kernel.h, threads.h,
// probe.h). Every bad argument becomes a JavaScript TypeError or RangeError; nothing here may crash the process.
// A module holds kernel.cc's loop (NATIVE_KERNEL_LOOP: matmul, matmulAsync), the blocked kernel (NATIVE_KERNEL_BLOCKED:
// matmulBlocked, matmulBlockedAsync) or both (the BLAS module); binding.gyp says which. The rest is in every module.
#pragma once

#include <napi.h>

namespace binding {

#if defined(NATIVE_KERNEL_LOOP)
// matmul(a, b, c, n): c = a * b in place, synchronously, on the calling (JavaScript) thread. Returns c.
Napi::Value Matmul(const Napi::CallbackInfo& info);
// matmulAsync(a, b, c, n, threads): a Promise of c = a * b, computed off the event loop on `threads` native
// threads. a and b are copied when the call is made and the result is copied into c when it settles, so
// JavaScript may change or transfer a and b meanwhile; c is checked again before it is written.
Napi::Value MatmulAsync(const Napi::CallbackInfo& info);
#endif

#if defined(NATIVE_KERNEL_BLOCKED)
// matmulBlocked(a, b, c, n): the same product by the blocked, register-tiled kernel (blocked.h). Returns c.
Napi::Value MatmulBlocked(const Napi::CallbackInfo& info);
// matmulBlockedAsync(a, b, c, n, threads): matmulAsync, each thread running the blocked kernel on its rows.
Napi::Value MatmulBlockedAsync(const Napi::CallbackInfo& info);
#endif

#if defined(NATIVE_KERNEL_BLAS)
// Only in the BLAS module (blas/binding.gyp): matmulBlas(a, b, c, n) calls the system BLAS's dgemm (blas.h);
// blasSetThreads(threads) sets its thread count; blasInfo() says which library, kernel and thread count run.
Napi::Value MatmulBlas(const Napi::CallbackInfo& info);
Napi::Value BlasSetThreads(const Napi::CallbackInfo& info);
Napi::Value BlasInfo(const Napi::CallbackInfo& info);
#endif

// triad(a, b, c, s, threads): a[i] = b[i] + s * c[i] for every i, synchronously, on `threads` threads (stream.h),
// thread t always on the same contiguous chunk. Returns a. a, b, c: Float64Arrays of one length; a overlaps neither.
Napi::Value Triad(const Napi::CallbackInfo& info);

// triadFirstTouch(a, b, c, bSource, cSource, threads): copies bSource into b and cSource into c and zeroes a, each
// chunk on the thread that triad(..., threads) runs it on, so fresh arrays get their pages where those threads are.
Napi::Value TriadFirstTouch(const Napi::CallbackInfo& info);

// fmaPeak(iterations, threads) and triadBandwidth(elements, repeats, threads): the machine-peak probes (probe.h),
// synchronous, in flop/s and bytes/s.
Napi::Value FmaPeak(const Napi::CallbackInfo& info);
Napi::Value TriadBandwidth(const Napi::CallbackInfo& info);
// fmaVectorWidth(): which vectors fmaPeak uses, e.g. "512-bit FMA (AVX-512F)".
Napi::Value FmaVectorWidth(const Napi::CallbackInfo& info);

// The largest n matmul accepts: 4096 means 128 MiB per matrix and about 137 Gflop per call.
constexpr uint32_t kMaxN = 4096;
// The most threads matmulAsync starts per call.
constexpr uint32_t kMaxThreads = 256;

}  // namespace binding
