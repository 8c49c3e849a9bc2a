// A thread's spare working buffers: a short-lived list or string borrows the buffer its thread
// used last time instead of asking malloc for a new one.
//
// Why: a grading step makes and drops the same few working lists (tokens, sampled values) for
// every pair. malloc serves a request that its per-thread cache cannot from its bins, and in a
// long-lived host process (Python, after loading a dataset) those bins hold memory freed long
// ago all over the heap: each such list then lands on cold memory, and a request of 1 KB or more
// also makes malloc merge its small free chunks first. Measured on math-verify's 270 short
// pairs, the core took 20% longer per pair once its heap had been fragmented by 3 million
// small blocks. A borrowed buffer is the same warm memory every time.
#pragma once

#include <cstddef>
#include <utility>

namespace rapidgrade::detail {

/// Most bytes of capacity a thread keeps as its spare per (Buffer, Tag): a larger buffer (a
/// long input's) is freed when given back, so a thread never holds more than this per kind.
constexpr std::size_t kMaxSpareBytes = std::size_t{256} << 10;

/// An empty Buffer (a std::vector, a std::basic_string, or a struct of them with the same
/// clear(), capacity() and value_type) for the lifetime of this object, taken from the calling
/// thread's spare buffer of kind (Buffer, Tag) and given back, emptied, when this object is
/// destroyed. Reentrant: while the spare is borrowed, a nested Spare of the same kind finds it
/// gone and starts with a new buffer (which it then gives back in turn). Not to be handed to
/// another thread. Each Spare looks its thread's slot up twice (a call in a shared library):
/// one Spare per routine, not one per list.
template <typename Buffer, typename Tag>
class Spare {
 public:
  Spare() : v_(std::move(slot())) { v_.clear(); }
  ~Spare() {
    if (v_.capacity() * sizeof(typename Buffer::value_type) > kMaxSpareBytes) return;
    Buffer& spare = slot();
    if (v_.capacity() > spare.capacity()) {
      v_.clear();
      spare = std::move(v_);
    }
  }
  Spare(const Spare&) = delete;
  Spare& operator=(const Spare&) = delete;

  Buffer& operator*() { return v_; }
  Buffer* operator->() { return &v_; }
  const Buffer& operator*() const { return v_; }
  const Buffer* operator->() const { return &v_; }

 private:
  static Buffer& slot() {
    thread_local Buffer spare;
    return spare;
  }
  Buffer v_;
};

}  // namespace rapidgrade::detail
