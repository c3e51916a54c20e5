// Big-endian (XDR) decoding and a streaming binary file source shared by the binary trajectory
// readers (XTC, TRR, DCD). Header-only so that readers stay independent translation units.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace pairhist::io::xdr {

/// fread until n bytes arrived or the stream ends or fails; returns how many arrived.
inline size_t read_fully(std::FILE* f, void* dst, size_t n) {
  auto* p = static_cast<unsigned char*>(dst);
  size_t got = 0;
  while (got < n) {
    const size_t r = std::fread(p + got, 1, n - got, f);
    if (r == 0) break;
    got += r;
  }
  return got;
}

inline uint32_t load_be32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

inline uint64_t load_be64(const unsigned char* p) {
  return (uint64_t{load_be32(p)} << 32) | load_be32(p + 4);
}

inline int32_t be_int32(const unsigned char* p) {
  return static_cast<int32_t>(load_be32(p));
}

inline float be_float(const unsigned char* p) {
  const uint32_t bits = load_be32(p);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline double be_double(const unsigned char* p) {
  const uint64_t bits = load_be64(p);
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

/// A real of `size` bytes (4 = float, 8 = double), as XDR stores it.
inline double be_real(const unsigned char* p, size_t size) {
  return size == 8 ? be_double(p) : double{be_float(p)};
}

/// A binary file read strictly sequentially, so pipes work too. Tracks the read offset and the
/// file size, so a reader can reject a size field that points past the end of the file before
/// allocating for it.
class InputFile {
 public:
  static constexpr uint64_t kUnknownSize = std::numeric_limits<uint64_t>::max();

  /// Opens `path`; on failure returns false and leaves the reason in `error`.
  bool open(const std::string& path, std::string& error) {
    path_ = path;
    file_.reset(std::fopen(path.c_str(), "rb"));
    if (!file_) {
      error = std::strerror(errno);
      return false;
    }
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    size_ = kUnknownSize;  // pipes and devices
    if (!ec && std::filesystem::is_regular_file(status)) {
      const auto size = std::filesystem::file_size(path, ec);
      if (!ec) size_ = size;
    }
    return true;
  }

  /// Reads up to n bytes; returns how many arrived. Sets `io_error` on a read error (as opposed to
  /// the end of the file).
  size_t read(void* dst, size_t n, std::string& io_error) {
    const size_t got = read_fully(file_.get(), dst, n);
    if (got < n && std::ferror(file_.get())) io_error = std::strerror(errno);
    offset_ += got;
    return got;
  }

  /// Bytes between the read position and the end of the file, kUnknownSize for pipes. The size is
  /// looked up again when fewer than `wanted` bytes seem left: the file may still be growing.
  uint64_t bytes_left(uint64_t wanted) {
    if (size_ == kUnknownSize) return size_;
    if (size_ < offset_ || size_ - offset_ < wanted) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(path_, ec);
      if (!ec) size_ = size;
    }
    return size_ >= offset_ ? size_ - offset_ : 0;
  }

  /// Reads up to n bytes into `buf` (from its start) and returns how many arrived; `buf` may end
  /// up larger. It grows with the bytes that arrive, not with n, so that a size declared in a
  /// damaged file allocates no more than the file holds, also where the size is unknown (a pipe).
  size_t read_into(std::vector<unsigned char>& buf, size_t n, std::string& io_error) {
    constexpr size_t kFirstStep = size_t{1} << 24;
    size_t got = 0;
    while (got < n) {
      const size_t want = std::min(n - got, std::max(kFirstStep, got));
      if (buf.size() < got + want) buf.resize(got + want);
      const size_t arrived = read(buf.data() + got, want, io_error);
      got += arrived;
      if (arrived < want) break;
    }
    return got;
  }

  uint64_t offset() const { return offset_; }

 private:
  struct Closer {
    void operator()(std::FILE* f) const {
      if (f != nullptr) std::fclose(f);
    }
  };
  std::string path_;
  std::unique_ptr<std::FILE, Closer> file_;
  uint64_t offset_ = 0;
  uint64_t size_ = kUnknownSize;
};

}  // namespace pairhist::io::xdr
