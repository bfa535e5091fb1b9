#include "threads.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "kernel.h"

namespace kernel {
namespace {

// A pool of helper threads, started when first needed and kept asleep between calls. Starting a std::thread per
// call was measured at 0.1 to 3 ms before the new thread ran, inside a Node process on this course's 2-vCPU VM
// (pthread_create in a process with a large address space, then waiting to be scheduled); a sleeping thread that is
// woken runs within microseconds. Long-lived threads are what OpenMP runtimes and BLAS libraries keep, too.
class HelperPool {
 public:
  // Runs block(0) .. block(blocks - 1): the caller and the helpers take block indices from a shared counter until
  // none are left, so any number of blocks works with any number of helpers. One job at a time: concurrent callers
  // queue on run_mutex_.
  void Run(unsigned blocks, const std::function<void(unsigned)>& block) {
    std::lock_guard<std::mutex> run_lock(run_mutex_);
    std::unique_lock<std::mutex> lock(mutex_);
    Grow(blocks - 1);
    job_ = &block;
    next_ = 0;
    end_ = blocks;
    finished_ = 0;
    first_error_ = nullptr;
    ++generation_;
    work_ready_.notify_all();
    TakeBlocks(lock);  // the caller works too
    all_done_.wait(lock, [&] { return finished_ == end_; });
    job_ = nullptr;
    std::exception_ptr error = first_error_;
    lock.unlock();
    if (error) std::rethrow_exception(error);
  }

 private:
  // Starts helpers until there are `wanted` (at most one per CPU beyond the caller). Called with mutex_ held.
  void Grow(unsigned wanted) {
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    wanted = std::min(wanted, cpus - 1);
    while (helpers_ < wanted) {
      try {
        std::thread(&HelperPool::HelperLoop, this).detach();
        ++helpers_;
      } catch (const std::system_error&) {
        return;  // a process or memory limit: the caller and the existing helpers take the remaining blocks
      }
    }
  }

  // Runs blocks while any are left. Called with mutex_ held; releases it while a block runs.
  void TakeBlocks(std::unique_lock<std::mutex>& lock) {
    while (job_ != nullptr && next_ < end_) {
      const unsigned index = next_++;
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
  }

  void HelperLoop() {
    std::unique_lock<std::mutex> lock(mutex_);
    unsigned long long seen = generation_;
    for (;;) {
      work_ready_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      TakeBlocks(lock);
    }
  }

  std::mutex run_mutex_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable all_done_;
  const std::function<void(unsigned)>* job_ = nullptr;
  unsigned next_ = 0, end_ = 0, finished_ = 0, helpers_ = 0;
  unsigned long long generation_ = 0;
  std::exception_ptr first_error_;
};

HelperPool& Pool() {
  // Never destroyed: helpers sleep in it until the process exits, and destroying it under them would be undefined.
  static HelperPool* pool = new HelperPool();
  return *pool;
}

}  // namespace

void run_on_threads(unsigned threads, const std::function<void(unsigned)>& block) {
  if (threads <= 1) {
    block(0);  // no handoff at all for one thread
    return;
  }
  Pool().Run(threads, block);
}

void matmul_parallel(const double* a, const double* b, double* c, std::size_t n, unsigned threads) {
  if (threads < 1) threads = 1;
  if (threads > n) threads = static_cast<unsigned>(n);
  run_on_threads(threads, [=](unsigned t) { matmul_rows(a, b, c, n, n * t / threads, n * (t + 1) / threads); });
}

}  // namespace kernel
