// A minimal parallel loop for the batch entry points.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace rapidgrade {

/// Number of worker threads to use when the caller does not say: all hardware threads.
inline unsigned default_threads() noexcept {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

/// Calls f(i) for every i in [0, n) on up to `threads` threads (the calling thread is one of
/// them). Items are handed out in chunks from a shared counter so uneven items balance out.
/// f must be safe to call concurrently for distinct i. The first exception thrown by f is
/// rethrown on the calling thread after all workers have stopped.
template <typename F>
void parallel_for(std::size_t n, unsigned threads, F&& f) {
  if (n == 0) return;
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::min<std::size_t>(n, 1024))));
  if (threads == 1) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  const std::size_t chunk = std::max<std::size_t>(1, std::min<std::size_t>(64, n / (threads * 8)));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&]() {
    while (!failed.load(std::memory_order_relaxed)) {
      const std::size_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
      if (begin >= n) return;
      const std::size_t end = std::min(n, begin + chunk);
      try {
        for (std::size_t i = begin; i < end; ++i) f(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace rapidgrade
