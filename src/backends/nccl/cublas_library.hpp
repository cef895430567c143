// cuBLAS, opened when first needed (dlopen) rather than linked: distbench starts, and every benchmark but the ones
// that multiply matrices on the GPU runs, on a machine without libcublas; those say what is missing instead.
#pragma once

#include <cublas_v2.h>

#include <memory>
#include <string>

namespace distbench::nccl {

class CublasLibrary {
 public:
  // Opens libcublas.so.<major of the headers built against> (then libcublas.so); throws Error(unavailable) naming
  // what was tried and how to make it findable.
  static std::shared_ptr<const CublasLibrary> open();
  ~CublasLibrary();
  CublasLibrary(const CublasLibrary&) = delete;
  CublasLibrary& operator=(const CublasLibrary&) = delete;

  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasGetVersion_v2) get_version = nullptr;
  std::string path;  // the file opened

 private:
  CublasLibrary() = default;
  void* handle_ = nullptr;
};

// "CUBLAS_STATUS_NOT_INITIALIZED" for a status code.
std::string cublas_status_text(cublasStatus_t status);

}  // namespace distbench::nccl
