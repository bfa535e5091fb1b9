// Registration only: which JavaScript names call which binding functions. Every core rung (-O0, -O3,
// -O3 -march=native; solution or exercise kernel.cc) registers the same names, so the lab can load any of them; the
// blocked module (the impl's blocked.cc, built apart) registers the blocked products instead of kernel.cc's.
#include <napi.h>

#include "binding.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
#if defined(NATIVE_KERNEL_LOOP)
  exports.Set("matmul", Napi::Function::New(env, binding::Matmul, "matmul"));
  exports.Set("matmulAsync", Napi::Function::New(env, binding::MatmulAsync, "matmulAsync"));
#endif
#if defined(NATIVE_KERNEL_BLOCKED)
  exports.Set("matmulBlocked", Napi::Function::New(env, binding::MatmulBlocked, "matmulBlocked"));
  exports.Set("matmulBlockedAsync", Napi::Function::New(env, binding::MatmulBlockedAsync, "matmulBlockedAsync"));
#endif
#if defined(NATIVE_KERNEL_BLAS)
  exports.Set("matmulBlas", Napi::Function::New(env, binding::MatmulBlas, "matmulBlas"));
  exports.Set("blasSetThreads", Napi::Function::New(env, binding::BlasSetThreads, "blasSetThreads"));
  exports.Set("blasInfo", Napi::Function::New(env, binding::BlasInfo, "blasInfo"));
#endif
  exports.Set("triad", Napi::Function::New(env, binding::Triad, "triad"));
  exports.Set("triadFirstTouch", Napi::Function::New(env, binding::TriadFirstTouch, "triadFirstTouch"));
  exports.Set("fmaPeak", Napi::Function::New(env, binding::FmaPeak, "fmaPeak"));
  exports.Set("fmaVectorWidth", Napi::Function::New(env, binding::FmaVectorWidth, "fmaVectorWidth"));
  exports.Set("triadBandwidth", Napi::Function::New(env, binding::TriadBandwidth, "triadBandwidth"));
  exports.Set("maxN", Napi::Number::New(env, binding::kMaxN));
  exports.Set("maxThreads", Napi::Number::New(env, binding::kMaxThreads));
  return exports;
}

}  // namespace

NODE_API_MODULE(NODE_GYP_MODULE_NAME, Init)
