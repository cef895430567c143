#include "backends/nccl/cublas_library.hpp"

#include "core/error.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <vector>

namespace distbench::nccl {
namespace {

// Not named bind: with a std::string argument, lookup also finds std::bind, which is the better match for these
// arguments and silently binds nothing (every pointer stayed null: cuBLAS's first call jumped to address 0).
template <typename F>
void bind_symbol(void* handle, const char* name, F& out, const std::string& path) {
  out = reinterpret_cast<F>(dlsym(handle, name));
  if (out == nullptr) {
    throw Error(ExitCode::unavailable, fmt::format("{} has no {}: it is not the cuBLAS {} distbench was built for",
                                                   path, name, CUBLAS_VER_MAJOR));
  }
}

}  // namespace

std::shared_ptr<const CublasLibrary> CublasLibrary::open() {
  const std::vector<std::string> names = {fmt::format("libcublas.so.{}", CUBLAS_VER_MAJOR), "libcublas.so"};
  std::shared_ptr<CublasLibrary> lib(new CublasLibrary());
  std::string errors;
  for (const std::string& name : names) {
    lib->handle_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib->handle_ != nullptr) {
      lib->path = name;
      break;
    }
    const char* why = dlerror();
    errors += fmt::format("{}{}", errors.empty() ? "" : "; ", why != nullptr ? why : name);
  }
  if (lib->handle_ == nullptr) {
    throw Error(ExitCode::unavailable,
                fmt::format("the GPU's matrix products need cuBLAS {} and it was not found ({}): add the folder "
                            "holding libcublas.so.{} (the CUDA toolkit's lib64, or a wheel's nvidia/cu{}/lib) to "
                            "LD_LIBRARY_PATH",
                            CUBLAS_VER_MAJOR, errors, CUBLAS_VER_MAJOR, CUBLAS_VER_MAJOR));
  }
  bind_symbol(lib->handle_, "cublasCreate_v2", lib->create, lib->path);
  bind_symbol(lib->handle_, "cublasDestroy_v2", lib->destroy, lib->path);
  bind_symbol(lib->handle_, "cublasSetStream_v2", lib->set_stream, lib->path);
  bind_symbol(lib->handle_, "cublasSgemm_v2", lib->sgemm, lib->path);
  bind_symbol(lib->handle_, "cublasGetVersion_v2", lib->get_version, lib->path);
  return lib;
}

CublasLibrary::~CublasLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

std::string cublas_status_text(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return fmt::format("cuBLAS status {}", static_cast<int>(status));
  }
}

}  // namespace distbench::nccl
