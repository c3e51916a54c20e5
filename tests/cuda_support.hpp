// Device memory for the GPU suites: a checked CUDA call, an array copied to the device, and a
// copy back.
#pragma once

#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#define CUDA_REQUIRE(call)                           \
  do {                                               \
    const cudaError_t err_ = (call);                 \
    INFO(#call << ": " << cudaGetErrorString(err_)); \
    REQUIRE(err_ == cudaSuccess);                    \
  } while (0)

namespace pairhist::test {

template <class T>
std::vector<T> download(const T* device, size_t n) {
  std::vector<T> h(n);
  if (n) CUDA_REQUIRE(cudaMemcpy(h.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(const std::vector<T>& host) {
    CUDA_REQUIRE(
        cudaMalloc(reinterpret_cast<void**>(&ptr), std::max<size_t>(1, host.size()) * sizeof(T)));
    if (!host.empty())
      CUDA_REQUIRE(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  std::vector<T> get(size_t n) const { return download(ptr, n); }
};

}  // namespace pairhist::test
