#include "atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>

#include "pairhist/errors.hpp"

namespace pairhist::io {

AtomicOutput::AtomicOutput(std::string final_path) : final_path_(std::move(final_path)) {
  const auto slash = final_path_.find_last_of('/');
  const std::string dir =
      slash == std::string::npos ? std::string() : final_path_.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? final_path_ : final_path_.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") {
    throw OutputError("output path '" + final_path_ + "' does not name a file");
  }
  temp_path_ = dir + "." + name + ".tmp." + std::to_string(static_cast<long long>(::getpid()));
}

AtomicOutput::~AtomicOutput() {
  // The temporary may never have been created (the writer failed before opening it), so a
  // failing remove() is expected and deliberately ignored; destructors must not throw.
  if (!committed_) std::remove(temp_path_.c_str());
}

void AtomicOutput::commit() {
  if (committed_) return;
  if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    const int err = errno;
    throw OutputError("cannot move finished output '" + temp_path_ + "' to '" + final_path_ +
                      "': " + std::strerror(err));
  }
  committed_ = true;
}

void write_text_atomically(const std::string& path, const std::string& contents,
                           const std::string& what) {
  AtomicOutput out(path);
  std::ofstream file(out.temp_path(), std::ios::out | std::ios::trunc | std::ios::binary);
  file << contents;
  file.close();
  if (!file) throw OutputError(path + ": cannot write " + what);
  out.commit();
}

}  // namespace pairhist::io
