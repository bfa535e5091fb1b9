#include "threads.h"

#if defined(__unix__) || defined(__APPLE__)
#include <dlfcn.h>
#endif
#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace kernel {
namespace {

// The helper threads below live until the process exits, running code of this shared library. Node unloads an addon
// (dlclose) when the last environment that loaded it goes away, e.g. when the only Worker thread that loaded it
// exits; a helper still polling would then execute unmapped memory and crash the process (SIGSEGV). So, before the
// first helper starts, the library pins itself: dlopen of its own file with RTLD_NODELETE (and a handle that is
// never closed) keeps it mapped for the life of the process.
void KeepLibraryLoaded() {
#if defined(__unix__) || defined(__APPLE__)
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&KeepLibraryLoaded), &info) != 0 && info.dli_fname != nullptr) {
      dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    }
  });
#endif
}

// A pool of helper threads, started when first needed and kept asleep between calls. Starting a std::thread per
// call was measured at 0.1 to 3 ms before the new thread ran, inside a Node process on this course's 2-vCPU VM
// (pthread_create in a process with a large address space, then waiting to be scheduled); a sleeping thread that is
// woken runs within microseconds. Long-lived threads are what OpenMP runtimes and BLAS libraries keep, too.
class HelperPool {
 public:
  // Runs block(0) .. block(blocks - 1) on the caller and at most `helpers` helpers: each takes block indices from a
  // shared counter until none are left, so a helper that wakes late still takes a share instead of leaving the
  // caller to do everything. One job at a time: concurrent callers queue on run_mutex_.
  void Run(unsigned helpers, unsigned blocks, const std::function<void(unsigned)>& block) {
    std::lock_guard<std::mutex> run_lock(run_mutex_);
    std::unique_lock<std::mutex> lock(mutex_);
    Grow(helpers);
    job_ = &block;
    next_ = 0;
    end_ = blocks;
    finished_ = 0;
    joined_ = 0;
    helper_limit_ = helpers;
    first_error_ = nullptr;
    generation_.fetch_add(1, std::memory_order_release);
    work_ready_.notify_all();
    TakeBlocks(lock);  // the caller works too
    Finish(lock);
  }

  // Runs block(0) on the caller and block(t) on helper t, for t = 1 .. blocks - 1 (see run_on_fixed_threads).
  void RunFixed(unsigned blocks, const std::function<void(unsigned)>& block) {
    std::lock_guard<std::mutex> run_lock(run_mutex_);
    std::unique_lock<std::mutex> lock(mutex_);
    Grow(blocks - 1);
    job_ = &block;
    end_ = blocks;
    finished_ = 0;
    fixed_helpers_ = std::min(helpers_, blocks - 1);
    first_error_ = nullptr;
    generation_.fetch_add(1, std::memory_order_release);
    work_ready_.notify_all();
    RunBlock(lock, 0);
    for (unsigned t = fixed_helpers_ + 1; t < blocks; ++t) RunBlock(lock, t);  // blocks with no helper of their own
    Finish(lock);
  }

 private:
  // How long a helper keeps polling for the next job before it sleeps. Waking a sleeping thread took 0.1 ms to
  // several ms on this course's 2-vCPU VM, as long as a whole small product; a helper that is still polling starts
  // at once. OpenMP runtimes do the same (KMP_BLOCKTIME, OMP_WAIT_POLICY): the cost is a core kept busy for this
  // long after the last call.
  static constexpr std::chrono::microseconds kSpin{2000};

  // Waits until every block of the current job has finished, then rethrows the first exception. mutex_ held.
  void Finish(std::unique_lock<std::mutex>& lock) {
    all_done_.wait(lock, [&] { return finished_ == end_; });
    job_ = nullptr;
    fixed_helpers_ = 0;
    std::exception_ptr error = first_error_;
    lock.unlock();
    if (error) std::rethrow_exception(error);
  }

  // Starts helpers until there are `wanted` (at most one per CPU beyond the caller). Called with mutex_ held, before
  // the job's generation is published: a new helper starts from the generation before it, so it takes part in the
  // job that started it (a fixed job waits for its block).
  void Grow(unsigned wanted) {
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    wanted = std::min(wanted, cpus - 1);
    if (helpers_ < wanted) KeepLibraryLoaded();
    while (helpers_ < wanted) {
      try {
        std::thread(&HelperPool::HelperLoop, this, helpers_ + 1, generation_.load(std::memory_order_acquire)).detach();
        ++helpers_;
      } catch (const std::system_error&) {
        return;  // a process or memory limit: the caller and the existing helpers take the remaining blocks
      }
    }
  }

  // Runs blocks while any are left. Called with mutex_ held; releases it while a block runs.
  void TakeBlocks(std::unique_lock<std::mutex>& lock) {
    while (job_ != nullptr && next_ < end_) RunBlock(lock, next_++);
  }

  // Runs block `index` of the current job. Called with mutex_ held; releases it while the block runs.
  void RunBlock(std::unique_lock<std::mutex>& lock, unsigned index) {
    const std::function<void(unsigned)>* job = job_;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*job)(index);
    } catch (...) {
      // An exception must never leave a helper thread (that calls std::terminate): keep it for the caller.
      error = std::current_exception();
    }
    lock.lock();
    if (error && !first_error_) first_error_ = error;
    if (++finished_ == end_) all_done_.notify_all();
  }

  // Helper number `id` (1, 2, ...), started when the job generation was `seen`.
  void HelperLoop(unsigned id, unsigned long long seen) {
    for (;;) {
      const auto until = std::chrono::steady_clock::now() + kSpin;
      while (generation_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < until) {
        std::this_thread::yield();
      }
      std::unique_lock<std::mutex> lock(mutex_);
      work_ready_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      seen = generation_.load(std::memory_order_acquire);
      // A fixed job: this helper's own block, if the job has one for it. The job cannot finish without it, so no
      // later job can start before this helper has seen this one.
      if (fixed_helpers_ > 0) {
        if (id <= fixed_helpers_) RunBlock(lock, id);
        continue;
      }
      // A job asks for at most helper_limit_ helpers: a pool grown by an earlier, wider call does not widen this one.
      if (joined_ >= helper_limit_) continue;
      ++joined_;
      TakeBlocks(lock);
    }
  }

  std::mutex run_mutex_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable all_done_;
  const std::function<void(unsigned)>* job_ = nullptr;
  unsigned next_ = 0, end_ = 0, finished_ = 0, helpers_ = 0, joined_ = 0, helper_limit_ = 0;
  // In a fixed job (RunFixed), helpers 1 .. fixed_helpers_ each run their own block; 0 in a shared-counter job.
  unsigned fixed_helpers_ = 0;
  std::atomic<unsigned long long> generation_{0};
  std::exception_ptr first_error_;
};

HelperPool& Pool() {
  // Never destroyed: helpers sleep in it until the process exits, and destroying it under them would be undefined.
  static HelperPool* pool = new HelperPool();
  return *pool;
}

}  // namespace

void run_on_threads(unsigned threads, unsigned blocks, const std::function<void(unsigned)>& block) {
  if (threads <= 1) {
    for (unsigned i = 0; i < blocks; i++) block(i);  // no handoff at all for one thread
    return;
  }
  Pool().Run(threads - 1, blocks, block);
}

void run_on_fixed_threads(unsigned threads, const std::function<void(unsigned)>& block) {
  if (threads <= 1) {
    block(0);
    return;
  }
  Pool().RunFixed(threads, block);
}

// Blocks per thread: more blocks than threads, so a helper that starts late still takes its share (the caller
// does not wait for it), at the cost of a lock per block.
constexpr unsigned kBlocksPerThread = 8;
// The blocked kernel's smallest block of rows: every block packs all of B once, so a block should be at least the
// reference's kMc (96 rows, solutions/native-kernel/blocked.cc) long. A constant here, not the impl's own kMc: the
// rows a thread gets must not depend on the block size a learner chose.
constexpr std::size_t kBlockedMinRows = 96;

void matmul_parallel(const double* a, const double* b, double* c, std::size_t n, unsigned threads, RowKernel rows,
                     Split split) {
  if (threads < 1) threads = 1;
  if (threads > n) threads = static_cast<unsigned>(n);
  unsigned blocks;
  if (split == Split::kPacked) {
    // One block per thread: a helper that wakes late leaves its block to the caller (the shared counter), so the
    // call is never slower than one thread; a finer split would pack all of B once more per extra block.
    const std::size_t by_rows = std::max<std::size_t>(1, n / kBlockedMinRows);
    blocks = static_cast<unsigned>(std::min<std::size_t>(by_rows, threads));
  } else {
    blocks = static_cast<unsigned>(std::min<std::size_t>(n, static_cast<std::size_t>(threads) * kBlocksPerThread));
  }
  // NATIVE_KERNEL_TRACE=1 (read once): one line per call on stderr, each block with the thread that ran it (the
  // caller or a helper), its CPU and its start and end in ms from the call's start; a diagnostic for the lab's
  // threads rungs (issue 47: is the kernel slow, or the time around it?). Off by default: no cost but this branch.
  static const bool trace = std::getenv("NATIVE_KERNEL_TRACE") != nullptr;
  if (!trace) {
    run_on_threads(threads, blocks, [=](unsigned t) { rows(a, b, c, n, n * t / blocks, n * (t + 1) / blocks); });
    return;
  }
  struct BlockTrace {
    double start_ms = 0, end_ms = 0;
    bool helper = false;
    int cpu = -1;
  };
  std::vector<BlockTrace> traced(blocks);
  const auto t0 = std::chrono::steady_clock::now();
  const auto caller = std::this_thread::get_id();
  const auto since = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
  run_on_threads(threads, blocks, [&](unsigned t) {
    BlockTrace& bt = traced[t];
    bt.start_ms = since();
    bt.helper = std::this_thread::get_id() != caller;
#if defined(__linux__)
    bt.cpu = sched_getcpu();
#endif
    rows(a, b, c, n, n * t / blocks, n * (t + 1) / blocks);
    bt.end_ms = since();
  });
  std::string line = "native-kernel trace: n=" + std::to_string(n) + " threads=" + std::to_string(threads) +
                     " total_ms=" + std::to_string(since());
  for (unsigned t = 0; t < blocks; ++t) {
    const BlockTrace& bt = traced[t];
    line += " block" + std::to_string(t) + "=" + (bt.helper ? "helper" : "caller") + "@cpu" + std::to_string(bt.cpu) +
            ":" + std::to_string(bt.start_ms) + "-" + std::to_string(bt.end_ms);
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace kernel
