// The scoring job's JSON-line reader and writer: read_line, decode_string, write_json_string.
// Invariants: a picked line's object lies inside the line, starts with '{' and ends with '}';
// every picked string decodes to valid UTF-8 of exactly its announced size; a string written as
// JSON takes exactly json_string_size bytes and is quoted.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "rapidgrade/io/jsonl.hpp"

namespace jl = rapidgrade::jsonl;

namespace {

// Whether `s` is valid UTF-8 (no surrogates, no overlong forms, at most U+10FFFF).
bool valid_utf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80                 ? 1
                      : c >= 0xC2 && c <= 0xDF ? 2
                      : c >= 0xE0 && c <= 0xEF ? 3
                      : c >= 0xF0 && c <= 0xF4 ? 4
                                               : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    const auto c1 = static_cast<unsigned char>(s[i + (len > 1 ? 1 : 0)]);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) {
      return false;
    }
    i += len;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line = rapidgrade::fuzz::as_text(data, size);
  jl::Keys keys;
  keys.pick = {"gold", "response", "level", "id"};
  keys.reserved = {"correct", "_source"};
  jl::Value values[4];
  std::size_t begin = 0;
  std::size_t end = 0;
  if (jl::read_line(line, keys, begin, end, values)) {
    RAPIDGRADE_FUZZ_CHECK(begin < end && end <= line.size());
    RAPIDGRADE_FUZZ_CHECK(line[begin] == '{' && line[end - 1] == '}');
    for (const jl::Value& v : values) {
      if (v.kind != jl::Kind::kString) continue;
      RAPIDGRADE_FUZZ_CHECK(v.begin <= v.end && v.end <= end);
      std::string decoded(v.decoded_size + jl::kDecodePadding, '\0');
      jl::decode_string(line, v, decoded.data());
      decoded.resize(v.decoded_size);
      RAPIDGRADE_FUZZ_CHECK(valid_utf8(decoded));
      bool ascii = true;
      for (const char c : decoded) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
      RAPIDGRADE_FUZZ_CHECK(ascii == v.ascii);
      std::string json(jl::json_string_size(decoded), '\0');
      const char* stop = jl::write_json_string(json.data(), decoded);
      RAPIDGRADE_FUZZ_CHECK(stop == json.data() + json.size());
      RAPIDGRADE_FUZZ_CHECK(json.size() >= 2 && json.front() == '"' && json.back() == '"');
    }
  }
  return 0;
}
