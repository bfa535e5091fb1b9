#include "binding.h"

#include <cmath>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "probe.h"
#include "stream.h"
#include "threads.h"
// Which kernels this module holds (binding.gyp): kernel.cc's loop in the core modules, the optional blocked.cc in a
// module of its own, so a compile error in one cannot take the other's rungs down. The BLAS module holds both.
#if defined(NATIVE_KERNEL_LOOP)
#include "kernel.h"
#endif
#if defined(NATIVE_KERNEL_BLOCKED)
#include "blocked.h"
#endif
#if defined(NATIVE_KERNEL_BLAS)
#include "blas.h"
#endif

namespace binding {
namespace {

// A short description of a JavaScript value for error messages: "a string", "an Int32Array", "null"...
std::string Describe(const Napi::Value& value) {
  if (value.IsNull()) return "null";
  if (value.IsUndefined()) return "undefined";
  if (value.IsTypedArray()) {
    switch (value.As<Napi::TypedArray>().TypedArrayType()) {
      case napi_int8_array: return "an Int8Array";
      case napi_uint8_array: return "a Uint8Array";
      case napi_uint8_clamped_array: return "a Uint8ClampedArray";
      case napi_int16_array: return "an Int16Array";
      case napi_uint16_array: return "a Uint16Array";
      case napi_int32_array: return "an Int32Array";
      case napi_uint32_array: return "a Uint32Array";
      case napi_float32_array: return "a Float32Array";
      case napi_float64_array: return "a Float64Array";
      case napi_bigint64_array: return "a BigInt64Array";
      case napi_biguint64_array: return "a BigUint64Array";
      default: return "a typed array";
    }
  }
  if (value.IsArrayBuffer()) return "an ArrayBuffer";
  if (value.IsDataView()) return "a DataView";
  if (value.IsArray()) return "an Array";
  if (value.IsNumber()) return "a number";
  if (value.IsBigInt()) return "a bigint";
  if (value.IsString()) return "a string";
  if (value.IsBoolean()) return "a boolean";
  if (value.IsSymbol()) return "a symbol";
  if (value.IsFunction()) return "a function";
  return "an object";
}

// A Float64Array argument, checked: the right type, a plain (not shared, not detached) ArrayBuffer, length n*n.
struct Matrix {
  const double* data;
  std::size_t length;
  const char* begin() const { return reinterpret_cast<const char*>(data); }
  const char* end() const { return reinterpret_cast<const char*>(data + length); }
};

Matrix CheckMatrix(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  Napi::Env env = info.Env();
  Napi::Value value = info[index];
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_float64_array) {
    throw Napi::TypeError::New(env, std::string(name) + " must be a Float64Array, got " + Describe(value));
  }
  // napi_get_typedarray_info returns the view's buffer; napi_is_arraybuffer is false for a SharedArrayBuffer.
  napi_value buffer_value;
  napi_status status = napi_get_typedarray_info(env, value, nullptr, nullptr, nullptr, &buffer_value, nullptr);
  NAPI_THROW_IF_FAILED(env, status, Matrix{});
  bool is_plain = false;
  status = napi_is_arraybuffer(env, buffer_value, &is_plain);
  NAPI_THROW_IF_FAILED(env, status, Matrix{});
  if (!is_plain) {
    throw Napi::TypeError::New(env, std::string(name) +
                                        " is backed by a SharedArrayBuffer, which other threads may write while "
                                        "the kernel reads it; pass a copy: new Float64Array(" + name + ")");
  }
  if (Napi::ArrayBuffer(env, buffer_value).IsDetached()) {
    throw Napi::TypeError::New(env, std::string(name) +
                                        "'s ArrayBuffer is detached (it was transferred or resized away); "
                                        "pass a Float64Array whose buffer is still attached");
  }
  auto array = value.As<Napi::Float64Array>();
  return Matrix{array.Data(), array.ElementLength()};
}

// An integer argument in [min, max], e.g. n or threads.
uint32_t CheckInteger(const Napi::CallbackInfo& info, std::size_t index, const char* name, uint32_t min,
                      uint32_t max) {
  Napi::Env env = info.Env();
  Napi::Value value = info[index];
  if (!value.IsNumber()) {
    throw Napi::TypeError::New(env, std::string(name) + " must be a number, got " + Describe(value));
  }
  double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::floor(number) != number || number < min || number > max) {
    throw Napi::RangeError::New(env, std::string(name) + " must be an integer from " + std::to_string(min) +
                                         " to " + std::to_string(max) + ", got " +
                                         value.ToString().Utf8Value());
  }
  return static_cast<uint32_t>(number);
}

void CheckLength(Napi::Env env, const Matrix& m, const char* name, uint32_t n) {
  const std::size_t expected = static_cast<std::size_t>(n) * n;
  if (m.length != expected) {
    throw Napi::RangeError::New(env, std::string(name) + ".length is " + std::to_string(m.length) +
                                         ", expected n*n = " + std::to_string(expected) + " for n = " +
                                         std::to_string(n));
  }
}

void CheckArgumentCount(const Napi::CallbackInfo& info, std::size_t count, const char* usage) {
  if (info.Length() < count) {
    throw Napi::TypeError::New(info.Env(), std::string("expected ") + std::to_string(count) + " arguments: " +
                                               usage + ", got " + std::to_string(info.Length()));
  }
}

bool Overlaps(const Matrix& x, const Matrix& y) { return x.begin() < y.end() && y.begin() < x.end(); }

// A vector argument of the triad: its length must be the output's.
void CheckSameLength(Napi::Env env, const Matrix& m, const char* name, const Matrix& a) {
  if (m.length != a.length) {
    throw Napi::RangeError::New(env, std::string(name) + ".length is " + std::to_string(m.length) +
                                         ", expected a.length = " + std::to_string(a.length));
  }
}

// A finite number argument, e.g. the triad's scalar s.
double CheckFinite(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  Napi::Value value = info[index];
  if (!value.IsNumber()) {
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a number, got " + Describe(value));
  }
  double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number)) {
    throw Napi::RangeError::New(info.Env(), std::string(name) + " must be a finite number, got " +
                                                value.ToString().Utf8Value());
  }
  return number;
}

// The arguments every kernel call starts with: the count, then a, b and c (arguments 0-2), each a checked
// Float64Array. The callers check the lengths, which differ: n*n for a product, a.length for the triad.
struct Operands {
  Matrix a, b, c;
};

Operands CheckOperands(const Napi::CallbackInfo& info, std::size_t count, const char* usage) {
  CheckArgumentCount(info, count, usage);
  // A braced list is evaluated left to right: the first bad argument is the one reported.
  return Operands{CheckMatrix(info, 0, "a"), CheckMatrix(info, 1, "b"), CheckMatrix(info, 2, "c")};
}

// A product's a, b and c, and n (argument 3): each matrix holds n*n doubles.
struct ProductOperands {
  Matrix a, b, c;
  uint32_t n;
};

ProductOperands CheckProductOperands(const Napi::CallbackInfo& info, std::size_t count, const char* usage) {
  Operands m = CheckOperands(info, count, usage);
  uint32_t n = CheckInteger(info, 3, "n", 1, kMaxN);
  CheckLength(info.Env(), m.a, "a", n);
  CheckLength(info.Env(), m.b, "b", n);
  CheckLength(info.Env(), m.c, "c", n);
  return ProductOperands{m.a, m.b, m.c, n};
}

// Runs the learner's kernel; a C++ exception from it (e.g. "not implemented: ...") becomes a JavaScript Error.
template <typename Fn>
void CallKernel(Napi::Env env, Fn fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, e.what());
  }
}

// Reusable native buffers for matmulAsync's copies. Fresh memory is expensive on first touch (a page fault per
// 4 KiB page: about 10-16 us each on this course's VMs), so a buffer is kept for the next call instead of freed.
class ScratchPool {
 public:
  std::vector<double> Acquire(std::size_t size) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = free_.find(size);
      if (it != free_.end() && !it->second.empty()) {
        std::vector<double> buffer = std::move(it->second.back());
        it->second.pop_back();
        kept_bytes_ -= Bytes(buffer);
        return buffer;
      }
    }
    return std::vector<double>(size);
  }

  // Buffers are kept by exact size, so a sweep over sizes cannot make small buffers crowd out large ones.
  void Release(std::vector<double>&& buffer) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& bucket = free_[buffer.size()];
    if (bucket.size() >= kMaxPerSize || kept_bytes_ + Bytes(buffer) > kMaxKeptBytes) return;  // freed instead
    kept_bytes_ += Bytes(buffer);
    bucket.push_back(std::move(buffer));
  }

 private:
  static std::size_t Bytes(const std::vector<double>& b) { return b.capacity() * sizeof(double); }
  // Three buffers per call, two calls in flight per size; at most 256 MiB kept in all.
  static constexpr std::size_t kMaxPerSize = 6;
  static constexpr std::size_t kMaxKeptBytes = std::size_t{256} << 20;
  std::mutex mutex_;
  std::map<std::size_t, std::vector<std::vector<double>>> free_;
  std::size_t kept_bytes_ = 0;
};

ScratchPool& Scratch() {
  // Shared by every thread and every Node worker that loads this addon. Never destroyed: a worker thread may still
  // return buffers while the process exits, after static destructors have run.
  static ScratchPool* pool = new ScratchPool();
  return *pool;
}

// A JavaScript error of the given kind (napi_create_error, napi_create_type_error) with this message, or nullptr
// when it cannot be created. Never throws.
napi_value NewError(napi_env env,
                    napi_status (*create)(napi_env, napi_value, napi_value, napi_value*),
                    const std::string& message) {
  napi_value text = nullptr;
  napi_value error = nullptr;
  if (napi_create_string_utf8(env, message.c_str(), message.size(), &text) != napi_ok) return nullptr;
  if (create(env, nullptr, text, &error) != napi_ok) return nullptr;
  return error;
}

// matmulAsync's work. The constructor runs on the JavaScript thread and copies a and b; Execute runs on a libuv
// pool thread and starts the native threads; OnWorkComplete runs on the JavaScript thread again and copies the
// result into c. Copies, not pointers into the JavaScript buffers: while the threads work, JavaScript keeps running
// and could change a or b, or detach (transfer) any of them, which would leave the threads writing freed memory.
class MatmulWorker : public Napi::AsyncWorker {
 public:
  MatmulWorker(Napi::Env env, const Matrix& a, const Matrix& b, const Napi::Value& c, uint32_t n, uint32_t threads,
               kernel::RowKernel rows, kernel::Split split)
      : Napi::AsyncWorker(env, "matmulAsync"),
        c_ref_(Napi::Persistent(c.As<Napi::Object>())),
        a_(Scratch().Acquire(a.length)),
        b_(Scratch().Acquire(b.length)),
        c_(Scratch().Acquire(a.length)),
        n_(n),
        threads_(threads),
        rows_(rows),
        split_(split) {
    std::memcpy(a_.data(), a.data, a.length * sizeof(double));
    std::memcpy(b_.data(), b.data, b.length * sizeof(double));
    napi_status status = napi_create_promise(env, &deferred_, &promise_);
    NAPI_THROW_IF_FAILED_VOID(env, status);
  }

  ~MatmulWorker() override {
    Scratch().Release(std::move(a_));
    Scratch().Release(std::move(b_));
    Scratch().Release(std::move(c_));
  }

  // Valid in the handle scope of the matmulAsync call that created this worker.
  napi_value Promise() const { return promise_; }

  // Replaces AsyncWorker's OnOK/OnError path. This also runs while the environment is being torn down (a Worker
  // that is terminated or calls process.exit with a call pending): then Node-API calls that would run JavaScript
  // fail, node-addon-api turns the failure into a C++ exception, rethrows it while trying to throw it into
  // JavaScript, and nothing catches it: std::terminate, SIGABRT, the whole process gone. So the promise is settled
  // through Node-API's C functions with every status checked, the result is dropped when the environment can no
  // longer take it (nobody is left to await it), and nothing here throws.
  void OnWorkComplete(Napi::Env env, napi_status status) override {
    if (status != napi_cancelled) Settle(env);
    Destroy();  // deletes this
  }

 protected:
  // On a libuv thread pool thread: no JavaScript values may be touched here.
  void Execute() override {
    try {
      kernel::matmul_parallel(a_.data(), b_.data(), c_.data(), n_, threads_, rows_, split_);
    } catch (const std::exception& e) {
      error_ = e.what();
    } catch (...) {
      error_ = "the kernel threw a non-standard exception";
    }
  }

 private:
  void Settle(napi_env env) noexcept {
    napi_handle_scope scope = nullptr;
    if (napi_open_handle_scope(env, &scope) != napi_ok) return;
    napi_value outcome = nullptr;
    bool resolve = false;
    if (!error_.empty()) {
      outcome = NewError(env, napi_create_error, error_);
    } else {
      // c may have been detached or swapped while the threads ran: check it again before writing into it.
      napi_value c = nullptr;
      napi_typedarray_type type = napi_int8_array;
      std::size_t length = 0;
      void* data = nullptr;
      napi_value buffer = nullptr;
      bool detached = true;
      if (napi_get_reference_value(env, c_ref_, &c) == napi_ok && c != nullptr &&
          napi_get_typedarray_info(env, c, &type, &length, &data, &buffer, nullptr) == napi_ok &&
          napi_is_detached_arraybuffer(env, buffer, &detached) == napi_ok) {
        if (!detached && type == napi_float64_array && length == c_.size() && data != nullptr) {
          std::memcpy(data, c_.data(), c_.size() * sizeof(double));
          outcome = c;
          resolve = true;
        } else {
          outcome = NewError(env, napi_create_type_error,
                             "c was detached while matmulAsync ran; keep the output array attached (do not "
                             "transfer it) until the promise settles");
        }
      }
    }
    // Settling fails (napi_pending_exception) while the environment is torn down: the result is dropped.
    if (outcome != nullptr) {
      if (resolve) {
        napi_resolve_deferred(env, deferred_, outcome);
      } else {
        napi_reject_deferred(env, deferred_, outcome);
      }
    }
    napi_close_handle_scope(env, scope);
  }

  napi_deferred deferred_ = nullptr;
  napi_value promise_ = nullptr;
  Napi::ObjectReference c_ref_;  // keeps c alive until the call settles
  std::vector<double> a_, b_, c_;
  uint32_t n_, threads_;
  kernel::RowKernel rows_;  // kernel.h's loop or the blocked kernel (blocked.h)
  kernel::Split split_;
  std::string error_;  // set by Execute when the kernel throws
};

}  // namespace

namespace {

// The synchronous products' shared checks: matmul(a, b, c, n) and its blocked and BLAS twins. Calls
// fn(a, b, c, n) on the calling thread and returns c.
template <typename Fn>
Napi::Value SyncProduct(const Napi::CallbackInfo& info, const char* usage, Fn fn) {
  Napi::Env env = info.Env();
  auto [a, b, c, n] = CheckProductOperands(info, 4, usage);
  // The kernel writes c while it reads a and b: overlapping memory would give wrong answers silently.
  if (Overlaps(c, a) || Overlaps(c, b)) {
    throw Napi::RangeError::New(env, "c must not share memory with a or b: pass a separate output array");
  }
  double* out = const_cast<double*>(c.data);
  CallKernel(env, [&] { fn(a.data, b.data, out, n); });
  return info[2];
}

}  // namespace

#if defined(NATIVE_KERNEL_LOOP)
Napi::Value Matmul(const Napi::CallbackInfo& info) {
  return SyncProduct(info, "matmul(a, b, c, n)", [](const double* a, const double* b, double* c, std::size_t n) {
    kernel::matmul_rows(a, b, c, n, 0, n);
  });
}
#endif

#if defined(NATIVE_KERNEL_BLOCKED)
Napi::Value MatmulBlocked(const Napi::CallbackInfo& info) {
  return SyncProduct(info, "matmulBlocked(a, b, c, n)", [](const double* a, const double* b, double* c,
                                                           std::size_t n) { kernel::matmul_blocked_rows(a, b, c, n, 0, n); });
}
#endif

#if defined(NATIVE_KERNEL_BLAS)
Napi::Value MatmulBlas(const Napi::CallbackInfo& info) {
  return SyncProduct(info, "matmulBlas(a, b, c, n)", [](const double* a, const double* b, double* c, std::size_t n) {
    blas::dgemm(a, b, c, n);
  });
}

Napi::Value BlasSetThreads(const Napi::CallbackInfo& info) {
  CheckArgumentCount(info, 1, "blasSetThreads(threads)");
  uint32_t threads = CheckInteger(info, 0, "threads", 1, kMaxThreads);
  blas::set_threads(threads);
  return info.Env().Undefined();
}

Napi::Value BlasInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("library", blas::library());
  out.Set("coreName", blas::core_name());
  out.Set("config", blas::config());
  out.Set("threads", static_cast<double>(blas::threads()));
  return out;
}
#endif

namespace {

// matmulAsync and matmulBlockedAsync: the same checks, copies and Promise; `rows` and `split` pick the kernel and
// how the rows are shared out (threads.h).
Napi::Value AsyncProduct(const Napi::CallbackInfo& info, const char* usage, kernel::RowKernel rows,
                         kernel::Split split) {
  Napi::Env env = info.Env();
  auto [a, b, c, n] = CheckProductOperands(info, 5, usage);
  uint32_t threads = CheckInteger(info, 4, "threads", 1, kMaxThreads);
  // Allocating the copies can fail for large n: a JavaScript error, not an abort.
  MatmulWorker* worker = nullptr;
  try {
    worker = new MatmulWorker(env, a, b, info[2], n, threads, rows, split);
  } catch (const std::bad_alloc&) {
    throw Napi::RangeError::New(env, "out of memory copying the " + std::to_string(n) + "x" + std::to_string(n) +
                                         " inputs: use a smaller n");
  }
  napi_value promise = worker->Promise();
  worker->Queue();  // the worker deletes itself in OnWorkComplete
  return Napi::Value(env, promise);
}

}  // namespace

#if defined(NATIVE_KERNEL_LOOP)
Napi::Value MatmulAsync(const Napi::CallbackInfo& info) {
  return AsyncProduct(info, "matmulAsync(a, b, c, n, threads)", kernel::matmul_rows, kernel::Split::kFine);
}
#endif

#if defined(NATIVE_KERNEL_BLOCKED)
Napi::Value MatmulBlockedAsync(const Napi::CallbackInfo& info) {
  return AsyncProduct(info, "matmulBlockedAsync(a, b, c, n, threads)", kernel::matmul_blocked_rows,
                      kernel::Split::kPacked);
}
#endif

Napi::Value Triad(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto [a, b, c] = CheckOperands(info, 5, "triad(a, b, c, s, threads)");
  double s = CheckFinite(info, 3, "s");
  uint32_t threads = CheckInteger(info, 4, "threads", 1, kMaxThreads);
  CheckSameLength(env, b, "b", a);
  CheckSameLength(env, c, "c", a);
  // Threads write their chunks of a while others read b and c: a shared byte would be a data race.
  if (Overlaps(a, b) || Overlaps(a, c)) {
    throw Napi::RangeError::New(env, "a must not share memory with b or c: pass a separate output array");
  }
  stream::triad(const_cast<double*>(a.data), b.data, c.data, s, a.length, threads);
  return info[0];
}

Napi::Value TriadFirstTouch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto [a, b, c] = CheckOperands(info, 6, "triadFirstTouch(a, b, c, bSource, cSource, threads)");
  Matrix b_source = CheckMatrix(info, 3, "bSource");
  Matrix c_source = CheckMatrix(info, 4, "cSource");
  uint32_t threads = CheckInteger(info, 5, "threads", 1, kMaxThreads);
  CheckSameLength(env, b, "b", a);
  CheckSameLength(env, c, "c", a);
  CheckSameLength(env, b_source, "bSource", a);
  CheckSameLength(env, c_source, "cSource", a);
  // a, b and c are all written here; the sources are only read and may share memory with each other.
  const Matrix written[] = {a, b, c};
  const Matrix all[] = {a, b, c, b_source, c_source};
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < 5; ++j) {
      if (i != j && Overlaps(written[i], all[j])) {
        throw Napi::RangeError::New(env, "a, b and c must be separate arrays, sharing memory neither with each other "
                                         "nor with bSource or cSource: pass fresh Float64Arrays");
      }
    }
  }
  stream::first_touch(const_cast<double*>(a.data), const_cast<double*>(b.data), const_cast<double*>(c.data),
                      b_source.data, c_source.data, a.length, threads);
  return env.Undefined();
}

Napi::Value FmaPeak(const Napi::CallbackInfo& info) {
  CheckArgumentCount(info, 2, "fmaPeak(iterations, threads)");
  uint32_t iterations = CheckInteger(info, 0, "iterations", 1, 1u << 30);
  uint32_t threads = CheckInteger(info, 1, "threads", 1, kMaxThreads);
  return Napi::Number::New(info.Env(), probe::fma_peak(iterations, threads));
}

Napi::Value FmaVectorWidth(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), probe::fma_vector_width());
}

Napi::Value TriadBandwidth(const Napi::CallbackInfo& info) {
  CheckArgumentCount(info, 3, "triadBandwidth(elements, repeats, threads)");
  uint32_t elements = CheckInteger(info, 0, "elements", 1, 1u << 28);
  uint32_t repeats = CheckInteger(info, 1, "repeats", 1, 1000);
  uint32_t threads = CheckInteger(info, 2, "threads", 1, kMaxThreads);
  try {
    return Napi::Number::New(info.Env(), probe::triad_bandwidth(elements, repeats, threads));
  } catch (const std::bad_alloc&) {
    throw Napi::RangeError::New(info.Env(), "out of memory for 3 x " + std::to_string(elements) +
                                                " doubles: use fewer elements");
  }
}

}  // namespace binding
